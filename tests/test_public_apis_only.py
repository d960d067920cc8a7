"""toolwire uses only public names of the standard library and of its dependencies.

Every module under src/toolwire is parsed; a use of a `_`-prefixed name (dunders aside) that
belongs to another package fails the test, named by file and line:

- an import of a private name or module (`from json.scanner import _x`, `import a._b`),
  json's C accelerators (`c_make_encoder`, ...) counting as private;
- an attribute read on a name bound by an import of another package (`asyncio._x`,
  `threading._register_atexit`);
- an attribute read on any other object (`loop._ready`, `semaphore._value`), or a name
  given to `getattr`/`hasattr`/`setattr`/`delattr` (literal, or a module-level string),
  when toolwire itself never defines an attribute of that name (as `obj._name = ...`, in a
  class body or in `__slots__`, or a name beginning with "_toolwire" that toolwire marks
  other objects with): the object then comes from elsewhere.

`KNOWN` and `AWAITING_AN_SDK_ROUTE` list the exact uses still awaiting removal; an entry
that no longer matches fails too, so the lists only ever shrink.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "toolwire"

KNOWN: frozenset[tuple[str, str]] = frozenset()
"""(path under src/toolwire, private name) of uses that are being removed elsewhere."""

AWAITING_AN_SDK_ROUTE: frozenset[tuple[str, str]] = frozenset(
    {
        # openai-agents offers no public way to build its FunctionTool with its own failure
        # wrapper (RunConfig.tool_error_formatter, `__wrapped__`) around another invoker, nor
        # to learn that its default failure formatter answered.
        ("tools/agents_interop.py", "_build_wrapped_function_tool"),
        ("tools/agents_interop.py", "_build_handled_function_tool_error_handler"),
        ("tools/agents_interop.py", "_FUNCTION_TOOL_WRAPPED_CALLABLE_MARKER"),
        ("tools/agents_interop.py", "_function_tool_default_failure_handled"),
        # The SDK FunctionTool's failure settings and output adapter, read from SDK tools.
        ("tools/agents_interop.py", "_output_type_adapter"),
        ("tools/agents_interop.py", "_use_default_failure_error_function"),
        ("tools/agents_interop.py", "_failure_error_function"),
    }
)
"""Uses of the Agents SDK's private names that still wait for a public replacement."""

UNDOCUMENTED = frozenset(
    {"c_make_encoder", "c_make_scanner", "c_encode_basestring", "c_scanstring"}
)
"""json's C accelerators: no underscore, yet internal all the same (flagged like one)."""

DOCUMENTED: frozenset[tuple[str, str]] = frozenset({("os", "_exit")})
"""Names that begin with `_` and are documented public API all the same."""

_ACCESSORS = {"getattr", "hasattr", "setattr", "delattr"}


def _private(name: str) -> bool:
    if name.startswith("c_") and name.partition(".")[0] in UNDOCUMENTED:
        return True
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(SRC).as_posix(), ast.parse(path.read_text("utf-8"), str(path)))
        for path in sorted(SRC.rglob("*.py"))
    ]


def _own_attributes(trees: list[tuple[str, ast.Module]]) -> set[str]:
    """Every private attribute name toolwire defines on its own objects."""
    names: set[str] = set()
    for _, tree in trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store | ast.Del)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                        names.add(item.name)
                    targets: list[ast.expr] = []
                    if isinstance(item, ast.Assign):
                        targets = item.targets
                    elif isinstance(item, ast.AnnAssign):
                        targets = [item.target]
                    for target in targets:
                        if isinstance(target, ast.Name):
                            names.add(target.id)
                            if target.id == "__slots__" and isinstance(item, ast.Assign):
                                names.update(_strings(item.value))
            elif isinstance(node, ast.Constant) and str(node.value).startswith("_toolwire"):
                names.add(str(node.value))  # a mark toolwire sets on other objects
    return {name for name in names if _private(name)}


def _strings(node: ast.expr) -> Iterator[str]:
    for item in ast.walk(node):
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            yield item.value


class _Finder(ast.NodeVisitor):
    """The private names of other packages one module uses."""

    def __init__(self, own: set[str], tree: ast.Module) -> None:
        self.own = own
        self.constants = {  # module-level names bound to a string, as getattr may be given
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        self.external: set[str] = set()  # names bound to another package's module or object
        self.internal: set[str] = set()  # names bound to toolwire's modules
        self.found: list[tuple[int, str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            bound = alias.asname or parts[0]
            if parts[0] == "toolwire":
                self.internal.add(bound)
                continue
            self.external.add(bound)
            self.found += [(node.lineno, part) for part in parts if _private(part)]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        parts = (node.module or "").split(".")
        if node.level or parts[0] == "toolwire":
            self.internal.update(alias.asname or alias.name for alias in node.names)
            return
        self.found += [(node.lineno, part) for part in parts if _private(part)]
        for alias in node.names:
            self.external.add(alias.asname or alias.name)
            if _private(alias.name):
                self.found.append((node.lineno, alias.name))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if not _private(node.attr):
            return
        base = node.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name):
            if base.id in self.external:
                if (base.id, node.attr) not in DOCUMENTED or base is not node.value:
                    self.found.append((node.lineno, node.attr))
                return
            if base.id in self.internal and base is node.value:
                return  # a private name of one of toolwire's own modules
        if node.attr not in self.own:
            self.found.append((node.lineno, node.attr))

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in _ACCESSORS and len(node.args) >= 2:
            name = node.args[1]
            literal = name.value if isinstance(name, ast.Constant) else None
            if isinstance(name, ast.Name):
                literal = self.constants.get(name.id)
            target = node.args[0]
            on_self = isinstance(target, ast.Name) and target.id in ("self", "cls")
            mark = isinstance(literal, str) and literal.startswith("_toolwire")
            if isinstance(literal, str) and _private(literal) and not (on_self or mark):
                self.found.append((node.lineno, literal))


def _uses() -> list[tuple[str, int, str]]:
    trees = _modules()
    own = _own_attributes(trees)
    uses = []
    for path, tree in trees:
        finder = _Finder(own, tree)
        finder.visit(tree)
        uses += [(path, line, name) for line, name in finder.found]
    return uses


def test_no_private_name_of_another_package_is_used() -> None:
    awaited = KNOWN | AWAITING_AN_SDK_ROUTE
    found = [(path, line, name) for path, line, name in _uses() if (path, name) not in awaited]
    assert not found, "private names of other packages used:\n" + "\n".join(
        f"  src/toolwire/{path}:{line}: {name}" for path, line, name in sorted(found)
    )


def test_every_known_use_is_still_there() -> None:
    present = {(path, name) for path, _, name in _uses()}
    stale = sorted((KNOWN | AWAITING_AN_SDK_ROUTE) - present)
    assert not stale, f"no longer used, remove from KNOWN: {stale}"


def test_the_finder_sees_each_kind_of_use() -> None:
    source = """
import asyncio
import json.scanner as scanner
from json.encoder import c_make_encoder
from threading import _register_atexit
from . import _pool

class Mine:
    __slots__ = ("_slot",)

    def __init__(self) -> None:
        self._kept = 1

loop = asyncio.get_running_loop()
loop._ready
getattr(loop, "_ready", None)
_FLAG = "_handled"
setattr(loop, _FLAG, True)
asyncio.Semaphore(1)._value
scanner._private_helper
scanner.c_make_scanner
Mine()._kept
Mine()._slot
getattr(Mine(), "_kept")
loop._pending = 1
_pool._quick
"""
    tree = ast.parse(source)
    finder = _Finder(_own_attributes([("probe.py", tree)]), tree)
    finder.visit(tree)
    assert sorted(name for _, name in finder.found) == [
        "_handled",
        "_kept",
        "_pending",
        "_private_helper",
        "_ready",
        "_ready",
        "_register_atexit",
        "_value",
        "c_make_encoder",
        "c_make_scanner",
    ]
