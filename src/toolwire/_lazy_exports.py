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
    """The `__getattr__` and `__dir__` of a package whose names load on first use.

    Args:
        package: The package's `__name__` (relative module paths are resolved from it).
        exports: Public name -> the (relative) module defining it.
        namespace: The package's `globals()`: a loaded name is stored there, so that later
            lookups never reach `__getattr__` again.
        moved: Former public name -> the dotted path it is imported from now; getting the old
            name raises an `AttributeError` naming the new one (it is not listed by `dir`).
    """

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
        return sorted([*namespace, *exports])

    return load, listing
