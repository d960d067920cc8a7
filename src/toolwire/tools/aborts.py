"""Telling a tool's own `BaseException` from a cancellation of its call.

A tool body may raise what is not an `Exception`: `sys.exit()`, `KeyboardInterrupt`,
`GeneratorExit`, a `CancelledError` of its own making. `as_tool_failure` turns these into
`ToolAbortedError`, a failure like any other, so that none of them ends the server or leaves the
call unanswered, while a real cancellation (a timeout, the client's `notifications/cancelled`,
shutdown) still stops the call.
"""

from __future__ import annotations

import asyncio

from ..errors import ToolAbortedError

__all__ = ["as_tool_failure"]


def as_tool_failure(escaped: BaseException, *, in_thread: bool) -> ToolAbortedError | None:
    """The failure to report for a non-`Exception` out of a tool body (`in_thread`: a sync
    tool's), or None for a cancellation of the call, which must propagate."""
    if isinstance(escaped, asyncio.CancelledError):
        if in_thread:
            return None
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no asyncio loop: another backend's task
            task = None
        if task is not None and task.cancelling() > 0:
            return None
    elif type(escaped).__module__.partition(".")[0] == "trio":  # trio.Cancelled and friends
        return None
    return ToolAbortedError(escaped)
