"""A package's public names loaded on first use (PEP 562 module `__getattr__`), so that
importing the package costs only what its user touches."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    namespace: dict[str, Any],
    *,
    moved: Mapping[str, str] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, loading each name of `exports` (name ->
    relative module) into `namespace` on first use; a `moved` name (old name -> new dotted
    path) raises an `AttributeError` naming where it went."""

    def load(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            if moved and name in moved:
                raise AttributeError(
                    f"module {package!r} has no attribute {name!r}: it moved, "
                    f"use {moved[name]} instead"
                )
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value

    def listing() -> list[str]:
        return sorted({*namespace, *exports})

    return load, listing
