"""A live streamable-HTTP session: a `ServerSession` hosted in a task of its own, writing each
outgoing frame on the stream of the request it belongs to. Its `Mcp-Session-Id` is 32 random hex
digits, prefixed `NAME.` under `TOOLWIRE_SESSION_ROUTE=NAME` so a balancer can route it to its
process (see docs/deployment.md). Stream ids name the session and the copy that made them, so
copies of one session on several processes never issue the same id."""

from __future__ import annotations

import logging
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..channel import Stream
from ._hosting import HostedSession

if TYPE_CHECKING:
    from ....protocol.session.serving import SessionOpener
    from ....protocol.session.session import ServerSession
    from ....protocol.wire.jsonrpc import FrameKind, RequestId
    from .records import SessionRecord

__all__ = [
    "ROUTE_VARIABLE",
    "HttpSession",
    "SessionLimitError",
    "could_be_session_id",
    "is_get_stream",
    "session_id_prefix",
]

logger = logging.getLogger("toolwire.http")

ROUTE_VARIABLE = "TOOLWIRE_SESSION_ROUTE"
_ROUTE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_SESSION_ID = re.compile(rb"(?:[A-Za-z0-9_-]{1,32}\.)?[0-9a-f]{32}")


def session_id_prefix() -> str:
    """What this process puts before each new session's random part ("" without a route).

    Raises:
        ValueError: The variable is set to something that is not a valid route.
    """
    route = os.environ.get(ROUTE_VARIABLE, "")
    if not route:
        return ""
    if not _ROUTE.fullmatch(route):
        raise ValueError(
            f"{ROUTE_VARIABLE}={route!r} is not a valid session route: use 1 to 32 letters, "
            "digits, '-' or '_'"
        )
    return f"{route}."


def could_be_session_id(raw: bytes) -> bool:
    """Whether an `Mcp-Session-Id` value has the form of the ids any process issues."""
    return _SESSION_ID.fullmatch(raw) is not None


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
        self.hosted = HostedSession(self.route, name=f"session {session_id}", ended=self._ended)
        self.routes: dict[RequestId, Stream] = {}  # requests in flight -> their stream
        self.streams: dict[str, Stream] = {}  # resumable streams not yet finished, by id
        self.get_stream: Stream | None = None  # the standalone stream (GET), when open
        # Streams a GET is taking over but has not attached yet: no other GET may meanwhile.
        self.claimed: set[Stream] = set()
        self.last_seen = time.monotonic()
        self.touched = self.last_seen  # when its record's expiry was last pushed back
        self.saved_log_level = "debug"  # the log level its record holds
        self.saved_subscriptions: frozenset[str] = frozenset()  # the URIs its record holds
        self.record_reads = 0  # reads of its record begun: only the latest one is applied
        self.ended = False
        self.copy = secrets.token_hex(4)  # names this live copy, in the ids of its streams
        self._streams_made = 0
        # With a shared record: writes a change back before the reply acknowledging it.
        self.save_changes: Callable[[HttpSession], Awaitable[None]] | None = None

    @property
    def server_session(self) -> ServerSession:
        """The protocol session (a session is only ever handed out once open)."""
        session = self.hosted.session
        assert session is not None, "the session is not open yet"
        return session

    @property
    def record_changed(self) -> bool:
        """Whether a request changed the log level or subscriptions since the record was
        last written or read."""
        session = self.server_session
        return (
            session.log_level != self.saved_log_level
            or session.resource_subscriptions != self.saved_subscriptions
        )

    def saved(self, record: SessionRecord) -> None:
        """The record now holds what `record` says (written or read)."""
        self.saved_log_level = record.log_level
        self.saved_subscriptions = frozenset(record.resource_subscriptions)

    def rebase(self, current: SessionRecord) -> None:
        """Put what requests changed in this copy on top of the record as it is now (another
        process's copy may have changed it meanwhile)."""
        session = self.server_session
        mine = session.resource_subscriptions
        added = mine - self.saved_subscriptions
        removed = self.saved_subscriptions - mine
        session.resource_subscriptions = (set(current.resource_subscriptions) | added) - removed
        if session.log_level == self.saved_log_level:  # not changed here: theirs holds
            session.log_level = current.log_level

    @property
    def idle(self) -> bool:
        """No call running, no reply owed and no GET stream open."""
        return not (
            self.routes
            or self.server_session.busy
            or (self.get_stream is not None and self.get_stream.send_to is not None)
        )

    def new_stream_id(self, *, get: bool = False) -> str:
        """An id for a new stream of this copy (`get`: the standalone GET stream)."""
        self._streams_made += 1
        kind = "g" if get else ""
        return f"{self.id}.{self.copy}.{kind}{self._streams_made}"

    def owns(self, stream_id: str) -> bool:
        """Whether `stream_id` is one of this session's streams (made by any copy)."""
        return stream_id.startswith(self.id + ".")

    def made(self, stream_id: str) -> bool:
        """Whether this copy of the session made `stream_id` (rather than another process)."""
        return stream_id.startswith(f"{self.id}.{self.copy}.")

    async def route(self, frame: bytes, kind: FrameKind, request_id: RequestId | None) -> None:
        """The session's routed `send`: a frame for a request goes to that request's stream,
        the rest to the GET stream; with no stream to take it, it is dropped (logged)."""
        stream = self.routes.get(request_id) if request_id is not None else None
        if stream is None or request_id is None:
            stream = self.get_stream
            if stream is None:
                logger.debug("session %s: no stream for a message; dropped", self.id)
                return
            await stream.write(frame, kind, None)
            return
        if self.save_changes is not None and self.record_changed:
            await self.save_changes(self)
        if await stream.write(frame, kind, request_id):  # that request is answered
            del self.routes[request_id]
            if stream.finished and stream.stream_id is not None:
                self.streams.pop(stream.stream_id, None)

    def unanswered(self, request_id: RequestId) -> None:
        """The request ended without a reply (cancelled): its stream owes it nothing, and
        ends once it owes nothing at all."""
        stream = self.routes.pop(request_id, None)
        if stream is None:
            return
        stream.pending.discard(request_id)
        if not stream.pending:
            stream.finish()
            if stream.stream_id is not None:
                self.streams.pop(stream.stream_id, None)

    def stop(self) -> None:
        """End the session: its task closes the `ServerSession`."""
        self.ended = True
        self.hosted.stop()

    async def open(self, opener: SessionOpener, options: dict[str, Any]) -> None:
        """Open the `ServerSession` in a task of its own, held until `stop()`.

        Raises:
            Exception: What opening it raised.
        """
        session = await self.hosted.open(opener, {**options, "session_id": self.id})
        session.requests.unanswered = self.unanswered

    def _ended(self) -> None:
        """The session closed: every request still waiting on it is finished."""
        self.ended = True
        for stream in [*self.streams.values(), *self.routes.values()]:
            stream.finish()
        if self.get_stream is not None:
            self.get_stream.finish()
        self.routes.clear()
        self.streams.clear()


def is_get_stream(stream_id: str) -> bool:
    """Whether `stream_id` names a session's standalone GET stream (see `new_stream_id`)."""
    return stream_id.rpartition(".")[2].startswith("g")
