"""The one WARNING on `toolwire.tools` that a failed tool call leaves for the server's author.

A raised exception gets its traceback; refused arguments, a timeout or a refused sync call one
line. The call's arguments are added only when tool data may be logged (`dont_log_tool_data`).
"""

from __future__ import annotations

import logging

from ..errors import ModelBehaviorError
from .failure import dont_log_tool_data
from .threads import SyncToolRefused

__all__ = ["log_failed_call", "log_timeout", "refused_arguments"]

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
            "Tool %r refused its arguments: %s%s", tool_name, reason, _arguments_note(arguments)
        )
        return
    if isinstance(error, SyncToolRefused):  # the server's state, not a bug: no traceback
        logger.warning("Tool %r refused a call: %s", tool_name, error)
        return
    text = str(error)
    summary = f"{type(error).__name__}: {text}" if text else type(error).__name__
    trace = error if error.__traceback__ is not None else None
    logger.warning(
        "Tool %r failed: %s%s", tool_name, summary, _arguments_note(arguments), exc_info=trace
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
    if arguments is None or dont_log_tool_data():
        return ""
    if len(arguments) > _ARGUMENTS_SHOWN:
        cut = arguments[:_ARGUMENTS_SHOWN]
        return f"; arguments ({len(arguments)} characters): {cut}..."
    return f"; arguments: {arguments}"
