"""Start a coroutine in the current task; give it a task of its own only if it suspends.

This is what Python 3.12's eager tasks do, for Python 3.11. A call to a quick sync tool (see
tools/threads.py) usually runs to its reply without ever suspending, so the session runs it
right where the request was read, sparing a task and a pass of the event loop per call.

Only coroutines that tolerate running their first step inside the caller's task may start
this way: nothing they do before their first suspension may depend on
`asyncio.current_task()` (anyio's cancel scopes do). The session keeps to calls of sync
tools without a server-side timeout and without an async failure function.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import Coroutine, Generator
from typing import Any

__all__ = ["start_eagerly"]

logger = logging.getLogger("toolwire.protocol")


def start_eagerly(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None]
) -> asyncio.Task[None] | None:
    """Run `coro` up to its first suspension now; None if it finished, else its new task.

    The first step runs in a copy of the current context and the task goes on in that same
    copy, so context variables set before the suspension are still set after it, exactly as
    if the coroutine had been a task from the start. An exception from the first step
    propagates to the caller.
    """
    context = contextvars.copy_context()
    try:
        yielded = context.run(coro.send, None)
    except StopIteration:
        return None
    resumed = _Resumed(coro, yielded)
    task = loop.create_task(_finish(resumed), context=context)
    task.add_done_callback(functools.partial(_cancelled_before_start, resumed, context))
    return task


async def _finish(resumed: _Resumed) -> None:
    await resumed


def _cancelled_before_start(
    resumed: _Resumed, context: contextvars.Context, task: asyncio.Task[None]
) -> None:
    """A task cancelled before its first step never ran `_finish`: the cancellation is
    thrown into the coroutine here, in its own context, so its cleanup (finally blocks,
    context variable resets) runs as it would have in the task."""
    if resumed.started:
        return
    resumed.started = True
    if isinstance(resumed.yielded, asyncio.Future):
        resumed.yielded.cancel()
    try:
        context.run(resumed.coro.throw, asyncio.CancelledError())
    except (asyncio.CancelledError, StopIteration):
        return
    except BaseException:
        logger.exception("a call cancelled before it resumed failed while stopping")
        return
    context.run(resumed.coro.close)  # it caught the cancellation and awaited again


class _Resumed:
    """Awaiting it hands `yielded` (what the coroutine suspended on) to the task, then drives
    the coroutine on: sends and throws (cancellation) go through to it, as `await` would."""

    __slots__ = ("coro", "started", "yielded")

    def __init__(self, coro: Coroutine[Any, Any, None], yielded: Any) -> None:
        self.coro = coro
        self.yielded = yielded
        self.started = False

    def __await__(self) -> Generator[Any, Any, None]:
        self.started = True
        coro, yielded = self.coro, self.yielded
        self.yielded = None
        while True:
            try:
                sent = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as error:  # cancellation goes on to the coroutine
                try:
                    yielded = coro.throw(error)
                except StopIteration:
                    return
            else:
                try:
                    yielded = coro.send(sent)
                except StopIteration:
                    return
