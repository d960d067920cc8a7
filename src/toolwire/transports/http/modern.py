"""The 2026-07-28 protocol era over streamable HTTP: one POST, one exchange, no session.

Each POST carries its whole context (the `_meta` envelope), so it is served by a session of
its own, opened for it and closed with it. The endpoint (http-core) decides the era per
request with `is_modern` and hands modern POSTs to `serve_modern`, which answers them as
plain ASGI from start to end.

How a request is answered:

- Anything but one JSON-RPC request or notification object: 400, -32600.
- A notification: 202, no body (on HTTP the only client notification, cancellation, is the
  closing of a response stream, so nothing is delivered).
- A request is checked before anything runs, in the SDK's order: the envelope's shape
  (-32602), then the headers mirrored from the body (-32020, see `_mirror.py`), then the
  version (-32022); the method itself is the session's to judge (-32601 for one it does not
  serve).
- The answer is JSON when the reply comes before any notification; once a progress or log
  notification of the call (or a listen stream's acknowledgement) arrives, the answer turns
  into an event stream carrying them and then the reply. With `json_response=True` the
  answer is always JSON and those notifications are dropped, except for
  `subscriptions/listen`, which is a stream by nature.
- A call that stays silent for `KEEPALIVE_SECONDS` turns the answer into an event stream
  (when streams are allowed) and gets a comment line every `KEEPALIVE_SECONDS`, so that
  proxies and client timeouts do not cut a slow call or a quiet listen stream.
- A client that goes away cancels the request: the call is cancelled, nothing more is sent.
- Errors answered as JSON carry the spec's HTTP status: 400 for -32700, -32600, -32602,
  -32020, -32021, -32022; 404 for -32601; 200 otherwise (as the SDK).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary, WeakSet

import anyio

from ...protocol import eras
from ...protocol.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    Invalid,
    Notification,
    ProtocolError,
    RequestId,
    classify,
    decode,
    error_message,
)
from . import _mirror
from ._mirror import Headers
from ._replies import JSON_TYPE, refuse, respond
from ._sse import SSE_HEADERS, encode_event

if TYPE_CHECKING:
    from ...protocol.serving import SessionOpener
    from ...protocol.session import ServerSession

__all__ = ["KEEPALIVE_SECONDS", "end_listen_streams", "is_modern", "serve_modern"]

logger = logging.getLogger("toolwire.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

KEEPALIVE_SECONDS = 15.0
"""How long an answer may stay silent before a keep-alive comment (the SDK's interval)."""

MISSING_CLIENT_CAPABILITY = -32021
LISTEN = "subscriptions/listen"

_STATUS_BY_CODE = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    _mirror.HEADER_MISMATCH: 400,
    MISSING_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}

_NOT_ONE_MESSAGE = "Body must be a single JSON-RPC request or notification object"

# How the protocol layer writes frames: a notification begins so, a reply does not.
_NOTIFICATION_HEAD = b'{"jsonrpc":"2.0","method"'
_ERROR_MEMBER = b',"error":{'
_RESULT_MEMBER = b',"result":'

_EMPTY = [(b"content-length", b"0")]
_KEEPALIVE_EVENT = b": keep-alive\n\n"


def is_modern(headers: Headers, message: Any) -> bool:
    """Whether a POST belongs to the 2026-07-28 era.

    The `MCP-Protocol-Version` header decides when it is sent: any value but a handshake-era
    version is modern (an unknown version then gets the modern era's -32022, naming the
    versions served). Without it, a request (other than `initialize`) whose `_meta` carries
    the 2026-07-28 envelope is modern too, and is refused there for the missing header
    (-32020) instead of being taken for a handshake-era request without a session.

    Args:
        headers: The request's headers: the ASGI scope's byte pairs, or a mapping of them
            (byte or text names and values).
        message: The decoded JSON body (any JSON value).
    """
    version = _mirror.header(headers, b"mcp-protocol-version")
    if version:
        return version.strip(" \t") not in eras.HANDSHAKE_VERSIONS
    if not isinstance(message, dict) or message.get("method") in (None, "initialize"):
        return False
    params = message.get("params")
    return isinstance(params, dict) and eras.has_envelope(params)


async def serve_modern(
    scope: Scope,
    receive: Receive,
    send: Send,
    *,
    body: bytes,
    message: Any,
    opener: SessionOpener,
    json_response: bool,
) -> None:
    """Serve one 2026-07-28 POST, from its checks to the last byte of its answer.

    Args:
        scope: The request's ASGI scope (its headers; `toolwire.identity` when authenticated).
        receive: The ASGI receive channel; the body has been read from it already, so it
            now only tells when the client goes away.
        send: The ASGI send channel; nothing has been sent on it yet.
        body: The request body, as received.
        message: The body decoded as JSON.
        opener: Opens the session that serves the request (`routed=True`).
        json_response: Answer with one JSON object even when notifications flow (they are
            then dropped), except for `subscriptions/listen`.
    """
    headers = _mirror.collect(scope.get("headers") or ())
    item = classify(message)
    if isinstance(item, Invalid):
        await refuse(send, 400, _NOT_ONE_MESSAGE)
        return
    streams = item.method == LISTEN or not json_response
    if not _mirror.acceptable(headers.get("accept"), sse=streams):
        wanted = "both application/json and text/event-stream" if streams else "application/json"
        await refuse(send, 406, f"Not Acceptable: Client must accept {wanted}")
        return
    if isinstance(item, Notification):
        await respond(send, 202, headers=_EMPTY)
        return
    refusal = _precheck(headers, item.method, item.params)
    exchange = _Exchange(send, streams=streams, notifications=streams)
    async with _open(opener, scope, exchange.frame) as session:
        session.era = "modern"  # whatever the method: this request has no handshake
        if refusal is None or refusal.code == UNSUPPORTED_PROTOCOL_VERSION:
            try:
                if item.method == "tools/call":
                    _mirror.check_params(headers, session.server.tool_registry, item.params)
            except ProtocolError as error:
                refusal = error
        if refusal is not None:
            exchange.reply = error_message(item.id, refusal.code, refusal.message, refusal.data)
        else:
            await session.receive(body)
            if exchange.reply is None and not exchange.ended:
                if item.method == LISTEN:
                    _LISTENING.add(session)
                await exchange.wait(receive, session)
    await exchange.finish()


# The sessions serving a `subscriptions/listen` stream right now (they leave by themselves).
_LISTENING: WeakSet[ServerSession] = WeakSet()


async def end_listen_streams() -> None:
    """End every open `subscriptions/listen` stream gracefully: each gets its `complete`
    result and its HTTP response ends.

    For a server that is stopping: an ASGI server waits for open responses before it shuts
    down, and a listen stream would otherwise stay open until the client leaves. Call it on
    the serving event loop.
    """
    for session in list(_LISTENING):
        await session.end_streams()


def _precheck(
    headers: Mapping[str, str], method: str, params: dict[str, Any] | None
) -> ProtocolError | None:
    """What refuses a request before it runs, in the SDK's order (see the module docstring);
    None when nothing does."""
    meta = params.get("_meta") if params else None
    unsupported: ProtocolError | None = None
    try:
        if isinstance(meta, dict) and eras.META_VERSION in meta and eras.META_CAPABILITIES in meta:
            # A whole envelope: its version must be the header's before its values count.
            _mirror.check_version(headers, meta[eras.META_VERSION])
        eras.check_envelope(params)
    except ProtocolError as error:
        if error.code != UNSUPPORTED_PROTOCOL_VERSION:
            return error
        unsupported = error  # said only once the headers are found consistent
    try:
        _mirror.check_method(headers, method)
        _mirror.check_name(headers, method, params)
    except ProtocolError as error:
        return error
    if unsupported is None and method == "initialize":
        # Not a 2026-07-28 method: the handshake-era refusal a duplex connection gives
        # (-32022) would tell an HTTP client to retry with another version.
        return ProtocolError(METHOD_NOT_FOUND, "Method not found", method)
    return unsupported


# Which optional arguments each opener takes, found once per opener: `identity` and
# `back_channel` arrive with the security and elicitation work, and a modern request
# passes them whenever the opener knows them.
_OPENER_OPTIONS: WeakKeyDictionary[Any, tuple[bool, bool]] = WeakKeyDictionary()


def _open(
    opener: SessionOpener,
    scope: Scope,
    frame: Callable[[bytes, RequestId | None], Awaitable[None]],
) -> ServerSession:
    options = _OPENER_OPTIONS.get(opener)
    if options is None:
        options = _OPENER_OPTIONS[opener] = _opener_options(opener)
    takes_identity, takes_back_channel = options
    extra: dict[str, Any] = {}
    if takes_identity:
        extra["identity"] = scope.get("toolwire.identity")
    if takes_back_channel:
        extra["back_channel"] = False  # 2026-07-28 has no server-to-client requests
    return opener(frame, routed=True, **extra)


def _opener_options(opener: SessionOpener) -> tuple[bool, bool]:
    try:
        parameters = inspect.signature(opener).parameters
    except (TypeError, ValueError):
        return False, False
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    return (
        takes_any or "identity" in parameters,
        takes_any or "back_channel" in parameters,
    )


class _Exchange:
    """The answer to one request, as its session's frames arrive.

    The reply is kept until the request is done when no stream was started (it becomes a
    JSON body with its status); otherwise every frame is written as an event at once.

    Args:
        send: The ASGI send channel.
        streams: Whether the answer may become an event stream.
        notifications: Whether notifications are delivered (else dropped).
    """

    def __init__(self, send: Send, *, streams: bool, notifications: bool) -> None:
        self._send = send
        self._streams = streams
        self._notifications = notifications
        self.reply: bytes | None = None  # the reply, while no stream is open
        self.streaming = False  # the event-stream answer has started
        self.ended = False  # the stream carried the reply, or the client is gone
        self.gone = False  # the client went away
        self._done = anyio.Event()
        self._lock = anyio.Lock()  # keep-alives and frames never interleave

    async def frame(self, frame: bytes, _request_id: RequestId | None) -> None:
        """Take one frame of the session (every frame of this session is this request's)."""
        if self.ended or self.reply is not None:
            return  # the client is gone, or the answer is complete: nothing more is sent
        if frame.startswith(_NOTIFICATION_HEAD):
            if self._notifications:
                await self._event(frame)
            return
        if self.streaming:
            await self._event(frame)
            await self._close_stream()
        else:
            self.reply = frame
        self._done.set()

    async def wait(self, receive: Receive, session: ServerSession) -> None:
        """Until the reply is in, keep the answer alive and watch for the client leaving."""
        async with anyio.create_task_group() as watchers:
            watchers.start_soon(self._watch, receive, session)
            while not self._done.is_set():
                with anyio.move_on_after(KEEPALIVE_SECONDS if self._streams else None):
                    await self._done.wait()
                if not self._done.is_set():
                    await self._keep_alive()
            watchers.cancel_scope.cancel()

    async def _watch(self, receive: Receive, session: ServerSession) -> None:
        while True:
            message = await receive()
            if message.get("type") == "http.disconnect":
                break
        self.gone = self.ended = True
        self._done.set()
        session.close()  # cancels the call: closing the stream is the cancellation

    async def _keep_alive(self) -> None:
        async with self._lock:
            if self.ended:
                return
            await self._start_stream()
            await self._write(_KEEPALIVE_EVENT)

    async def _event(self, frame: bytes) -> None:
        async with self._lock:
            if self.ended:
                return
            await self._start_stream()
            await self._write(encode_event(frame))

    async def _start_stream(self) -> None:
        if not self.streaming:
            self.streaming = True
            await self._send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})

    async def _write(self, chunk: bytes) -> None:
        try:
            await self._send({"type": "http.response.body", "body": chunk, "more_body": True})
        except OSError:  # the client is gone; the watcher ends the request
            self.gone = self.ended = True

    async def _close_stream(self) -> None:
        async with self._lock:
            if self.ended:
                return
            self.ended = True
            await self._send({"type": "http.response.body", "body": b""})

    async def finish(self) -> None:
        """Complete the answer once the session is closed: the JSON reply, or the end of an
        open stream (a listen stream ended by the client, or a request cut short)."""
        if self.gone:
            return
        if self.reply is not None and not self.streaming:
            await respond(self._send, _status_of(self.reply), self.reply, [JSON_TYPE])
        elif self.streaming and not self.ended:
            await self._close_stream()
        elif not self.streaming:
            # The session closed without a reply (cancelled from outside): say so rather
            # than leaving the client waiting on an empty answer.
            await respond(self._send, 503, headers=_EMPTY)


def _status_of(reply: bytes) -> int:
    """The HTTP status of a JSON reply: 200 for a result, by code for an error."""
    error_at = reply.find(_ERROR_MEMBER)
    result_at = reply.find(_RESULT_MEMBER)
    if error_at < 0 or (0 <= result_at < error_at):
        return 200
    try:
        code = decode(reply)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return 200
    return _STATUS_BY_CODE.get(code, 200)
