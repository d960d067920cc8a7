"""Recognising the annotation that marks a tool's run-context parameter.

A tool may ask for its context with toolwire's `RunContextWrapper`/`ToolContext` or with the
Agents SDK's classes of the same names (a tool written for the SDK keeps working). Only those
exact classes count, parametrised or not, bare or inside `Annotated[...]`: a subclass is an
ordinary parameter, as in the SDK.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, get_origin

from ..context import RunContextWrapper, ToolContext

_OURS: tuple[type, ...] = (RunContextWrapper, ToolContext)
_SDK_NAMES = frozenset({"RunContextWrapper", "ToolContext"})


def is_context_type(annotation: Any) -> bool:
    """Whether `annotation` (already stripped of its type arguments) is a context class.

    The SDK's classes are matched by module and name: importing `agents` to compare them by
    identity would put the whole SDK on toolwire's start-up path.
    """
    if any(annotation is cls for cls in _OURS):
        return True
    if not isinstance(annotation, type):
        return False
    module = getattr(annotation, "__module__", "") or ""
    return annotation.__qualname__ in _SDK_NAMES and module.startswith("agents.")


def unwrap_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`(type, metadata)` of `Annotated[type, *metadata]` (Python flattens nested ones);
    `(annotation, ())` otherwise."""
    if get_origin(annotation) is Annotated:
        return annotation.__origin__, tuple(annotation.__metadata__)
    return annotation, ()


def names_context(annotation: Any) -> bool:
    """Whether a parameter annotated with `annotation` (resolved, possibly missing) receives
    the run context."""
    if annotation is inspect.Parameter.empty:
        return False
    bare, _ = unwrap_annotated(annotation)
    return is_context_type(get_origin(bare) or bare)
