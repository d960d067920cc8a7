"""A failed tool call: the text the model gets, and the one WARNING the author gets.

The author's line, on `toolwire.tools`, has the traceback of a raised exception, or one line for
refused arguments, a timeout or a refused sync call; the call's arguments only when tool data
may be logged (`dont_log_tool_data`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from ..context import RunContextWrapper
from ..errors import ModelBehaviorError
from .log_text import escape_for_log, log_with_trace
from .threads import SyncToolRefused

__all__ = [
    "UNSET_FAILURE_ERROR_FUNCTION",
    "ToolErrorFunction",
    "default_tool_error_function",
    "default_tool_timeout_error_message",
    "dont_log_tool_data",
    "log_failed_call",
    "log_timeout",
    "refused_arguments",
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


logger = logging.getLogger("toolwire.tools")

_ARGUMENTS_SHOWN = 2000

_REFUSAL_REASON = "_toolwire_refusal_reason"


def refused_arguments(message: str, reason: str) -> ModelBehaviorError:
    """The `ModelBehaviorError` refusing arguments, with `reason` (quoting no value) for the log."""
    error = ModelBehaviorError(message)
    setattr(error, _REFUSAL_REASON, reason)
    return error


def log_failed_call(tool_name: str, error: BaseException, arguments: str | None) -> None:
    """Log a failed call: one line for refused arguments, else the exception's traceback."""
    reason = getattr(error, _REFUSAL_REASON, None)
    if reason is not None:
        logger.warning(
            "Tool %r refused its arguments: %s%s",
            tool_name,
            escape_for_log(reason),  # it names the client's keys
            _arguments_note(arguments),
        )
        return
    if isinstance(error, SyncToolRefused):  # the server's state, not a bug: no traceback
        logger.warning("Tool %r refused a call: %s", tool_name, error)
        return
    try:
        text = escape_for_log(str(error))  # it may quote the client's input
    except Exception:  # an author's broken `__str__` must not fail the call a second time
        text = "<the exception's text could not be read>"
    summary = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if error.__traceback__ is None:
        logger.warning("Tool %r failed: %s%s", tool_name, summary, _arguments_note(arguments))
        return
    log_with_trace(
        logger,
        logging.WARNING,
        "Tool %r failed: %s%s",
        tool_name,
        summary,
        _arguments_note(arguments),
        error=error,
    )


def log_timeout(
    tool_name: str, seconds: float, arguments: str | None, waited_for: int | None = None
) -> None:
    """Log a timed-out call; `waited_for`: the busy worker threads it never got one of."""
    why = "" if waited_for is None else f" waiting for one of {waited_for} busy worker threads"
    logger.warning(
        "Tool %r timed out after %g seconds%s%s",
        tool_name,
        seconds,
        why,
        _arguments_note(arguments),
    )


def _arguments_note(arguments: str | None) -> str:
    """The arguments for a log line, cut to a readable length, control characters escaped."""
    if arguments is None or dont_log_tool_data():
        return ""
    if len(arguments) > _ARGUMENTS_SHOWN:
        cut = escape_for_log(arguments[:_ARGUMENTS_SHOWN])
        return f"; arguments ({len(arguments)} characters): {cut}..."
    return f"; arguments: {escape_for_log(arguments)}"
