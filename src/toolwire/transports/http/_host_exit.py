"""Noticing that the ASGI server hosting an app has begun to stop, when nothing tells the app.

uvicorn stops in this order on SIGTERM/SIGINT: it stops accepting, waits (without a limit
unless `timeout_graceful_shutdown` is set) for every open response to end, then sends
`lifespan.shutdown`, then returns from `serve()` and raises the signal again with the
process's former handler, usually the default: the process dies on the spot. Two toolwire
situations go wrong there:

- An open SSE stream (a session's GET, a listen stream) never ends on its own, so uvicorn
  waits for ever and the lifespan's exit never comes, even when the lifespan is forwarded.
- An app mounted where no lifespan reaches it starts serving on its first request, in a task
  uvicorn knows nothing of; the re-raised SIGTERM kills the process before any cleanup of
  leftover tasks, so the server's lifespan exit never runs.

uvicorn sets `should_exit` on its `Server` at the first exit signal; the server is the owner
of the exit-signal handler it installed (`signal.getsignal`), which is read here and never
replaced: the host's signal handling is left as it is. `HostExit.watch` watches that flag at
the pace uvicorn checks it itself, and an app given a `HostExit` ends its streams and leaves
its lazily entered serving. A lazily held serving is also added to the tasks uvicorn waits
for before it returns, so the server's lifespan exit completes (within uvicorn's graceful
timeout, if one is set) before the process ends.

A host whose shutdown cannot be seen this way (another ASGI server, uvicorn on a thread other
than the main one) gets nothing from here; the lazy start then warns (see `_lazy_start.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

__all__ = ["POLL_SECONDS", "HostExit", "OneEnding", "streams_end_at_host_exit"]

logger = logging.getLogger("toolwire.http")

POLL_SECONDS = 0.05
"""How often the host's flag is read: well within uvicorn's own 0.1 s checks, so that what
toolwire adds to uvicorn's waited-for tasks is there before uvicorn first looks at them."""

_WATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, HostExit] = (
    weakref.WeakKeyDictionary()
)


class HostExit:
    """The shutdown of the uvicorn-like server this event loop serves for.

    Made by `watch`, one per event loop, shared by every app on it.
    """

    def __init__(self, host: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._host = host
        self.begun = asyncio.Event()
        """Set once the host has started to stop."""
        self._poller = loop.create_task(self._poll(), name="toolwire: watch the host's exit")

    @classmethod
    def watch(cls) -> HostExit | None:
        """The shutdown watch of the running loop's host; None when it cannot be seen.

        Only on the main thread: signal handlers belong to it, so a handler found from
        another thread's loop would be some other server's.
        """
        loop = asyncio.get_running_loop()
        known = _WATCHES.get(loop)
        if known is not None:
            return known
        if threading.current_thread() is not threading.main_thread():
            return None
        host = _signal_owner()
        if host is None:
            return None
        made = _WATCHES[loop] = cls(host, loop)
        return made

    def wait_for(self, task: asyncio.Task[Any]) -> None:
        """Have the host wait for `task` before it returns from serving, as it waits for a
        response in progress (and cancels it, like one, past its graceful timeout)."""
        waited = getattr(getattr(self._host, "server_state", None), "tasks", None)
        if isinstance(waited, set) and not task.done():
            waited.add(task)
            task.add_done_callback(waited.discard)

    async def _poll(self) -> None:
        # Ends with the host's shutdown, or is cancelled with the loop's leftover tasks.
        while not self._host.should_exit:
            await asyncio.sleep(POLL_SECONDS)
        self.begun.set()


def _signal_owner() -> Any:
    """The object whose bound method handles SIGTERM (or SIGINT) and which has uvicorn's
    `should_exit` flag; None when there is none, or it ends the apps' streams itself."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):
            handler = signal.getsignal(signum)
            owner = getattr(handler, "__self__", None)
            if owner is not None and isinstance(getattr(owner, "should_exit", None), bool):
                # toolwire's own runner ends the streams itself, and serves no lazy app.
                return None if getattr(owner, "ends_app_streams", False) else owner
    return None


@contextlib.asynccontextmanager
async def streams_end_at_host_exit(
    end_streams: Callable[[], Awaitable[None]],
) -> AsyncIterator[HostExit | None]:
    """For the duration, call `end_streams` as soon as the host starts to stop; yields the
    host's watch (None: the host's shutdown cannot be seen, and nothing is done).

    Leaving after the host began to stop waits for the streams to have ended, so that what
    the caller closes next (sessions, the server's lifespan) is not closed twice at once.
    """
    host = HostExit.watch()
    if host is None:
        yield None
        return
    ending = asyncio.get_running_loop().create_task(_end_when_begun(host, end_streams))
    try:
        yield host
    finally:
        if not host.begun.is_set():
            ending.cancel()
        await asyncio.wait([ending])


async def _end_when_begun(host: HostExit, end_streams: Callable[[], Awaitable[None]]) -> None:
    await host.begun.wait()
    try:
        await end_streams()
    except Exception:  # the shutdown goes on regardless; say what was left open
        logger.exception("ending the open streams at shutdown failed")


class OneEnding:
    """Runs `end` one at a time: the host's exit can be seen two ways (its signal through
    `HostExit`, then the lifespan's end), and whoever asks while an ending runs waits for
    that one rather than close the same streams again at once.

    Args:
        end: Ends the streams.
    """

    def __init__(self, end: Callable[[], Awaitable[None]]) -> None:
        self._end = end
        self._running: asyncio.Task[None] | None = None

    async def __call__(self) -> None:
        running = self._running
        if running is None or running.done():
            running = self._running = asyncio.get_running_loop().create_task(self._run())
        await asyncio.shield(running)

    async def _run(self) -> None:
        await self._end()
