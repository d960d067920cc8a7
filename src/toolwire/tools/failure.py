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

    Pass your own `failure_error_function` to send application-approved details. Either way
    the failure is logged for the server's author at WARNING on the `toolwire` logger, with
    the exception and its traceback (see `dont_log_tool_data` for the call's arguments).

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
    """Whether error texts and logs must leave out what was sent and returned (default: yes).

    A failed call's WARNING on the `toolwire` logger then names the tool, the exception and
    what was wrong with the arguments, but not the arguments; error messages leave out
    pydantic's details, which quote the values. Arguments may hold secrets, so showing them is
    an opt-in: `TOOLWIRE_LOG_TOOL_DATA=1`, or `OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0` as in the
    Agents SDK (`TOOLWIRE_LOG_TOOL_DATA`, when set, decides). Read at each failure.
    """
    toolwire = _flag("TOOLWIRE_LOG_TOOL_DATA")
    if toolwire is not None:
        return not toolwire
    sdk = _flag("OPENAI_AGENTS_DONT_LOG_TOOL_DATA")
    return True if sdk is None else sdk
