"""Which annotations mark a tool function's context parameter."""

from __future__ import annotations

from typing import Any

from ..context import RunContextWrapper, ToolContext

_SDK_CONTEXT_NAMES = frozenset({"RunContextWrapper", "ToolContext"})


def is_context_type(annotation: Any) -> bool:
    """True for toolwire's contexts and the Agents SDK's (recognised without importing agents)."""
    if annotation is RunContextWrapper or annotation is ToolContext:
        return True
    # Identity for ours, name for the SDK's: importing agents here would cost start-up time.
    return (
        isinstance(annotation, type)
        and getattr(annotation, "__qualname__", None) in _SDK_CONTEXT_NAMES
        and str(getattr(annotation, "__module__", "")).startswith("agents.")
    )
