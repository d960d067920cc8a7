"""Hosting a `ServerSession` in a task of its own (`HostedSession`, in a fresh context), and
lending born-ready ones to requests without a session (`SessionPool`: stateless mode, a
handshake-era POST without a session id, every 2026-07-28 request); see docs/decisions.md,
`_hosting.py`."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ....protocol.session.serving import SessionOpener
    from ....protocol.session.session import ServerSession
    from ....protocol.wire.eras import Era
    from ....protocol.wire.jsonrpc import FrameKind, RequestId

__all__ = ["CLOSE_GRACE_SECONDS", "KEEP_IDLE", "HostedSession", "Lease", "SessionPool"]

logger = logging.getLogger("toolwire.http")

KEEP_IDLE = 64
"""Idle sessions a pool keeps for reuse; more concurrent requests open (then close) extra ones."""
CLOSE_GRACE_SECONDS = 5.0
"""How long closing a pool waits for its sessions to stop before leaving them to finish."""

Route = Callable[["bytes", "FrameKind", "RequestId | None"], Awaitable[Any]]


class HostedSession:
    """A `ServerSession` held open by a task of its own until `stop()`; `ended` is called once
    it closed (never when it did not open)."""

    __slots__ = ("_ended", "_name", "_route", "_stop", "session", "task")

    def __init__(self, route: Route, *, name: str, ended: Callable[[], None] | None = None) -> None:
        self._route = route
        self._name = name
        self._ended = ended
        self._stop = asyncio.Event()
        self.session: ServerSession | None = None
        self.task: asyncio.Task[None] | None = None

    async def open(self, opener: SessionOpener, options: dict[str, Any]) -> ServerSession:
        """Open the session in its own task; return it once ready, or raise why it failed."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[ServerSession] = loop.create_future()
        hold = self._hold(opener, options, ready)
        self.task = loop.create_task(hold, context=contextvars.Context())
        try:
            return await ready
        except BaseException:
            self.stop()  # the asker left (or it failed to open): nothing holds it open
            raise

    async def _hold(
        self,
        opener: SessionOpener,
        options: dict[str, Any],
        ready: asyncio.Future[ServerSession],
    ) -> None:
        opened = False
        try:
            async with opener(self._route, routed=True, **options) as session:
                opened = True
                self.session = session
                if not ready.done():  # else its asker was cancelled: close at once
                    ready.set_result(session)
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError())
            elif opened and isinstance(error, Exception):
                logger.exception("%s ended with an error", self._name)
            if not isinstance(error, Exception | asyncio.CancelledError):
                raise
        finally:
            if opened and self._ended is not None:
                self._ended()

    def stop(self) -> None:
        """Let the session close (its task leaves the session's context)."""
        self._stop.set()


class Lease:
    """A pooled session and the request it serves: frames for a request go to `target`,
    `on_end` is called if the session ends under it."""

    __slots__ = ("closed", "hosted", "identity", "listening", "on_end", "reusable", "target")

    def __init__(self, identity: Any) -> None:
        self.identity = identity
        self.hosted = HostedSession(self.route, name="a pooled session", ended=self._ended)
        self.target: Route | None = None
        self.on_end: Callable[[], object] | None = None
        self.reusable = False
        self.listening = False
        self.closed = False

    @property
    def session(self) -> ServerSession:
        """The session lent (open once the pool hands the lease out)."""
        session = self.hosted.session
        assert session is not None
        return session

    async def route(self, frame: bytes, kind: FrameKind, request_id: RequestId | None) -> None:
        """The session's routed `send`."""
        target = self.target
        if target is not None and request_id is not None:
            await target(frame, kind, request_id)

    def _ended(self) -> None:
        on_end, self.on_end = self.on_end, None
        if on_end is not None:
            on_end()


class SessionPool:
    """The born-ready sessions of one app (no back channel), lent one request at a time."""

    def __init__(self, opener: SessionOpener) -> None:
        self.opener = opener
        self._idle: list[Lease] = []
        self._live: set[Lease] = set()

    @property
    def idle(self) -> int:
        """How many sessions wait to be lent."""
        return len(self._idle)

    async def take(self, identity: Any, *, era: Era, version: str | None = None) -> Lease:
        """A session ready to serve one request of `era` (and `version`) for `identity`, to
        `give_back` once it is over."""
        lease = self._idle.pop() if identity is None and self._idle else None
        if lease is None:
            lease = Lease(identity)
            self._live.add(lease)
            try:
                await lease.hosted.open(self.opener, {"back_channel": False, "identity": identity})
            except BaseException:
                self._live.discard(lease)
                raise
            task = lease.hosted.task
            assert task is not None
            task.add_done_callback(lambda _: self._discard(lease))
        session = lease.session
        session.era = era
        if era == "handshake":  # born initialized: no handshake on a session-less request
            session.protocol_version = version
        return lease

    def _discard(self, lease: Lease) -> None:
        """`lease`'s session has ended: it is lent no more."""
        self._live.discard(lease)
        if lease in self._idle:
            self._idle.remove(lease)

    def give_back(self, lease: Lease) -> None:
        """The request is over: keep its session if nothing of it lingers, else close it."""
        lease.target = None
        lease.on_end = None
        if (
            lease.reusable
            and not lease.listening
            and lease.identity is None
            and not lease.session.busy
            and len(self._idle) < KEEP_IDLE
            and not lease.closed
            and lease in self._live
        ):
            lease.reusable = False
            session = lease.session  # put back as it was born
            session.era = None
            session.protocol_version = None
            session.log_level = "debug"
            session.client_info = None
            session.client_capabilities = None
            session.resource_subscriptions = set()
            self._idle.append(lease)
            return
        _close(lease)

    def listening(self) -> list[ServerSession]:
        """The sessions serving a `subscriptions/listen` stream right now."""
        return [lease.session for lease in self._live if lease.listening]

    async def end_listen_streams(self) -> None:
        """Give every open listen stream its final result (its response then ends)."""
        for session in self.listening():
            await session.end_streams()

    async def close(self) -> None:
        """Close every session, lent or idle, and wait (briefly) for them to stop."""
        self._idle.clear()
        tasks = [lease.hosted.task for lease in self._live if lease.hosted.task is not None]
        for lease in list(self._live):
            _close(lease)
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_GRACE_SECONDS)


def _close(lease: Lease) -> None:
    lease.closed = True
    session = lease.hosted.session
    if session is not None:
        session.close()  # a call still running has nobody left to answer
    lease.hosted.stop()
