"""What a failed tool call leaves on the `toolwire` logger for the server's author.

The model is told only what the failure function returns; the author gets one WARNING on
`toolwire.tools` per failed call: a tool that raised (name, exception, traceback), arguments
refused before the function ran (what was wrong, parameter by parameter, without the values),
a timeout, or a sync tool refused because its abandoned calls still run. The call's arguments
are added only when the author opts in (`TOOLWIRE_LOG_TOOL_DATA=1`, or the Agents SDK's
`OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0`), since they may hold secrets. Whoever turns a failure into
the model's text writes the line, so each failure is logged once.
"""

from __future__ import annotations

import logging

from ..errors import ModelBehaviorError
from .failure import dont_log_tool_data
from .threads import SyncToolRefused

__all__ = ["log_failed_call", "log_timeout", "refused_arguments"]

logger = logging.getLogger("toolwire.tools")

# Arguments can be megabytes long; a log line keeps the start and says how long they were.
_ARGUMENTS_SHOWN = 2000

# Set on the ModelBehaviorError that refuses a call's arguments: why, with no values in it.
_REFUSAL_REASON = "_toolwire_refusal_reason"


def refused_arguments(message: str, reason: str) -> ModelBehaviorError:
    """The `ModelBehaviorError` refusing a call's arguments, carrying `reason` for the log
    (what was wrong, quoting no argument)."""
    error = ModelBehaviorError(message)
    setattr(error, _REFUSAL_REASON, reason)
    return error


def log_failed_call(tool_name: str, error: BaseException, arguments: str | None) -> None:
    """Log a failed call: one line for refused arguments, else the exception's traceback."""
    reason = getattr(error, _REFUSAL_REASON, None)
    if reason is not None:
        logger.warning(
            "Tool %r refused its arguments: %s%s", tool_name, reason, _arguments_note(arguments)
        )
        return
    if isinstance(error, SyncToolRefused):  # the server's state, not a bug: no traceback
        logger.warning("Tool %r refused a call: %s", tool_name, error)
        return
    text = str(error)
    summary = f"{type(error).__name__}: {text}" if text else type(error).__name__
    # An exception that was never raised has no traceback to show.
    trace = error if error.__traceback__ is not None else None
    logger.warning(
        "Tool %r failed: %s%s", tool_name, summary, _arguments_note(arguments), exc_info=trace
    )


def log_timeout(
    tool_name: str, seconds: float, arguments: str | None, waited_for: int | None = None
) -> None:
    """Log a call stopped by its timeout (one line); `waited_for` is the number of worker
    threads when the call never got one."""
    why = "" if waited_for is None else f" waiting for one of {waited_for} busy worker threads"
    logger.warning(
        "Tool %r timed out after %g seconds%s%s",
        tool_name,
        seconds,
        why,
        _arguments_note(arguments),
    )


def _arguments_note(arguments: str | None) -> str:
    if arguments is None or dont_log_tool_data():
        return ""
    if len(arguments) > _ARGUMENTS_SHOWN:
        cut = arguments[:_ARGUMENTS_SHOWN]
        return f"; arguments ({len(arguments)} characters): {cut}..."
    return f"; arguments: {arguments}"
