"""Sessions for stateless mode: born initialized, each serving one POST at a time, reused.

`StatelessSessions` lends each POST a `ServerSession` (no session id, no `initialize`) and takes
it back when the POST ends, reset to what it was born as (protocol version, log level), for the
next one. A session still running a call when its POST ends (the client left) is closed, which
cancels the call, and never reused; a request with an authenticated identity gets a session of
its own. Closing the POST is the only way to cancel its call: a `notifications/cancelled` POSTed
on its own changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ._held_session import hold_session

if TYPE_CHECKING:
    from ...protocol.jsonrpc import FrameKind, RequestId
    from ...protocol.serving import SessionOpener
    from ...protocol.session import ServerSession
    from .channel import Stream

__all__ = ["Lease", "StatelessSessions"]

logger = logging.getLogger("toolwire.http")

KEEP_IDLE = 64
"""Idle sessions kept for reuse; more concurrency than that opens (then closes) extra ones."""
CLOSE_GRACE_SECONDS = 5.0


class Lease:
    """One born-ready session and the stream of the POST it currently serves."""

    __slots__ = ("_stop", "session", "stream", "task")

    def __init__(self) -> None:
        self.session: ServerSession | None = None
        self.stream: Stream | None = None
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def route(self, frame: bytes, kind: FrameKind, request_id: RequestId | None) -> None:
        """The session's routed `send`: only what belongs to the current request has a place
        to go (a stateless session has no GET stream)."""
        stream = self.stream
        if stream is not None and request_id is not None:
            await stream.write(frame, kind, request_id)

    def stop(self) -> None:
        """Let the session close (its host task leaves the session's context)."""
        self._stop.set()

    async def host(
        self, opener: SessionOpener, ready: asyncio.Future[None], options: dict[str, Any]
    ) -> None:
        """Hold the session open until `stop()` (the lease's own task)."""
        await hold_session(self, opener, ready, options, self._stop, kind="stateless")


class StatelessSessions:
    """Hands out born-ready sessions and takes them back.

    Args:
        opener: Opens each session (without a back channel: there is no session to carry
            a question to the client).
    """

    def __init__(self, opener: SessionOpener) -> None:
        self.opener = opener
        self._idle: list[Lease] = []
        self._live: set[Lease] = set()

    async def take(self, identity: Any, version: str) -> Lease:
        """A session ready to serve a request of `version`, for `identity`."""
        if identity is None and self._idle:
            lease = self._idle.pop()
        else:
            lease = await self._open(identity)
        session = lease.session
        assert session is not None
        session.era = "legacy"
        session.protocol_version = version
        session.initialized = True
        session.log_level = "debug"
        return lease

    async def _open(self, identity: Any) -> Lease:
        options = {"back_channel": False, "identity": identity}
        lease = Lease()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        lease.task = asyncio.get_running_loop().create_task(lease.host(self.opener, ready, options))
        self._live.add(lease)
        lease.task.add_done_callback(lambda _: self._live.discard(lease))
        await ready
        return lease

    def give_back(self, lease: Lease, identity: Any) -> None:
        """The request is over: keep the session for the next one, or close it."""
        lease.stream = None
        session = lease.session
        if session is None or session.busy or identity is not None or len(self._idle) >= KEEP_IDLE:
            if session is not None:
                session.close()  # a call still running has nobody left to answer
            lease.stop()
            return
        self._idle.append(lease)

    async def close(self) -> None:
        """Close every session (the app is shutting down)."""
        self._idle.clear()
        tasks = [lease.task for lease in self._live if lease.task is not None]
        for lease in list(self._live):
            if lease.session is not None:
                lease.session.close()
            lease.stop()
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_GRACE_SECONDS)
