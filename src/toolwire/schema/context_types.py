"""Recognising the annotation that marks a tool's run-context parameter.

A tool may ask for its context with toolwire's `RunContextWrapper`/`ToolContext` or with the
Agents SDK's classes of the same names (a tool written for the SDK keeps working). Only those
exact classes count, parametrised or not: a subclass is an ordinary parameter, as in the SDK.
"""

from __future__ import annotations

from typing import Any

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
