"""TARGET = `path/file.py[:server]` or `module[:server]`: load it and find the Server."""

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


class TargetError(Exception):
    """A TARGET that cannot be served; the message says why."""


def split_target(target: str) -> tuple[str, str | None]:
    """("path or module", "attribute or None"); a Windows drive letter is not a separator."""
    head, sep, tail = target.rpartition(":")
    if not sep or (len(head) == 1 and head.isalpha()) or "/" in tail or "\\" in tail:
        return target, None
    return head, tail or None


def _import(spec: str) -> ModuleType:
    looks_like_path = spec.endswith(".py") or "/" in spec or "\\" in spec
    try:
        if looks_like_path:
            path = Path(spec).resolve()
            if not path.is_file():
                raise TargetError(f"no such file: {spec}")
            sys.path.insert(0, str(path.parent))
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            if module_spec is None or module_spec.loader is None:
                raise TargetError(f"cannot import {spec}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[path.stem] = module
            module_spec.loader.exec_module(module)
            return module
        sys.path.insert(0, str(Path.cwd()))
        return importlib.import_module(spec)
    except TargetError:
        raise
    except ModuleNotFoundError as error:
        if error.name and spec.startswith(error.name):
            raise TargetError(f"no module named {spec!r} (looked from {Path.cwd()})") from None
        traceback.print_exc(file=sys.stderr)
        raise TargetError(f"importing {spec} failed: {error}") from None
    except BaseException as error:
        traceback.print_exc(file=sys.stderr)
        raise TargetError(f"importing {spec} failed: {type(error).__name__}: {error}") from None


def load_server(target: str) -> Server:
    """Import TARGET and return its Server."""
    from ..server import Server

    spec, attribute = split_target(target)
    module = _import(spec)
    if attribute is not None:
        found = getattr(module, attribute, None)
        if not isinstance(found, Server):
            raise TargetError(f"{spec} has no Server named {attribute!r}")
        return found
    servers = {name: value for name, value in vars(module).items() if isinstance(value, Server)}
    if not servers:
        raise TargetError(f"{spec} defines no toolwire Server (looked for a module-level Server)")
    if len(servers) > 1:
        names = ", ".join(sorted(servers))
        raise TargetError(f"{spec} defines several Servers ({names}); say which: {spec}:NAME")
    return next(iter(servers.values()))
