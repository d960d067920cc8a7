"""MCP's HTTP+SSE transport of protocol 2024-11-05: an event stream per client, POSTs beside it.

A client opens `GET /sse`. The first event on that stream, `endpoint`, names the URL it then
POSTs every message to (`/messages/?session_id=<hex>`); each POST is answered 202, and every
reply, notification and server request goes out as a `message` event on the stream. The
stream is the session: when it closes, the session ends and its calls are cancelled.

Decisions:

- The endpoint is an absolute path carrying the mount prefix (`root_path`), as the official
  servers send it: clients resolve it against the stream's URL (`urljoin`), and some simply
  append it to the origin, which only an absolute path survives.
- A POST is answered once the session has taken its message in (an inline reply is on the
  stream by then), so a client that stops reading its stream is slowed at its POSTs instead
  of being buffered for. A session whose backlog is full makes a POST wait a while, then 503.
- One session's POSTs reach it one at a time, in the order they arrived.
- A session belongs to the identity that opened its stream (`toolwire.identity` in the ASGI
  scope, set by the auth middleware); a POST by anyone else gets the 404 an unknown id gets,
  so ids cannot be probed.
- Streams are bounded in number (503 beyond `max_sessions`) and carry a comment every
  `keepalive_seconds`, which keeps proxies from timing them out while a session is idle.
- A body that is not JSON is refused with 400; JSON goes to the session as is, which answers
  whatever else is wrong with it on the stream, exactly as over stdio.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

import anyio

from ...protocol.jsonrpc import INVALID_REQUEST, PARSE_ERROR, decode, error_message

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ...protocol.serving import Servable, SessionOpener
    from ...protocol.session import ServerSession

__all__ = ["DEFAULT_MAX_SESSIONS", "KEEPALIVE_SECONDS", "LegacySse", "legacy_sse_app"]

logger = logging.getLogger("toolwire.http")

Scope = MutableMapping[str, Any]
AsgiMessage = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[AsgiMessage]]
AsgiSend = Callable[[AsgiMessage], Awaitable[None]]

DEFAULT_MAX_SESSIONS = 1000
"""Event streams open at once beyond which a new `GET /sse` is refused with 503."""
KEEPALIVE_SECONDS = 15.0
"""Seconds between the comments that keep an idle stream open through proxies."""
BUSY_SECONDS = 10.0
"""How long a POST waits for a session whose backlog is full before answering 503."""
STREAM_END_SECONDS = 1.0
"""At shutdown, how long a session's listen streams get to send their final results."""
GET_BODY_LIMIT = 64 * 1024
"""Bytes a `GET /sse` may send in its body before the stream is ended (it should send none)."""

_SESSION_ID = re.compile(r"[0-9a-f]{32}")
_STREAM_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),  # nginx would otherwise hold events back in its buffer
]
_KEEPALIVE = b": keep-alive\n\n"


@dataclass(eq=False)
class _Live:
    """A session whose stream is open, and what its POSTs need."""

    session: ServerSession
    identity: Any
    ended: anyio.Event
    order: anyio.Lock = field(default_factory=anyio.Lock)
    closed: bool = False


class LegacySse:
    """The stream and message endpoints of one app, and the sessions they share.

    Args:
        servable: What the sessions serve; entered by `serving()`.
        sse_path: Where the stream is opened (named in the 404 for an unknown session).
        message_path: Where messages are posted, relative to the app's mount point.
        max_sessions: Streams open at once beyond which a new one is refused (503).
        keepalive_seconds: Seconds between keep-alive comments on each stream.
        max_body_bytes: The largest POST body accepted (413 beyond); defaults to the
            servable's `max_message_bytes`.

    Raises:
        ValueError: A path is not an absolute path without query, or a limit is not positive.
    """

    def __init__(
        self,
        servable: Servable,
        *,
        sse_path: str = "/sse",
        message_path: str = "/messages/",
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        keepalive_seconds: float = KEEPALIVE_SECONDS,
        max_body_bytes: int | None = None,
    ) -> None:
        for name, path in (("sse_path", sse_path), ("message_path", message_path)):
            if not path.startswith("/") or any(mark in path for mark in ("?", "#", "//")):
                raise ValueError(f"{name} must be an absolute path like '/sse', not {path!r}")
        if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
            raise ValueError(f"max_sessions must be an integer >= 1, not {max_sessions!r}")
        if not isinstance(keepalive_seconds, int | float) or not keepalive_seconds > 0:
            raise ValueError(
                f"keepalive_seconds must be a number of seconds > 0, not {keepalive_seconds!r}"
            )
        self._servable = servable
        self.sse_path = sse_path
        self.message_path = message_path
        self.max_sessions = max_sessions
        self.keepalive_seconds = float(keepalive_seconds)
        self.max_body_bytes = max_body_bytes or servable.max_message_bytes
        self._opener: SessionOpener | None = None
        self._live: dict[str, _Live] = {}

    @property
    def open_sessions(self) -> int:
        """How many streams (sessions) are open."""
        return len(self._live)

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        """Hold the servable open (its lifespan too); streams are served only inside."""
        async with self._servable.serving() as opener:
            self._opener = opener
            try:
                yield
            finally:
                self._opener = None
                await self.end_streams()

    async def end_streams(self) -> None:
        """End every open stream, as at shutdown: listen streams (2026-07-28 era) first get
        their final result, then each session closes and its stream ends."""
        for live in list(self._live.values()):
            with anyio.move_on_after(STREAM_END_SECONDS):
                await live.session.end_streams()
            live.ended.set()

    async def stream(self, scope: Scope, receive: Receive, send: AsgiSend) -> None:
        """ASGI endpoint of `GET sse_path`: one session, for as long as the stream is open."""
        if scope["method"] != "GET":
            await _refuse(
                send,
                405,
                f"Method {scope['method']} not allowed: open the event stream with GET",
                allow=b"GET",
            )
            return
        opener = self._opener
        if opener is None:
            await _refuse(send, 503, _NOT_SERVING)
            return
        if len(self._live) >= self.max_sessions:
            logger.warning("SSE stream refused: %d sessions open (max_sessions)", len(self._live))
            await _refuse(
                send, 503, f"Too many open sessions (max_sessions={self.max_sessions}); retry later"
            )
            return
        session_id = secrets.token_hex(16)
        ended = anyio.Event()
        lock = _write_lock()
        gone = False

        async def put(chunk: bytes) -> None:
            nonlocal gone
            if gone:  # nobody reads any more: what the session still sends is dropped
                return
            async with lock:  # keep-alive comments and messages never interleave
                try:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                except Exception as error:  # the server could not write: the client is gone
                    gone = True
                    logger.debug("SSE session %s: write failed (%r)", session_id, error)
                    ended.set()

        async def write(frame: bytes) -> None:
            await put(_event(b"message", frame))

        await send({"type": "http.response.start", "status": 200, "headers": _STREAM_HEADERS})
        async with opener(write) as session:
            live = _Live(session, scope.get("toolwire.identity"), ended)
            self._live[session_id] = live
            logger.debug("SSE session %s opened", session_id)
            try:
                await put(_event(b"endpoint", self._endpoint(scope, session_id)))
                async with anyio.create_task_group() as watchers:
                    watchers.start_soon(_until_disconnect, receive, ended)
                    watchers.start_soon(self._keep_alive, put)
                    await ended.wait()
                    watchers.cancel_scope.cancel()
            finally:
                del self._live[session_id]
                live.closed = True
                # A POST still handing the session its message finishes first: a call it
                # starts after the session closed would outlive it.
                with anyio.CancelScope(shield=True), anyio.move_on_after(STREAM_END_SECONDS):
                    async with live.order:
                        pass
                logger.debug("SSE session %s closed", session_id)
        gone = True
        with suppress(Exception):  # the client may be gone; then there is nothing to end
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def post(self, scope: Scope, receive: Receive, send: AsgiSend) -> None:
        """ASGI endpoint of `POST message_path?session_id=...`: one message for a session."""
        if scope["method"] != "POST":
            await _refuse(
                send,
                405,
                f"Method {scope['method']} not allowed: send messages with POST",
                allow=b"POST",
            )
            return
        session_id = _query_value(scope, "session_id")
        if session_id is None:
            await _refuse(
                send,
                400,
                "Missing session_id query parameter: POST to the URL "
                f"of the 'endpoint' event of the stream opened by GET {self.sse_path}",
            )
            return
        if not _SESSION_ID.fullmatch(session_id):
            await _refuse(
                send,
                400,
                f"Malformed session_id {session_id[:64]!r}: expected the "
                f"32 hex digits of the 'endpoint' event from GET {self.sse_path}",
            )
            return
        live = self._live.get(session_id)
        if live is None or live.closed or live.identity != scope.get("toolwire.identity"):
            await _refuse(send, 404, _unknown_session(self.sse_path))
            return
        media_type = _header(scope, b"content-type").split(";", 1)[0].strip().lower()
        if media_type != "application/json":
            shown = media_type or "none"
            await _refuse(
                send,
                400,
                f"Unsupported Content-Type {shown!r}: messages are posted as application/json",
            )
            return
        body = await _read_body(scope, receive, send, self.max_body_bytes)
        if body is None:  # refused for its size, or the client left
            return
        try:
            decode(body)
        except (ValueError, RecursionError) as error:
            await _refuse(send, 400, "Parse error: the body is not JSON", PARSE_ERROR, str(error))
            return
        if not await _room(live):
            await _refuse(
                send,
                503,
                "The session is not reading its replies fast enough "
                "(its backlog is full); retry later",
            )
            return
        async with live.order:
            if live.closed:
                await _refuse(send, 404, _unknown_session(self.sse_path))
                return
            await live.session.receive(body)
        await _respond(send, 202, b"Accepted", b"text/plain; charset=utf-8")

    def _endpoint(self, scope: Scope, session_id: str) -> bytes:
        prefix = str(scope.get("root_path", "")).rstrip("/")
        return f"{quote(prefix + self.message_path)}?session_id={session_id}".encode()

    async def _keep_alive(self, put: Callable[[bytes], Awaitable[None]]) -> None:
        while True:  # ends with the stream, which cancels it
            await anyio.sleep(self.keepalive_seconds)
            await put(_KEEPALIVE)


class _Endpoint:
    """A handler as a plain ASGI app (Starlette would wrap a bound method as a request
    handler taking a `Request`)."""

    def __init__(self, handler: Callable[[Scope, Receive, AsgiSend], Awaitable[None]]) -> None:
        self._handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: AsgiSend) -> None:
        await self._handler(scope, receive, send)


def legacy_sse_app(
    servable: Servable,
    *,
    sse_path: str = "/sse",
    message_path: str = "/messages/",
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    keepalive_seconds: float = KEEPALIVE_SECONDS,
    max_body_bytes: int | None = None,
) -> Starlette:
    """A Starlette app serving `servable` over the HTTP+SSE transport.

    Its lifespan enters `servable.serving()`; the `LegacySse` behind it is
    `app.state.legacy_sse` (e.g. to end its streams at shutdown). Arguments as for
    `LegacySse`.
    """
    from starlette.applications import Starlette
    from starlette.routing import Route

    transport = LegacySse(
        servable,
        sse_path=sse_path,
        message_path=message_path,
        max_sessions=max_sessions,
        keepalive_seconds=keepalive_seconds,
        max_body_bytes=max_body_bytes,
    )

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with transport.serving():
            yield

    app = Starlette(
        routes=[
            Route(sse_path, _Endpoint(transport.stream)),
            Route(message_path, _Endpoint(transport.post)),
        ],
        lifespan=lifespan,
    )
    app.state.legacy_sse = transport
    return app


_NOT_SERVING = (
    "The MCP server is not serving: the app's lifespan has not run. Starlette does not run "
    "the lifespan of a mounted app; enter the app's lifespan from the parent's"
)


def _unknown_session(sse_path: str) -> str:
    return (
        "Unknown session_id: the session ended (its event stream closed) or never existed; "
        f"open a new stream with GET {sse_path}"
    )


def _event(kind: bytes, data: bytes) -> bytes:
    """One SSE event; a line break inside `data` starts another data line, as SSE requires."""
    if b"\n" in data or b"\r" in data:
        lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        data = b"\ndata: ".join(lines)
    return b"event: " + kind + b"\ndata: " + data + b"\n\n"


def _write_lock() -> asyncio.Lock | anyio.Lock:
    # The session may start writing a reply in the POST's task and finish in a task of its
    # own (protocol/_eager.py); anyio's lock cannot be released by another task than the one
    # that took it, asyncio's can.
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.Lock()
    return asyncio.Lock()


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def _query_value(scope: Scope, name: str) -> str | None:
    values = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1")).get(name)
    return values[0] if values else None


async def _until_disconnect(receive: Receive, ended: anyio.Event) -> None:
    """Return once the client closed the stream (or sent a body no GET should have)."""
    received = 0
    while received <= GET_BODY_LIMIT:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        received += len(message.get("body", b""))
    ended.set()


async def _room(live: _Live) -> bool:
    """Wait (bounded) until the session's backlog has room; whether it has."""
    backlog = live.session.backlog
    if not backlog.full:
        return True
    clear = anyio.Event()
    backlog.when_clear(clear.set)
    with anyio.move_on_after(BUSY_SECONDS):
        await clear.wait()
    return not backlog.full


async def _read_body(scope: Scope, receive: Receive, send: AsgiSend, limit: int) -> bytes | None:
    """The request's body, or None once it was refused for its size (413) or the client left."""
    declared = _header(scope, b"content-length")
    if declared.isdigit() and int(declared) > limit:
        await _refuse_size(send, int(declared), limit)
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = bytes(message.get("body", b""))
        size += len(chunk)
        if size > limit:
            await _refuse_size(send, size, limit)
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _refuse_size(send: AsgiSend, size: int, limit: int) -> None:
    await _refuse(send, 413, f"Request body of {size}+ bytes exceeds the limit of {limit} bytes")


async def _refuse(
    send: AsgiSend,
    status: int,
    text: str,
    code: int = INVALID_REQUEST,
    data: Any = None,
    *,
    allow: bytes | None = None,
) -> None:
    """Answer with `status` and a JSON-RPC error body saying what was wrong."""
    extra = [(b"allow", allow)] if allow else []
    body = error_message(None, code, text, data)
    await _respond(send, status, body, b"application/json", extra)


async def _respond(
    send: AsgiSend,
    status: int,
    body: bytes,
    content_type: bytes,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
