"""The MCP path of the streamable HTTP app, as plain ASGI: POST (a request gets a JSON body or
an SSE stream, a notification or client response 202), GET (the session's own stream, or a
resumed one) and DELETE, with `Mcp-Session-Id` sessions from `initialize` in the handshake era
(none in stateless mode); a 2026-07-28 request goes to `modern.serve_modern`. Every refusal is
a 4xx with a JSON-RPC error naming the problem."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ....protocol.session.requests_in_flight import STREAM_CLOSER
from ....protocol.wire.eras import HANDSHAKE_VERSIONS, is_modern_request
from ....protocol.wire.jsonrpc import PARSE_ERROR, Invalid, Request, Response, classify, decode
from .._sse import SSE_HEADERS, encode_event
from ..asgi import (
    JSON_TYPE,
    ASGIReceive,
    ASGISend,
    Scope,
    json_body,
    refuse,
    request_headers,
    respond,
    unavailable,
)
from ..channel import (
    ASSUMED_VERSION,
    JSON_MEDIA,
    PRIMING_SINCE,
    SSE_MEDIA,
    Stream,
    accepts,
    end_response,
    media_ranges,
)
from ..security.auth import IDENTITY_KEY
from ._resume import GetStream
from .modern import serve_modern
from .records import StoreUnavailable
from .sessions import HttpSession, SessionLimitError, could_be_session_id

if TYPE_CHECKING:
    from ....protocol.session.session import ServerSession
    from .._runtime import Runtime

__all__ = ["Endpoint", "EndpointConfig"]

logger = logging.getLogger("toolwire.http")

SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"
LAST_EVENT_HEADER = b"last-event-id"
_SHOWN_NAMES = {
    VERSION_HEADER: "MCP-Protocol-Version",
    LAST_EVENT_HEADER: "Last-Event-ID",
    SESSION_HEADER: "Mcp-Session-Id",
}
MAX_IN_FLIGHT = 1000
"""Requests one session may have in flight at once (each holds a stream and a task)."""
_SUPPORTED = ", ".join(HANDSHAKE_VERSIONS)
_ALLOW_ALL = [(b"allow", b"GET, POST, DELETE")]
_ALLOW_POST = [(b"allow", b"POST")]


@dataclass(frozen=True, slots=True, kw_only=True)
class EndpointConfig:
    """How the endpoint answers (see `streamable_http_app` for each option)."""

    stateless: bool
    json_response: bool
    max_body_bytes: int
    retry_ms: int | None
    keepalive_seconds: float | None = None


class Endpoint:
    """The ASGI app serving the MCP path.

    Args:
        runtime: The app's serving state (opener, sessions, event store).
        config: How to answer.
    """

    def __init__(self, runtime: Runtime, config: EndpointConfig) -> None:
        self.runtime = runtime
        self.config = config
        self._accept_refusal = (
            "Not Acceptable: Client must accept application/json"
            if config.json_response
            else "Not Acceptable: Client must accept application/json or text/event-stream"
        )

    async def __call__(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        # Only HTTP reaches here: the app dispatches HTTP alone, and a Starlette route too.
        if self.runtime.opener is None:
            try:
                started = await self.runtime.ensure_started()
            except Exception:  # the server's lifespan failed; the serving logged why
                await refuse(send, 503, "Service Unavailable: the server failed to start")
                return
            if not started:
                await refuse(send, 503, "Service Unavailable: the server is shutting down")
                return
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send)
        elif self.config.stateless and method in ("GET", "DELETE"):
            await refuse(
                send, 405, "Method Not Allowed: no sessions in stateless mode", headers=_ALLOW_POST
            )
        elif method == "GET":
            await self._get(scope, receive, send)
        elif method == "DELETE":
            await self._delete(scope, send)
        else:
            allow = _ALLOW_POST if self.config.stateless else _ALLOW_ALL
            await refuse(send, 405, "Method Not Allowed", headers=allow)

    async def _post(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        config = self.config
        body = await json_body(scope, receive, send, config.max_body_bytes)
        if body is None:
            return
        headers, repeated = request_headers(scope)
        try:
            message = decode(body)
        except (ValueError, RecursionError) as error:
            detail = str(error) if isinstance(error, ValueError) else "nested too deeply"
            await refuse(send, 400, f"Parse error: {detail}", code=PARSE_ERROR)
            return
        declared = headers.get(VERSION_HEADER)
        if is_modern_request(None if declared is None else declared.decode("latin-1"), message):
            assert self.runtime.pool is not None
            await serve_modern(
                scope,
                receive,
                send,
                body=body,
                message=message,
                pool=self.runtime.pool,
                json_response=config.json_response,
                keepalive_seconds=config.keepalive_seconds,
            )
            return
        # The 2026-07-28 era checks `Accept` its own way: only now is the request known to be
        # of the handshake era.
        mode = answer_as(headers.get(b"accept"), config.json_response)
        if mode is None:
            await refuse(send, 406, self._accept_refusal)
            return
        as_json = mode == "json"
        version, bad_version = self._version(headers, repeated)
        if bad_version is not None:
            await refuse(send, 400, bad_version)
            return
        if isinstance(message, list):
            await refuse(send, 400, "Invalid Request: batches are not supported")
            return
        item = classify(message)
        if isinstance(item, Invalid) and item.reply is not None:
            await respond(send, 400, item.reply, [JSON_TYPE])
            return
        if config.stateless:
            await self._stateless(scope, receive, send, message, body, item, version, as_json)
            return
        identity = scope.get(IDENTITY_KEY)
        if isinstance(item, Request) and item.method == "initialize":
            await self._initialize(receive, send, message, body, item, identity, as_json)
            return
        if SESSION_HEADER not in headers:
            # The spec lets a server refuse this with 400, and the official SDK does; OpenAI's
            # hosted MCP clients and ChatGPT connectors send requests without the session id
            # they were given, and fail. Such a request is served on its own, as in stateless
            # mode: no back channel, nothing kept.
            await self._stateless(scope, receive, send, message, body, item, version, as_json)
            return
        found = await self._session(headers, repeated, identity, send)
        if found is None:
            return
        session = found.server_session
        session_header = (SESSION_HEADER, found.id.encode("ascii"))
        session.backlog.frame_size = len(body)
        if not isinstance(item, Request):  # a notification or a client's response
            # An answer to a question a call on another process asked goes to that process.
            if not (isinstance(item, Response) and self.runtime.forwarded(found, item.id, message)):
                await session.receive_message(message)
            await respond(send, 202, b"", [session_header])
            return
        if len(found.routes) >= MAX_IN_FLIGHT:  # what one session may make the server hold
            await refuse(
                send,
                429,
                f"Too Many Requests: this session already has {MAX_IN_FLIGHT} requests in flight",
                headers=[(b"retry-after", b"1"), session_header],
            )
            return
        if item.id in found.routes:  # its reply would be taken for the first one's
            await refuse(
                send, 409, f"Conflict: request id {item.id!r} is already in flight in this session"
            )
            return
        store = self.runtime.event_store
        stream_id = found.new_stream_id() if store is not None else None
        stream = Stream(stream_id, store, sse=not as_json)
        found.routes[item.id] = stream
        if stream_id is not None:
            found.streams[stream_id] = stream
        stream.pending.add(item.id)
        await self._answer(
            session, found, message, stream, receive, send, version, [session_header]
        )
        if found.record_changed:
            assert self.runtime.sessions is not None
            await self.runtime.sessions.sync(found)

    async def _initialize(
        self,
        receive: ASGIReceive,
        send: ASGISend,
        message: Any,
        body: bytes,
        item: Request,
        identity: Any,
        as_json: bool,
    ) -> None:
        """Serve one `initialize` POST: a new session answers it and is kept, its record
        written, only if the handshake succeeded (an unwritable record is a 503)."""
        sessions = self.runtime.sessions
        assert sessions is not None
        try:
            opened = await sessions.open(identity)
        except SessionLimitError:
            await _full(send, sessions.max_sessions)
            return
        session = opened.server_session
        collected = Stream(None, None, sse=False)
        collected.pending.add(item.id)
        opened.routes[item.id] = collected
        session.backlog.frame_size = len(body)
        await session.receive_message(message)
        await collected.wait(receive)
        opened.routes.pop(item.id, None)
        if not collected.replies:  # the client left before its answer: nobody to serve
            await sessions.discard(opened)
            return
        headers = [(SESSION_HEADER, opened.id.encode("ascii"))]
        if session.protocol_version is None:  # refused: no session comes of it
            await sessions.discard(opened)
            headers = []
        else:
            try:
                await sessions.commit(opened)
            except StoreUnavailable as failure:  # a session no other process could find
                await sessions.discard(opened)
                await unavailable(send, failure)
                return
        reply = collected.replies[0]
        if as_json:
            await respond(send, 200, reply, [JSON_TYPE, *headers])
            return
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
        await send({"type": "http.response.body", "body": encode_event(reply)})

    async def _answer(
        self,
        session: ServerSession,
        owner: HttpSession | None,
        message: Any,
        stream: Stream,
        receive: ASGIReceive,
        send: ASGISend,
        version: str | None,
        headers: list[tuple[bytes, bytes]],
    ) -> None:
        """Hand `message` (a request `stream` owes the reply to) to `session` and answer with
        what it routes back, as one JSON body or an SSE stream (`stream.sse`); `owner` is its
        HTTP session (None when stateless), `headers` go on the response."""
        if not stream.sse:
            await session.receive_message(message)
            await stream.wait(receive)
            if stream.replies:
                await respond(send, 200, stream.replies[0], [JSON_TYPE, *headers])
            elif owner is not None and owner.ended:
                await refuse(send, 404, "Not Found: Session not found or expired")
            elif not stream.pending:  # cancelled by the client: no reply, nothing more owed
                await respond(send, 202, b"", headers)
            return
        retry_ms = self.config.retry_ms
        stream.hold()
        token = None
        if stream.store is not None:
            negotiated = owner.server_session.protocol_version if owner is not None else None
            if (negotiated or version or ASSUMED_VERSION) >= PRIMING_SINCE and await stream.emit(
                None, retry_ms
            ):
                # Only a stream with an id to resume from may be ended early.
                token = STREAM_CLOSER.set(_closer(stream, send, retry_ms))
        try:
            await session.receive_message(message)
        finally:
            if token is not None:
                STREAM_CLOSER.reset(token)
        if not (stream.finished or stream.cut):
            # A call's task runs in the next pass of the event loop, and a quick async tool
            # answers there: worth one pass to send one whole response instead of a start,
            # chunks and an end.
            await asyncio.sleep(0)
        if stream.finished or stream.cut:  # answered (or cut) already: one whole response
            body = stream.unhold(None)
            if stream.cut:
                body += _retry_line(retry_ms)
            await respond(send, 200, body, [*SSE_HEADERS, *headers])
            return
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
        held = stream.unhold(send)
        if held:
            await stream.send_raw(held)
        await stream.wait(receive, self.config.keepalive_seconds)
        await end_response(stream, send)

    @staticmethod
    def _version(
        headers: dict[bytes, bytes], repeated: dict[bytes, int]
    ) -> tuple[str | None, str | None]:
        """The protocol-version header (None when absent), and the refusal if it is bad."""
        raw = headers.get(VERSION_HEADER)
        if raw is None:
            return None, None
        if VERSION_HEADER in repeated:
            return None, _twice(repeated, VERSION_HEADER)
        version = raw.decode("latin-1")
        if version in HANDSHAKE_VERSIONS:
            return version, None
        return None, (
            f"Bad Request: Unsupported protocol version: {version}. "
            f"Supported versions: {_SUPPORTED}"
        )

    async def _named_id(
        self, headers: dict[bytes, bytes], repeated: dict[bytes, int], send: ASGISend
    ) -> str | None:
        """The session id a request names, or None once refused (400 without one, or with
        two: a balancer routing by one may read the other); an id that cannot be one of this
        app's comes back as "" (unknown, so 404)."""
        raw = headers.get(SESSION_HEADER)
        if raw is None:
            await refuse(send, 400, "Bad Request: Missing session ID")
            return None
        if SESSION_HEADER in repeated:
            await refuse(send, 400, _twice(repeated, SESSION_HEADER))
            return None
        return raw.decode("latin-1") if could_be_session_id(raw) else ""

    async def _session(
        self,
        headers: dict[bytes, bytes],
        repeated: dict[bytes, int],
        identity: Any,
        send: ASGISend,
    ) -> HttpSession | None:
        """The request's session, or None once refused (400 without an id, 404 unknown)."""
        session_id = await self._named_id(headers, repeated, send)
        if session_id is None:
            return None
        sessions = self.runtime.sessions
        found = None
        if sessions is not None and session_id:
            try:
                found = await sessions.find(session_id, identity)
            except StoreUnavailable as failure:
                await unavailable(send, failure)
                return None
            except SessionLimitError:
                await _full(send, sessions.max_sessions)
                return None
        if found is None:
            await refuse(send, 404, "Not Found: Session not found or expired")
            return None
        return found

    async def _stateless(
        self,
        scope: Scope,
        receive: ASGIReceive,
        send: ASGISend,
        message: Any,
        body: bytes,
        item: Any,
        version: str | None,
        as_json: bool,
    ) -> None:
        """Serve this one POST on a session lent by the app's pool (see `_hosting.py`)."""
        pool = self.runtime.pool
        assert pool is not None
        identity = scope.get(IDENTITY_KEY)
        lease = await pool.take(identity, era="handshake", version=version or ASSUMED_VERSION)
        session = lease.session
        try:
            session.backlog.frame_size = len(body)
            if not isinstance(item, Request):
                await session.receive_message(message)
                lease.reusable = True
                await respond(send, 202)
                return
            stream = Stream(None, None, sse=not as_json)
            lease.target = stream.write
            lease.on_end = stream.finish
            stream.pending.add(item.id)
            await self._answer(session, None, message, stream, receive, send, version, [])
            lease.reusable = True
        finally:
            pool.give_back(lease)

    async def _get(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        headers, repeated = request_headers(scope)
        if not accepts_sse(headers.get(b"accept")):
            await refuse(send, 406, "Not Acceptable: Client must accept text/event-stream")
            return
        version, bad_version = self._version(headers, repeated)
        if bad_version is None and LAST_EVENT_HEADER in repeated:
            bad_version = _twice(repeated, LAST_EVENT_HEADER)
        if bad_version is not None:
            await refuse(send, 400, bad_version)
            return
        found = await self._session(headers, repeated, scope.get(IDENTITY_KEY), send)
        if found is None:
            return
        config = self.config
        get = GetStream(found, receive, send, config.keepalive_seconds)
        last = headers.get(LAST_EVENT_HEADER)
        await get.serve(self.runtime.event_store, config.retry_ms, last, version)

    async def _delete(self, scope: Scope, send: ASGISend) -> None:
        headers, repeated = request_headers(scope)
        bad_version = self._version(headers, repeated)[1]
        if bad_version is not None:
            await refuse(send, 400, bad_version)
            return
        session_id = await self._named_id(headers, repeated, send)
        if session_id is None:
            return
        sessions = self.runtime.sessions
        ended = False
        if sessions is not None and session_id:
            # Ending a session needs no live copy of it: a process at its session cap still
            # ends a session another process holds.
            try:
                ended = await sessions.end_by_id(session_id, scope.get(IDENTITY_KEY))
            except StoreUnavailable as failure:
                await unavailable(send, failure)
                return
        if not ended:
            await refuse(send, 404, "Not Found: Session not found or expired")
            return
        await respond(send, 200)


def _twice(repeated: dict[bytes, int], name: bytes) -> str:
    """The refusal of a header that holds one value but came more than once."""
    shown = _SHOWN_NAMES[name]
    return f"Bad Request: the request has {repeated[name]} {shown} headers; send one"


async def _full(send: ASGISend, max_sessions: int) -> None:
    """Refuse a session for want of room (503 with `Retry-After`)."""
    await refuse(
        send,
        503,
        f"Service Unavailable: the server holds its maximum of {max_sessions} sessions; "
        "retry later",
        headers=[(b"retry-after", b"5")],
    )


def _retry_line(retry_ms: int | None) -> bytes:
    return b"" if retry_ms is None else b"retry: " + str(retry_ms).encode("ascii") + b"\n\n"


def _closer(stream: Stream, send: ASGISend, retry_ms: int | None) -> Callable[[], Awaitable[None]]:
    """What `ctx.close_sse_stream()` calls for a call carried by `stream` on `send`: end the
    response now (with a `retry` hint); the call's later events are only stored."""

    async def close() -> None:
        if stream.holding:
            stream.cut = True  # the handler ends the response as soon as it may
        elif stream.send_to is send:
            await stream.send_raw(_retry_line(retry_ms))
            stream.detach()

    return close


# -- what a handshake-era request's headers must say ------------------------------------
# Media ranges are compared without their parameters; `*/*` and type wildcards count, as HTTP
# defines them.


def answer_as(accept: bytes | None, json_response: bool) -> str | None:
    """How to answer a POST: "json" (one body), "sse" (a stream), or None (406); with
    `json_response`, JSON only. An event stream when the client names one (`text/event-stream`
    or `text/*`), else JSON if it takes JSON (`*/*` alone gets JSON), else an event stream if
    it takes one."""
    if not accept:
        return "json"
    ranges = media_ranges(accept.decode("latin-1"))
    sse = not json_response and accepts(ranges, SSE_MEDIA)
    if sse and (SSE_MEDIA in ranges or "text/*" in ranges):
        return "sse"
    if accepts(ranges, JSON_MEDIA):
        return "json"
    return "sse" if sse else None


def accepts_sse(accept: bytes | None) -> bool:
    """Whether a GET's `Accept` allows an event stream (a missing one allows anything)."""
    return not accept or accepts(media_ranges(accept.decode("latin-1")), SSE_MEDIA)
