"""Live streamable-HTTP sessions: `Mcp-Session-Id` issued and checked, idle expiry, a bound.

Each session is a `ServerSession` held open by a task of its own (its task group must be
entered and left by one task, and requests come on many); the requests of the session find it
by id and hand it their messages. Its outgoing frames come back through `HttpSession.route`,
which writes each on the stream of the request it belongs to (see `_streams.py`).

Decisions:

- Ids are 32 random hex digits (`secrets`): unguessable, and visible ASCII as the spec asks;
  a process given a route (`_session_ids.py`) puts it in front, for balancers.
- A session bound to an identity (the authenticated caller that created it) is not found by
  anyone else: a foreign identity gets the same 404 as an unknown id, which reveals nothing.
  "Anyone else" is another subject or client (`same_caller`): the same caller presenting a
  refreshed or stepped-up token keeps its session, and its new scopes apply from then on.
- Idle: no request for `idle_timeout` seconds, no call running and no GET stream open. Idle
  sessions are ended by a reaper (and refused on sight before it runs); each ended session
  frees everything it held.
- At most `max_sessions` live at once; at the bound, expired sessions are reaped at once and
  if none was, a new `initialize` is refused (the endpoint answers 503 with `Retry-After`).
  Idle but unexpired sessions are never evicted for a newcomer: their clients are real.
- `SessionStore` is the small interface the sessions are kept behind (memory by default), so
  that a store shared between processes can be plugged in later.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ...protocol.identity import same_caller
from ._session_ids import new_session_id, session_id_prefix
from ._streams import Stream

if TYPE_CHECKING:
    from ...protocol.jsonrpc import RequestId
    from ...protocol.serving import SessionOpener
    from ...protocol.session import ServerSession

__all__ = ["HttpSession", "MemorySessionStore", "SessionLimitError", "SessionManager"]

logger = logging.getLogger("toolwire.http")

CLOSE_GRACE_SECONDS = 5.0
"""How long ending a session may wait for its calls to stop before it is left to finish."""


class SessionLimitError(Exception):
    """Every session slot is taken by a session that is not idle."""


class HttpSession:
    """One client's session over streamable HTTP.

    Args:
        session_id: Its `Mcp-Session-Id`.
        identity: Who created it (None without authentication).
    """

    def __init__(self, session_id: str, identity: Any = None) -> None:
        self.id = session_id
        self.identity = identity
        self.server_session: ServerSession | None = None
        self.routes: dict[RequestId, Stream] = {}  # requests in flight -> their stream
        self.streams: dict[str, Stream] = {}  # resumable streams not yet finished, by id
        self.get_stream: Stream | None = None  # the standalone stream (GET), when open
        self.last_seen = time.monotonic()
        self.ended = False
        self._streams_made = 0
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @property
    def protocol_version(self) -> str | None:
        """The version `initialize` negotiated, once it has."""
        session = self.server_session
        return session.protocol_version if session is not None else None

    @property
    def idle(self) -> bool:
        """No call running, no reply owed and no GET stream open."""
        session = self.server_session
        return not (
            self.routes
            or (session is not None and session.busy)
            or (self.get_stream is not None and self.get_stream.attached)
        )

    def new_stream_id(self) -> str:
        """An id for a new stream of this session (its prefix names the session)."""
        self._streams_made += 1
        return f"{self.id}.{self._streams_made}"

    def owns(self, stream_id: str) -> bool:
        """Whether `stream_id` is one of this session's streams."""
        return stream_id.startswith(self.id + ".")

    async def route(self, frame: bytes, request_id: RequestId | None) -> None:
        """The session's routed `send`: a frame for a request goes to that request's stream,
        the rest to the GET stream; with no stream to take it, it is dropped (logged)."""
        stream = self.routes.get(request_id) if request_id is not None else None
        if stream is None or request_id is None:
            stream = self.get_stream
            if stream is None:
                logger.debug("session %s: no stream for a message; dropped", self.id)
                return
            await stream.write(frame, None)
            return
        if await stream.write(frame, request_id):  # that request is answered
            del self.routes[request_id]
            if stream.finished and stream.stream_id is not None:
                self.streams.pop(stream.stream_id, None)

    def stop(self) -> None:
        """End the session: its host task closes the `ServerSession`."""
        self.ended = True
        self._stop.set()

    async def host(self, opener: SessionOpener, ready: asyncio.Future[None], **extra: Any) -> None:
        """Hold the `ServerSession` open until `stop()` (run as the session's own task)."""
        try:
            async with opener(self.route, routed=True, **extra) as session:
                self.server_session = session
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError())
            if not isinstance(error, asyncio.CancelledError | Exception):
                raise
            if isinstance(error, Exception):
                logger.exception("session %s ended with an error", self.id)
        finally:
            self.ended = True
            for stream in [*self.streams.values(), *self.routes.values()]:
                stream.finish()  # wakes every request still waiting on this session
            if self.get_stream is not None:
                self.get_stream.finish()
            self.routes.clear()
            self.streams.clear()


class SessionStore(Protocol):
    """Where live sessions are kept, by id."""

    def get(self, session_id: str) -> HttpSession | None: ...
    def add(self, session: HttpSession) -> None: ...
    def remove(self, session_id: str) -> HttpSession | None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[HttpSession]: ...


class MemorySessionStore:
    """Sessions in a dict: the default store."""

    def __init__(self) -> None:
        self._sessions: dict[str, HttpSession] = {}

    def get(self, session_id: str) -> HttpSession | None:
        """The session with this id, if live."""
        return self._sessions.get(session_id)

    def add(self, session: HttpSession) -> None:
        """Keep a new session."""
        self._sessions[session.id] = session

    def remove(self, session_id: str) -> HttpSession | None:
        """Forget a session; return it if it was there."""
        return self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._sessions)

    def __iter__(self) -> Iterator[HttpSession]:
        return iter(list(self._sessions.values()))


class SessionManager:
    """Creates, finds and ends the sessions of one app while it is served.

    Args:
        opener: Opens the `ServerSession` of each new session.
        idle_timeout: Seconds without activity after which a session ends (None: never).
        max_sessions: Sessions alive at once.
        store: Where they are kept (memory by default).
    """

    def __init__(
        self,
        opener: SessionOpener,
        *,
        idle_timeout: float | None,
        max_sessions: int,
        store: SessionStore | None = None,
    ) -> None:
        self.opener = opener
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self.store: SessionStore = store if store is not None else MemorySessionStore()
        self._id_prefix = session_id_prefix()  # a process's route (TOOLWIRE_SESSION_ROUTE)
        self._reaper: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start reaping idle sessions (in the running loop)."""
        if self.idle_timeout is not None and self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def open(
        self, identity: Any = None, options: dict[str, Any] | None = None
    ) -> HttpSession:
        """A new session, ready for its `initialize` (`options` go to the opener).

        Raises:
            SessionLimitError: `max_sessions` live sessions, none of them idle.
        """
        if len(self.store) >= self.max_sessions:
            await self.reap()
            if len(self.store) >= self.max_sessions:
                raise SessionLimitError
        session = HttpSession(new_session_id(self._id_prefix), identity)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        session.task = asyncio.get_running_loop().create_task(
            session.host(self.opener, ready, **(options or {}))
        )
        await ready
        self.store.add(session)
        return session

    def find(self, session_id: str, identity: Any = None) -> HttpSession | None:
        """The live session with this id for this caller, or None (unknown, ended, expired,
        or created by someone else)."""
        session = self.store.get(session_id)
        if session is None or not same_caller(session.identity, identity):
            return None
        if session.ended or self._expired(session, time.monotonic()):
            self._discard(session)
            return None
        session.last_seen = time.monotonic()
        if identity is not None and identity is not session.identity:
            # The same caller with a refreshed (or stepped-up) token: its scopes now count.
            session.identity = identity
            if session.server_session is not None:
                session.server_session.identity = identity
        return session

    def _expired(self, session: HttpSession, now: float) -> bool:
        timeout = self.idle_timeout
        return timeout is not None and now - session.last_seen > timeout and session.idle

    def _discard(self, session: HttpSession) -> None:
        self.store.remove(session.id)
        session.stop()

    async def end(self, session: HttpSession) -> None:
        """End a session now (DELETE) and wait, briefly, for it to close."""
        self._discard(session)
        if session.task is not None:
            await asyncio.wait({session.task}, timeout=CLOSE_GRACE_SECONDS)

    async def reap(self) -> int:
        """End the expired sessions; return how many."""
        now = time.monotonic()
        ended = 0
        for session in self.store:
            if session.ended or self._expired(session, now):
                self._discard(session)
                ended += 1
        return ended

    async def _reap_forever(self) -> None:
        assert self.idle_timeout is not None
        interval = min(max(self.idle_timeout / 4, 0.05), 60.0)
        while True:
            await asyncio.sleep(interval)
            await self.reap()

    async def close(self) -> None:
        """End every session (the app is shutting down) and stop reaping."""
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        tasks = []
        for session in self.store:
            self._discard(session)
            if session.task is not None:
                tasks.append(session.task)
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_GRACE_SECONDS)
