"""Telling a tool's own `BaseException` from a cancellation of its call.

A tool body may raise what is not an `Exception`: `sys.exit()` (often from an argparse CLI
wrapped as a tool), `KeyboardInterrupt`, `GeneratorExit`, a `CancelledError` it made itself.
None of these is a reason to end a server or leave a call unanswered, so `as_tool_failure`
turns them into `ToolAbortedError`, which is handled like any failure. A real cancellation
(a timeout, the client's `notifications/cancelled`, shutdown) must go on stopping the call.

On asyncio, a cancellation that somebody requested leaves the task's `cancelling()` count
above zero; a `CancelledError` raised by the tool itself does not. On other anyio backends
their own cancellation class is never the tool's.
"""

from __future__ import annotations

import asyncio

from ..errors import ToolAbortedError

__all__ = ["as_tool_failure"]


def as_tool_failure(escaped: BaseException) -> ToolAbortedError | None:
    """The failure to report for a non-`Exception` a tool body raised, or None when it is a
    cancellation of the call that must propagate.

    Args:
        escaped: What came out of the tool body.
    """
    if isinstance(escaped, asyncio.CancelledError):
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no asyncio loop: another backend's task
            task = None
        if task is not None and task.cancelling() > 0:
            return None
    elif type(escaped).__module__.partition(".")[0] == "trio":  # trio.Cancelled and friends
        return None
    return ToolAbortedError(escaped)
