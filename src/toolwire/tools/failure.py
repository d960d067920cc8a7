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

# Tells "failure_error_function not passed" (use the default) apart from an explicit None
# (re-raise), as the SDK does.
UNSET_FAILURE_ERROR_FUNCTION: Any = object()


def default_tool_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """Return a fixed error text that does not expose the exception to the model.

    Pass your own `failure_error_function` to send application-approved details.

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
    """Whether error texts must leave out raw arguments (the SDK's default: yes).

    `OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0` turns details on, as in the SDK;
    `TOOLWIRE_LOG_TOOL_DATA=1` does the same for people who do not use the SDK.
    """
    toolwire = _flag("TOOLWIRE_LOG_TOOL_DATA")
    if toolwire is not None:
        return not toolwire
    sdk = _flag("OPENAI_AGENTS_DONT_LOG_TOOL_DATA")
    return True if sdk is None else sdk
