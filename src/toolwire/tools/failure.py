"""What the model sees when a tool call fails, and whether tool data may be logged."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

from ..context import RunContextWrapper

__all__ = [
    "UNSET_FAILURE_ERROR_FUNCTION",
    "ToolErrorFunction",
    "default_tool_error_function",
    "default_tool_timeout_error_message",
    "dont_log_tool_data",
]

ToolErrorFunction = Callable[[RunContextWrapper[Any], Exception], "str | Awaitable[str]"]

# "failure_error_function not passed" (the default), as against None (re-raise).
UNSET_FAILURE_ERROR_FUNCTION: Any = object()


def default_tool_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """Return a fixed error text that does not expose the exception to the model.

    The failure is logged for the author (docs/server.md, "When a tool fails").

    Args:
        ctx: The context of the failed call.
        error: What went wrong.

    Returns:
        "An error occurred while running the tool. Please try again."
    """
    return "An error occurred while running the tool. Please try again."


def default_tool_timeout_error_message(*, tool_name: str, timeout_seconds: float) -> str:
    """The text the model receives when a call times out (the SDK's wording)."""
    return f"Tool '{tool_name}' timed out after {timeout_seconds:g} seconds."


def _flag(name: str) -> bool | None:
    value = os.getenv(name)
    if value is None:
        return None
    return value == "1" or value.lower() == "true"


def dont_log_tool_data() -> bool:
    """Whether logs and error texts must leave out the values sent (default: yes).

    `TOOLWIRE_LOG_TOOL_DATA=1`, or the SDK's `OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0`, opts in (the
    former decides when both are set); read at each failure.
    """
    toolwire = _flag("TOOLWIRE_LOG_TOOL_DATA")
    if toolwire is not None:
        return not toolwire
    sdk = _flag("OPENAI_AGENTS_DONT_LOG_TOOL_DATA")
    return True if sdk is None else sdk
