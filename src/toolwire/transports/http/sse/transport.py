"""MCP's HTTP+SSE transport of protocol 2024-11-05: an event stream per client, whose first
event names where it POSTs its messages (202 once the session took one in); every message of the
session goes out on the stream, which is the session. See docs/decisions.md, `transport.py`."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, quote

import anyio

from ....errors import check_count, check_seconds
from ....protocol.auth.identity import same_caller
from ....protocol.wire.jsonrpc import PARSE_ERROR, decode
from .._served_app import Serving
from .._sse import SSE_HEADERS, encode_event
from ..asgi import ASGIReceive, ASGISend, Scope, json_body, refuse, respond
from ..channel import Stream, end_response
from ..security.auth import IDENTITY_KEY

if TYPE_CHECKING:
    from ....protocol.auth.identity import Identity
    from ....protocol.session.serving import Servable, SessionOpener
    from ....protocol.session.session import ServerSession

__all__ = ["LegacySse"]

logger = logging.getLogger("toolwire.http")

BUSY_SECONDS = 10.0
"""How long a POST waits for a session whose backlog is full before answering 503."""
STREAM_END_SECONDS = 1.0
"""At shutdown, how long a session's listen streams get to send their final results."""

_SESSION_ID = re.compile(r"[0-9a-f]{32}")
_TEXT = (b"content-type", b"text/plain; charset=utf-8")


@dataclass(eq=False)
class _Live:
    """A session whose stream is open, and what its POSTs need."""

    session: ServerSession
    identity: Identity | None
    stream: Stream
    order: anyio.Lock = field(default_factory=anyio.Lock)
    closed: bool = False


class LegacySse(Serving):
    """The stream and message endpoints of one app, and the sessions they share (the options
    are `Server.sse_app`'s).

    Raises:
        ValueError: A path is not an absolute path without query, or a limit is not positive.
    """

    def __init__(
        self,
        servable: Servable,
        *,
        sse_path: str,
        message_path: str,
        max_sessions: int,
        keepalive_seconds: float,
        max_body_bytes: int,
        max_event_bytes: int | None,
    ) -> None:
        for name, path in (("sse_path", sse_path), ("message_path", message_path)):
            marks = ("?", "#", "//")
            if not isinstance(path, str) or path[:1] != "/" or any(m in path for m in marks):
                raise ValueError(f"{name} must be an absolute path like '/sse', not {path!r}")
        if sse_path.rstrip("/") == message_path.rstrip("/"):
            # the stream's route would take every POST meant for the messages
            raise ValueError(f"sse_path and message_path must differ, not both {message_path!r}")
        check_count("max_sessions", max_sessions, 1)
        check_count("max_body_bytes", max_body_bytes, 1)
        check_seconds("keepalive_seconds", keepalive_seconds)
        super().__init__(servable, max_event_bytes, "SSE")
        self.sse_path = sse_path
        self.message_path = message_path
        self.max_sessions = max_sessions
        self.keepalive_seconds = float(keepalive_seconds)
        self.max_body_bytes = max_body_bytes
        self._live: dict[str, _Live] = {}
        self._admitted = 0  # streams admitted and not yet ended, their session live or not

    @property
    def open_sessions(self) -> int:
        """How many streams (sessions) are open."""
        return len(self._live)

    @asynccontextmanager
    async def hosting(self, opener: SessionOpener) -> AsyncIterator[None]:
        """Serve streams for the duration; every stream ends with it."""
        try:
            yield
        finally:
            await self.ending()

    async def end_idle_streams(self) -> None:
        """End the streams of the sessions running no call (the server is stopping)."""
        await self.ending(idle_only=True)

    async def ending(self, *, idle_only: bool = False) -> None:
        """End every open stream (with `idle_only`, those of sessions running no call)."""
        for live in list(self._live.values()):
            if idle_only and (live.session.busy or live.stream.finished):
                continue
            with anyio.move_on_after(STREAM_END_SECONDS):
                await live.session.end_streams()
            live.stream.finish()

    async def stream(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        """ASGI endpoint of `GET sse_path`: one session, for as long as the stream is open."""
        if scope["method"] != "GET":
            await _wrong_method(scope, send, "GET", "open the event stream with GET")
            return
        if self._admitted >= self.max_sessions:
            logger.warning("SSE stream refused: %d sessions open (max_sessions)", len(self._live))
            await refuse(
                send, 503, f"Too many open sessions (max_sessions={self.max_sessions}); retry later"
            )
            return
        self._admitted += 1
        try:
            await self._serve_stream(scope, receive, send)
        finally:
            self._admitted -= 1

    async def _serve_stream(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        try:
            opener = await self.ensure_started()
        except Exception:  # the server's lifespan failed; serving.py logged why
            await refuse(send, 503, "The server failed to start; its log says why")
            return
        if opener is None:
            await refuse(send, 503, "The server is shutting down")
            return
        session_id = secrets.token_hex(16)
        identity: Identity | None = scope.get(IDENTITY_KEY)
        stream = Stream(None, None, sse=True)

        async def write(frame: bytes) -> None:
            await stream.send_raw(encode_event(frame))

        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        stream.send_to = send
        async with opener(write, identity=identity, session_id=session_id) as session:
            live = _Live(session, identity, stream)
            self._live[session_id] = live
            logger.debug("SSE session %s opened", session_id)
            try:
                prefix = str(scope.get("root_path", "")).rstrip("/")
                endpoint = f"{quote(prefix + self.message_path)}?session_id={session_id}"
                await stream.send_raw(b"event: endpoint\ndata: " + endpoint.encode() + b"\n\n")
                await stream.wait(receive, self.keepalive_seconds)
            finally:
                stream.send_to = None
                del self._live[session_id]
                live.closed = True
                # A POST still handing the session its message finishes first.
                with anyio.CancelScope(shield=True), anyio.move_on_after(STREAM_END_SECONDS):
                    async with live.order:
                        pass
                logger.debug("SSE session %s closed", session_id)
        await end_response(stream, send)

    async def post(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        """ASGI endpoint of `POST message_path?session_id=...`: one message for a session."""
        if scope["method"] != "POST":
            await _wrong_method(scope, send, "POST", "send messages with POST")
            return
        live = await self._session_of(scope, send)
        if live is None:
            return
        body = await json_body(scope, receive, send, self.max_body_bytes, too_large="")
        if body is None:
            return
        try:
            decode(body)
        except (ValueError, RecursionError) as error:
            await refuse(
                send, 400, f"Parse error: the body is not JSON ({error})", code=PARSE_ERROR
            )
            return
        with anyio.move_on_after(BUSY_SECONDS):  # wait (bounded) for room in the backlog
            await live.session.backlog.until_clear()
        if live.session.backlog.full:
            await refuse(
                send,
                503,
                "The session is not reading its replies fast enough (its backlog is full); "
                "retry later",
            )
            return
        async with live.order:
            if live.closed:
                await refuse(send, 404, _unknown_session(self.sse_path))
                return
            await live.session.receive(body)
        await respond(send, 202, b"Accepted", [_TEXT])

    async def _session_of(self, scope: Scope, send: ASGISend) -> _Live | None:
        """The live session the POST names, or None once refused (400/404)."""
        query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
        named = query.get("session_id", [])
        if len(named) > 1:  # one reader may take the first and another the last
            await refuse(send, 400, f"The URL has {len(named)} session_id parameters; send one")
            return None
        session_id = named[0] if named else None
        if session_id is None:
            await refuse(
                send,
                400,
                "Missing session_id query parameter: POST to the URL of the 'endpoint' event "
                f"of the stream opened by GET {self.sse_path}",
            )
            return None
        if not _SESSION_ID.fullmatch(session_id):
            await refuse(
                send,
                400,
                f"Malformed session_id {session_id[:64]!r}: expected the 32 hex digits of the "
                f"'endpoint' event from GET {self.sse_path}",
            )
            return None
        live = self._live.get(session_id)
        identity: Identity | None = scope.get(IDENTITY_KEY)
        if live is None or live.closed or not same_caller(live.identity, identity):
            await refuse(send, 404, _unknown_session(self.sse_path))
            return None
        if identity is not None and identity != live.identity:
            live.identity = live.session.identity = identity  # a refreshed token of the caller
        return live


def _unknown_session(sse_path: str) -> str:
    return (
        "Unknown session_id: the session ended (its event stream closed) or never existed; "
        f"open a new stream with GET {sse_path}"
    )


async def _wrong_method(scope: Scope, send: ASGISend, allowed: str, hint: str) -> None:
    """405 for a request whose method this endpoint does not take; `hint` says which does."""
    await refuse(
        send,
        405,
        f"Method {scope['method']} not allowed: {hint}",
        headers=[(b"allow", allowed.encode())],
    )
