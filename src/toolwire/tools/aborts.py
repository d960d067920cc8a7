"""Telling a tool's own `BaseException` from a cancellation of its call.

A tool body may raise what is not an `Exception`: `sys.exit()` (often from an argparse CLI
wrapped as a tool), `KeyboardInterrupt`, `GeneratorExit`, a `CancelledError` it made itself.
None of these is a reason to end a server or leave a call unanswered, so `as_tool_failure`
turns them into `ToolAbortedError`, which is handled like any failure. A real cancellation
(a timeout, the client's `notifications/cancelled`, shutdown) must go on stopping the call.

A sync tool's body runs in a worker thread, where nothing can be a cancellation of the call:
the worker turns its non-`Exception`s into `ToolAbortedError` right there (tools/threads.py),
and
a `CancelledError` that reaches the awaiting coroutine is always the call's own. An async
tool's body runs in the call's task: on asyncio, a cancellation somebody requested leaves the
task's `cancelling()` count above zero, and a `CancelledError` the tool raised itself does
not. Another anyio backend's own cancellation class is never the tool's.

The Agents SDK's runner sees an async tool's `SystemExit` as the SDK would (it propagates);
a sync tool's arrives as `ToolAbortedError` there too, since a thread cannot end a run.
"""

from __future__ import annotations

import asyncio

from ..errors import ToolAbortedError

__all__ = ["as_tool_failure"]


def as_tool_failure(escaped: BaseException, *, in_thread: bool) -> ToolAbortedError | None:
    """The failure to report for a non-`Exception` a tool body raised, or None when it is a
    cancellation of the call that must propagate.

    Args:
        escaped: What came out of awaiting the tool body.
        in_thread: Whether the body ran in a worker thread (a sync tool).
    """
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
