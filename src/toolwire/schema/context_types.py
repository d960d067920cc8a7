"""Recognising the annotation of a tool's run-context parameter.

toolwire's `RunContextWrapper`/`ToolContext` and the Agents SDK's classes of the same names
count, parametrised or not, bare or in `Annotated[...]`; a subclass does not, as in the SDK.
`holds_context` finds a context class anywhere else in an annotation (a subclass, a member of a
union, an item type), which would let the caller of a tool fill the context in.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, get_args, get_origin

from ..context import RunContextWrapper, ToolContext

_OURS: tuple[type, ...] = (RunContextWrapper, ToolContext)
_SDK_NAMES = frozenset({"RunContextWrapper", "ToolContext"})


def is_context_type(annotation: Any) -> bool:
    """Whether `annotation` (without type arguments) is a context class; the SDK's are matched
    by module and name, so that `agents` is never imported."""
    if any(annotation is cls for cls in _OURS):
        return True
    if not isinstance(annotation, type):
        return False
    module = getattr(annotation, "__module__", "") or ""
    return annotation.__qualname__ in _SDK_NAMES and module.startswith("agents.")


def unwrap_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`(type, metadata)` of `Annotated[type, *metadata]`; `(annotation, ())` otherwise."""
    if get_origin(annotation) is Annotated:
        return annotation.__origin__, tuple(annotation.__metadata__)
    return annotation, ()


def names_context(annotation: Any) -> bool:
    """Whether a parameter with this (resolved, maybe empty) annotation gets the run context."""
    if annotation is inspect.Parameter.empty:
        return False
    bare, _ = unwrap_annotated(annotation)
    return is_context_type(get_origin(bare) or bare)


def holds_context(annotation: Any) -> bool:
    """Whether `annotation` mentions a context class or a subclass of one anywhere (inside
    `Optional`, unions, `Annotated` and type arguments)."""
    seen: list[Any] = []
    pending = [annotation]
    while pending:
        current = pending.pop()
        if any(current is earlier for earlier in seen):
            continue
        seen.append(current)
        bare, _ = unwrap_annotated(current)
        for cls in (bare, get_origin(bare)):  # a class, or a generic's class
            if isinstance(cls, type) and any(is_context_type(base) for base in cls.__mro__):
                return True
        pending.extend(get_args(bare))
    return False
