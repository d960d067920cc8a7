"""The package's layers point one way, and no two modules import each other in a ring.

Every import in `src/toolwire` is read from the source (module level, inside functions, and
under `TYPE_CHECKING` alike: a deferred import is still a dependency), resolved to the module
it names, and checked against the layer order

    foundation -> schema -> tools -> protocol -> transports -> redis -> top

where foundation is `errors`, `context` and `paths`, redis is the `redis/` backplane
(it implements stores the HTTP transport defines; `server` imports it only for
`backplane="redis://..."`), and top is `server`, `lifespan`, `__main__`, `cli/`
and `client/`. A module may import its own layer
or any layer below it. The package `__init__` is the re-export hub: its own imports are not
checked, and importing it from inside the package counts as importing the top layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "toolwire"

LAYERS = ("foundation", "schema", "tools", "protocol", "transports", "redis", "top")
_FOUNDATION = {"toolwire.errors", "toolwire.context", "toolwire.paths"}
_SUBPACKAGE_LAYERS = {
    "schema": "schema",
    "tools": "tools",
    "protocol": "protocol",
    "transports": "transports",
    "redis": "redis",
    "cli": "top",
    "client": "top",
}

# Imports that break the order today, as (importer, imported). Steps of issue #12 shrink this
# to nothing; an entry that no longer occurs fails the test too, so the list stays exact.
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset()

# Rings of modules importing each other today (each as its sorted members).
KNOWN_CYCLES: frozenset[tuple[str, ...]] = frozenset()


def _module_files() -> dict[str, Path]:
    files: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


MODULES = _module_files()


def layer_of(module: str) -> str:
    """The layer a module of the package belongs to."""
    if module in _FOUNDATION:
        return "foundation"
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and module in MODULES and _is_package(module)):
        layer = _SUBPACKAGE_LAYERS.get(parts[1])
        if layer is None:
            raise AssertionError(f"{module}: subpackage {parts[1]!r} has no layer; add it here")
        return layer
    return "top"  # the hub itself, server, lifespan, __main__


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _resolve(importer: str, node: ast.ImportFrom) -> list[str]:
    """The package modules an `from ... import ...` names (a submodule when one exists)."""
    if node.level:
        base = importer.split(".")
        if not _is_package(importer):
            base.pop()
        base = base[: len(base) - (node.level - 1)]
        if node.module:
            base += node.module.split(".")
        target = ".".join(base)
    else:
        target = node.module or ""
    if target != PACKAGE and not target.startswith(PACKAGE + "."):
        return []
    found = []
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        found.append(submodule if submodule in MODULES else target)
    return found


def imports_of(module: str) -> set[str]:
    """Every module of the package that `module` imports, wherever the import statement is."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"), str(MODULES[module]))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            found.update(_resolve(module, node))
    found.discard(module)
    unknown = {name for name in found if name not in MODULES}
    assert not unknown, f"{module} imports modules that do not exist: {sorted(unknown)}"
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def upward_imports() -> set[tuple[str, str]]:
    """(importer, imported) pairs where a module reaches into a layer above its own."""
    bad = set()
    for module, targets in GRAPH.items():
        if module == PACKAGE:
            continue  # the re-export hub
        rank = LAYERS.index(layer_of(module))
        for target in targets:
            if LAYERS.index(layer_of(target)) > rank:
                bad.add((module, target))
    return bad


def import_cycles() -> set[tuple[str, ...]]:
    """Strongly connected groups of more than one module (Tarjan), the hub left out."""
    graph = {m: {t for t in ts if t != PACKAGE} for m, ts in GRAPH.items() if m != PACKAGE}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: set[tuple[str, ...]] = set()

    def visit(node: str) -> None:
        # Recursion depth is bounded by the number of modules (about a hundred).
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.add(tuple(sorted(group)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_every_module_has_a_layer() -> None:
    assert len(MODULES) > 50
    for module in MODULES:
        assert layer_of(module) in LAYERS


def test_the_resolver_sees_deferred_and_type_checking_imports() -> None:
    # features/tools.py imports the registry at module level; content.py imports tools.outputs
    # inside functions and under TYPE_CHECKING.
    assert "toolwire.protocol.features.registry" in GRAPH["toolwire.protocol.features.tools"]
    assert "toolwire.tools.outputs" in GRAPH["toolwire.protocol.wire.content"]
    assert "toolwire.protocol.wire.eras" in GRAPH["toolwire.protocol.wire.content"]


def test_layers_point_one_way() -> None:
    found = upward_imports()
    new = sorted(found - KNOWN_UPWARD)
    assert not new, "imports reaching a layer above their own:\n" + "\n".join(
        f"  {importer} ({layer_of(importer)}) -> {imported} ({layer_of(imported)})"
        for importer, imported in new
    )
    gone = sorted(KNOWN_UPWARD - found)
    assert not gone, f"fixed: drop these from KNOWN_UPWARD: {gone}"


def test_no_import_cycles() -> None:
    found = import_cycles()
    new = sorted(found - KNOWN_CYCLES)
    assert not new, "modules importing each other in a ring:\n" + "\n".join(
        "  " + " <-> ".join(group) for group in new
    )
    gone = sorted(KNOWN_CYCLES - found)
    assert not gone, f"fixed: drop these from KNOWN_CYCLES: {gone}"


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("toolwire.errors", "foundation"),
        ("toolwire.schema", "schema"),
        ("toolwire.schema.strict", "schema"),
        ("toolwire.tools.threads", "tools"),
        ("toolwire.protocol.session.session", "protocol"),
        ("toolwire.transports.stdio.stdio", "transports"),
        ("toolwire.redis", "redis"),
        ("toolwire.redis.backplane", "redis"),
        ("toolwire.server", "top"),
        ("toolwire.cli.run", "top"),
        ("toolwire", "top"),
    ],
)
def test_layer_assignment(module: str, layer: str) -> None:
    assert layer_of(module) == layer


def _defers(node: ast.AST) -> bool:
    """Whether imports inside `node` wait: a function body, or an `if TYPE_CHECKING:`."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return True
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports_with_timing(module: str) -> list[tuple[list[str], bool]]:
    """Each import statement of `module` as (the names it imports, package modules resolved),
    and whether it runs when the module is loaded (not deferred by `_defers`)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"), str(MODULES[module]))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = _resolve(module, node) or [node.module or ""]
        else:
            continue
        eager, up = True, parents.get(node)
        while up is not None:
            eager = eager and not _defers(up)
            up = parents.get(up)
        found.append((names, eager))
    return found


def _importers(target: str) -> dict[str, bool]:
    """Modules importing `target` (a package outside toolwire or a subpackage of it), those
    inside `target` and the re-export hub left out, each mapped to whether some import of it
    runs when the module is loaded."""
    found: dict[str, bool] = {}
    for module in MODULES:
        if module in (PACKAGE, target) or module.startswith(target + "."):
            continue
        for names, eager in _imports_with_timing(module):
            if any(name == target or name.startswith(target + ".") for name in names):
                found[module] = found.get(module, False) or eager
    return found


def test_only_the_client_imports_mcp() -> None:
    """The server side never needs the `mcp` package: only `client/` imports it, and only the
    CLI's remote commands (`toolwire call`, `toolwire tools`...) reach `client/`."""
    users = set(_importers("mcp"))
    assert "toolwire.client._targets" in users, "the scan no longer sees mcp imports"
    assert all(module.startswith("toolwire.client.") for module in users), sorted(users)
    assert set(_importers("toolwire.client")) == {"toolwire.cli.remote"}


def test_only_the_redis_subpackage_imports_redis() -> None:
    """redis-py is imported by `toolwire.redis` alone, and `server` loads that package only
    when an app is given a backplane URL (inside a function, never at module level)."""
    users = set(_importers("redis"))
    assert "toolwire.redis" in users, "the scan no longer sees redis imports"
    assert all(module.startswith("toolwire.redis") for module in users), sorted(users)
    assert _importers("toolwire.redis") == {"toolwire.server": False}
