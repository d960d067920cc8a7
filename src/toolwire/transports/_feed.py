"""Frames handled in the callback that read them, on asyncio.

A pump task waiting for each chunk costs a pass of the event loop per request (the read wakes
the task, the task runs in the next pass). Here the reader's readiness callback splits the
chunk and starts each frame's handling at once (`protocol/_eager.py`). Handling that completes
without suspending, which is nearly all of it (a reply written at once, a call started or
finished), needs no task at all. Handling that suspends (its reply waits for the pipe, or for
another frame's reply) goes on in a task of its own, and the frames read after it wait for it,
so frames are still handled in the order they came. While a frame waits with more than
`MAX_WAITING` frames queued behind it, reading pauses and the client's writes block.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import deque
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from ..protocol._eager import start_eagerly
from ._framing import Oversized

if TYPE_CHECKING:
    from ..protocol.session import ServerSession
    from ._fdguard import FdReader
    from ._framing import LineSplitter

__all__ = ["FrameFeed", "handle"]

logger = logging.getLogger("toolwire.stdio")

MAX_WAITING = 64


def handle(session: ServerSession, item: bytes | Oversized) -> Coroutine[Any, Any, None]:
    """The session's handling of one splitter item: a frame, or an oversized line."""
    if isinstance(item, Oversized):
        return session.reject_oversized(item.size, item.head)
    return session.receive(item)


class FrameFeed:
    """Feeds a session the frames of one reader, from the reader's callback.

    Args:
        loop: The running asyncio loop.
        reader: The descriptor's reader; it must accept `push()`.
        splitter: Splits chunks into frames.
        session: Handles each frame.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        reader: FdReader,
        splitter: LineSplitter,
        session: ServerSession,
    ) -> None:
        self._loop = loop
        self._reader = reader
        self._splitter = splitter
        self._session = session
        self._waiting: deque[bytes | Oversized] = deque()
        self._task: asyncio.Task[None] | None = None  # a frame's handling that suspended
        self._ended = False
        self._closed = False
        self._done: asyncio.Future[None] = loop.create_future()
        # Waiting for the session's backlog to clear (protocol/backlog.py): reading is
        # paused, and frames already read wait their turn.
        self._stalled = False
        self._context = contextvars.copy_context()

    @classmethod
    def start(
        cls, reader: FdReader, splitter: LineSplitter, session: ServerSession
    ) -> FrameFeed | None:
        """A feed reading from now on, or None where the reader cannot push (not asyncio)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        feed = cls(loop, reader, splitter, session)
        return feed if reader.push(feed._chunk) else None

    async def wait(self) -> None:
        """Return once the stream has ended and every frame before the end was handled."""
        await asyncio.shield(self._done)

    def close(self) -> None:
        """Stop: frames not yet handled are dropped, a suspended one is cancelled."""
        self._closed = True
        self._waiting.clear()
        self._reader.pause()
        if self._task is not None:
            self._task.cancel()

    def _chunk(self, chunk: bytes) -> None:
        if self._closed:
            return
        if chunk:
            self._waiting.extend(self._splitter.feed(chunk))
        else:
            if self._reader.error is not None:
                logger.info("reading stdin failed (%s); shutting down", self._reader.error)
            self._waiting.extend(self._splitter.finish())
            self._ended = True
        if self._task is None and not self._stalled:
            self._run()
        elif len(self._waiting) > MAX_WAITING:
            self._reader.pause()

    def _run(self) -> None:
        waiting = self._waiting
        session = self._session
        backlog = session.backlog
        while waiting and not self._closed:
            if backlog.full:
                self._reader.pause()
                self._stalled = True
                backlog.when_clear(self._unstall)
                return
            try:
                task = start_eagerly(self._loop, handle(session, waiting.popleft()))
            except Exception:  # receive() answers everything a client sends: this is a bug
                logger.exception("handling a frame failed")
                continue
            if task is not None:
                self._task = task
                task.add_done_callback(self._resumed)
                return
        if self._closed:
            return
        self._reader.resume()
        if self._ended and not self._done.done():
            self._done.set_result(None)

    def _unstall(self) -> None:
        # Called from whichever task cleared the backlog: go on in the feed's own context,
        # so nothing of that task's context variables reaches the next frames.
        self._loop.call_soon(self._go_on, context=self._context)

    def _go_on(self) -> None:
        self._stalled = False
        if self._task is None:
            self._run()

    def _resumed(self, task: asyncio.Task[None]) -> None:
        self._task = None
        if not task.cancelled() and task.exception() is not None:
            logger.error("handling a frame failed", exc_info=task.exception())
        self._run()
