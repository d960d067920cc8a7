"""Recognising the annotation of a tool's run-context parameter.

toolwire's `RunContextWrapper`/`ToolContext` and the Agents SDK's classes of the same names
count, parametrised or not, bare or in `Annotated[...]`; a subclass does not, as in the SDK.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, get_origin

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
