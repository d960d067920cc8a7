"""The 2026-07-28 protocol era over streamable HTTP: one POST, one exchange, on a session lent by
the app's `SessionPool`. A request is checked (envelope -32602, mirrored headers -32020, version
-32022) before it runs; a notification is 202. See docs/decisions.md, `modern.py`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ....protocol.wire import eras
from ....protocol.wire.jsonrpc import (
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    Notification,
    ProtocolError,
    Request,
    classify,
    error_message,
)
from ..asgi import ASGIReceive, ASGISend, Scope, refuse, request_headers, respond
from ..channel import Stream, acceptable, end_answer
from ..security.auth import IDENTITY_KEY
from . import _mirror

if TYPE_CHECKING:
    from ._hosting import SessionPool

__all__ = ["serve_modern"]

LISTEN = "subscriptions/listen"

_NOT_ONE_MESSAGE = "Body must be a single JSON-RPC request or notification object"


async def serve_modern(
    scope: Scope,
    receive: ASGIReceive,
    send: ASGISend,
    *,
    body: bytes,
    message: Any,
    pool: SessionPool,
    json_response: bool,
    keepalive_seconds: float | None,
) -> None:
    """Serve one 2026-07-28 POST whose `body` was read (`message` decoded), from its checks to
    the last byte of its answer."""
    headers, repeated = request_headers(scope)
    item = classify(message)
    if not isinstance(item, Request | Notification):  # invalid, or a response to nothing
        await refuse(send, 400, _NOT_ONE_MESSAGE)
        return
    streams = item.method == LISTEN or not json_response
    if not acceptable(headers.get(b"accept"), sse=streams):
        wanted = "both application/json and text/event-stream" if streams else "application/json"
        await refuse(send, 406, f"Not Acceptable: Client must accept {wanted}")
        return
    if isinstance(item, Notification):
        await respond(send, 202)
        return
    refusal = _precheck(headers, repeated, item.method, item.params)
    identity = scope.get(IDENTITY_KEY)
    lease = await pool.take(identity, era="modern")
    session = lease.session
    stream = Stream(
        None, None, sse=False, upgrades=send if streams else None, on_leave=session.close
    )
    stream.pending.add(item.id)
    lease.target = stream.write
    lease.on_end = stream.finish
    try:
        if refusal is None or refusal.code == UNSUPPORTED_PROTOCOL_VERSION:
            try:
                if item.method == "tools/call":
                    _mirror.check_params(headers, session.tools, item.params, repeated)
            except ProtocolError as error:
                refusal = error
        if refusal is not None:
            stream.replies.append(
                error_message(item.id, refusal.code, refusal.message, refusal.data)
            )
        else:
            session.backlog.frame_size = len(body)
            await session.receive_message(message)
            if not (stream.finished or stream.gone):
                if item.method == LISTEN:
                    lease.listening = True  # its pool ends the stream when the app stops
                await stream.wait(receive, keepalive_seconds)
        lease.reusable = not stream.gone and item.method != LISTEN
    finally:
        pool.give_back(lease)
    await end_answer(stream, send)


def _precheck(
    headers: Mapping[bytes, bytes],
    repeated: Mapping[bytes, int],
    method: str,
    params: dict[str, Any] | None,
) -> ProtocolError | None:
    """What refuses a request before it runs, in the SDK's order; None when nothing does."""
    meta = params.get("_meta") if params else None
    unsupported: ProtocolError | None = None
    try:
        _mirror.check_once(repeated)
    except ProtocolError as error:
        return error
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
