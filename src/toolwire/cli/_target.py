"""TARGET = `path/file.py[:server]` or `module[:server]`: import it and find the Server."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..server import Server

__all__ = ["TargetError", "is_path_target", "load_server", "portable_target", "split_target"]


class TargetError(Exception):
    """A TARGET that cannot be served; the message says why."""


def split_target(target: str) -> tuple[str, str | None]:
    """("path or module", "attribute or None"), split at the last `:` followed by an identifier.

    Any other `:` belongs to a path: `C:\\srv\\app.py`, `C:/srv/app.py`, or `C:app.py` (a
    drive-relative file on Windows, a file of that name on POSIX).
    """
    head, sep, tail = target.rpartition(":")
    if not sep:
        return target, None
    if tail.isidentifier():
        if not head:
            raise TargetError(
                f"TARGET {target!r} names no file or module before ':{tail}' "
                f"(give path/file.py:{tail} or module:{tail})"
            )
        return head, tail
    if not tail:
        if not head:
            raise TargetError("TARGET ':' names no file or module")
        return head, None  # `srv/app.py:`: no attribute named, the module's one Server
    if is_path_target(tail):
        return target, None
    raise TargetError(
        f"TARGET {target!r}: {tail!r} after the last ':' is not an attribute name (a Python "
        "identifier, like server) nor a path to a .py file; give path/file.py:NAME or "
        "module:NAME"
    )


def is_path_target(spec: str) -> bool:
    """Whether the TARGET (without `:server`) names a file rather than a module."""
    return spec.endswith(".py") or "/" in spec or "\\" in spec


def portable_target(target: str, path: str | None) -> tuple[str, str | None]:
    """TARGET as another process started elsewhere can import it: a file made absolute, or a
    module with the absolute directory to import it from (`--path`, else the current one)."""
    spec, attribute = split_target(target)
    suffix = f":{attribute}" if attribute else ""
    if is_path_target(spec):
        return str(Path(spec).expanduser().resolve()) + suffix, None
    return target, str(Path(path).expanduser().resolve() if path else Path.cwd())


def _import_file(spec: str) -> ModuleType:
    path = Path(spec).expanduser().resolve()
    if not path.exists():
        if ":" in spec:  # a mistyped attribute, read as part of the path (see split_target)
            raise TargetError(
                f"no such file: {spec} (a ':' followed by something other than a Python "
                "name is part of the path; name the Server with path/file.py:NAME)"
            )
        raise TargetError(f"no such file: {spec}")
    if not path.is_file():
        raise TargetError(f"not a file: {spec} (give a .py file or a module name)")
    # As `python path/file.py` does: the file's directory comes first on sys.path, so the
    # server's sibling modules import.
    sys.path.insert(0, str(path.parent))
    name = path.stem  # as `python file.py` would import it, unless that name is taken
    if not name.isidentifier() or name in sys.modules:
        name = f"_toolwire_target_{abs(hash(str(path))):x}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise TargetError(f"cannot import {spec}: not a Python source file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # pydantic resolves forward references through sys.modules
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _import(spec: str, path: str | None) -> ModuleType:
    try:
        if is_path_target(spec):
            return _import_file(spec)
        root = Path(path).expanduser().resolve() if path else Path.cwd()
        sys.path.insert(0, str(root))
        try:
            return importlib.import_module(spec)
        except ModuleNotFoundError as error:
            missing = error.name or ""
            if missing and (spec == missing or spec.startswith(missing + ".")):
                raise TargetError(
                    f"no module named {spec!r} (looked in {root} and on sys.path); "
                    f"for a file, give its path: {spec.replace('.', '/')}.py"
                ) from None
            raise
    except (TargetError, KeyboardInterrupt):
        raise
    except BaseException as error:  # SystemExit included: a module that exits is a bad target
        traceback.print_exc(file=sys.stderr)
        raise TargetError(f"importing {spec} failed: {type(error).__name__}: {error}") from None


def load_server(target: str, *, path: str | None = None) -> Server:
    """Import TARGET (from `path` for a module) and return its Server, the only one if unnamed.

    Raises:
        TargetError: Missing, failing to import (traceback on stderr), or no single Server.
    """
    from ..server import Server

    spec, attribute = split_target(target)
    module = _import(spec, path)
    if attribute is not None:
        found = getattr(module, attribute, None)
        if found is None:
            raise TargetError(f"{spec} has no attribute {attribute!r}")
        if not isinstance(found, Server):
            raise TargetError(
                f"{spec}:{attribute} is a {type(found).__name__}, not a toolwire Server"
            )
        return found
    servers: dict[int, tuple[str, Server]] = {}  # each Server once, under its first name
    for name, value in vars(module).items():
        if isinstance(value, Server):
            servers.setdefault(id(value), (name, value))
    if not servers:
        raise TargetError(
            f"{spec} defines no toolwire Server at module level "
            f"(create one with `server = Server(...)`, or name it: {spec}:NAME)"
        )
    if len(servers) > 1:
        names = ", ".join(sorted(name for name, _ in servers.values()))
        raise TargetError(f"{spec} defines several Servers ({names}); pick one: {spec}:NAME")
    return next(iter(servers.values()))[1]
