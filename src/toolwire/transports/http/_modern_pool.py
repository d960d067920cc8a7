"""Sessions for 2026-07-28 requests: born in that era, each serving one POST at a time, reused.

`lease_session` lends a request a session of that era and takes it back when the request ends
cleanly, so that nothing of one request reaches the next. A session is closed instead of reused
when its request did not end cleanly (the client left or the request was cancelled), when it
served `subscriptions/listen`, when it was opened for an authenticated caller, or beyond
`KEEP_IDLE` idle ones; on an event loop other than asyncio's every request gets its own.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from ._held_session import hold_session

if TYPE_CHECKING:
    from ...protocol.jsonrpc import FrameKind, RequestId
    from ...protocol.serving import SessionOpener
    from ...protocol.session import ServerSession

__all__ = ["KEEP_IDLE", "Lease", "close_idle", "lease_session", "open_options"]

KEEP_IDLE = 64
"""Idle sessions kept per server; more concurrent requests open (then close) extra ones."""

Route = Callable[[bytes, "FrameKind", "RequestId | None"], Awaitable[None]]


class Lease:
    """A session held open by a task of its own, and where its frames go right now."""

    __slots__ = ("_pool", "_stop", "reusable", "session", "target", "task")

    def __init__(self, pool: _Pool | None) -> None:
        self._pool = pool
        self._stop = asyncio.Event()
        self.session: ServerSession | None = None
        self.target: Route | None = None  # the current request's frame sink
        self.task: asyncio.Task[None] | None = None
        self.reusable = False  # set by the request once it ended cleanly

    async def route(self, frame: bytes, kind: FrameKind, request_id: RequestId | None) -> None:
        """The session's routed `send`: frames go to the request being served, if any."""
        target = self.target
        if target is not None:
            await target(frame, kind, request_id)

    async def host(
        self, opener: SessionOpener, ready: asyncio.Future[None], options: dict[str, Any]
    ) -> None:
        """Hold the session open until `release` decides it is done with."""
        # No handshake on this path, whatever the method: the session is modern from birth.
        await hold_session(
            self, opener, ready, options, self._stop, kind="2026-07-28", era="modern"
        )

    def release(self) -> None:
        """The request is over: back to the pool when clean, else closed."""
        self.target = None
        pool = self._pool
        session = self.session
        if (
            pool is not None
            and self.reusable
            and session is not None
            and not session.busy
            and len(pool.idle) < KEEP_IDLE
        ):
            self.reusable = False
            pool.idle.append(self)
            return
        if session is not None:
            session.close()  # a call still running has nobody left to answer
        self._stop.set()


class _Pool:
    """The idle sessions of one server (one opener)."""

    __slots__ = ("__weakref__", "idle")

    def __init__(self) -> None:
        self.idle: list[Lease] = []


_POOLS: WeakKeyDictionary[Any, _Pool] = WeakKeyDictionary()


def _pool(opener: SessionOpener) -> _Pool:
    pool = _POOLS.get(opener)
    if pool is None:
        pool = _POOLS[opener] = _Pool()
    return pool


def open_options(identity: Any) -> dict[str, Any]:
    """The keyword arguments (besides `routed`) to open a 2026-07-28 session of `identity`."""
    # 2026-07-28 has no server-to-client requests: no back channel.
    return {"back_channel": False, "identity": identity}


async def lease_session(opener: SessionOpener, identity: Any) -> Lease:
    """A 2026-07-28 session ready for one request of `identity` (None: unauthenticated).

    Call `Lease.release` when the request is over (set `reusable` first if it ended cleanly).
    """
    pool = _pool(opener)
    if identity is None and pool.idle:
        return pool.idle.pop()
    options = open_options(identity)
    lease = Lease(pool if identity is None else None)
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()
    # A context of its own: the session outlives this request, whose context variables
    # (set by middleware, say) must not reach the requests it serves later.
    lease.task = loop.create_task(lease.host(opener, ready, options), context=contextvars.Context())
    try:
        await ready
    except BaseException:
        lease.release()
        raise
    return lease


def close_idle() -> None:
    """Close every idle session (the server is stopping); busy ones close when released."""
    for pool in list(_POOLS.values()):
        idle, pool.idle = pool.idle, []
        for lease in idle:
            lease.release()  # not reusable any more: closed
