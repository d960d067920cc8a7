"""Answering one JSON-RPC request over streamable HTTP: one JSON body, or an SSE stream.

The request goes to its session, and what the session routes back for it (`_streams.py`) becomes
the response. On an SSE stream, a client on 2025-11-25 or later whose session keeps events first
gets a priming event (an id, empty data, `retry`), so that a tool may end the stream early
(`ctx.close_sse_stream()`) and the client resume with `Last-Event-ID`. A quick call goes out as
one whole response with a `Content-Length`; a slow one streams its progress and logs, then its
reply, with keep-alive comments during long silences. A client that leaves detaches the stream
and the call goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from ...protocol.reporter import STREAM_CLOSER
from ._replies import JSON_TYPE, ASGISend, refuse, respond
from ._sse import SSE_HEADERS
from ._streams import Stream

if TYPE_CHECKING:
    from ...protocol.jsonrpc import Request
    from ...protocol.session import ServerSession
    from .events import EventStore
    from .sessions import HttpSession

__all__ = ["ASSUMED_VERSION", "Answering", "answer"]

logger = logging.getLogger("toolwire.http")

ASGIReceive = Callable[[], Awaitable[MutableMapping[str, Any]]]

ASSUMED_VERSION = "2025-03-26"  # the spec's assumption when the version header is absent
PRIMING_SINCE = "2025-11-25"  # SEP-1699: older clients may choke on an event without data


class Answering:
    """How requests are answered (fixed per app)."""

    __slots__ = ("keepalive_seconds", "retry_ms", "store")

    def __init__(
        self,
        *,
        store: EventStore | None,
        retry_ms: int | None,
        keepalive_seconds: float | None,
    ) -> None:
        self.store = store
        self.retry_ms = retry_ms
        self.keepalive_seconds = keepalive_seconds


async def answer(
    session: ServerSession,
    owner: HttpSession | None,
    item: Request,
    message: Any,
    receive: ASGIReceive,
    send: ASGISend,
    headers: list[tuple[bytes, bytes]],
    version: str | None,
    config: Answering,
    stream: Stream | None = None,
    *,
    as_json: bool,
) -> None:
    """Hand `message` (a request) to `session`; answer with what it routes back.

    Args:
        session: The protocol session serving the request.
        owner: Its HTTP session (None in stateless mode: no resumption, no routes kept).
        item: The request.
        message: The decoded body, as the session takes it.
        receive: The request's ASGI receive (to notice the client leaving).
        send: The request's ASGI send.
        headers: Extra response headers (the session id).
        version: The protocol-version header, if any.
        config: How to answer.
        stream: The stream the session already routes this request to (stateless mode).
        as_json: Answer with one JSON body (the app's choice, or all the client accepts).
    """
    store = config.store if owner is not None else None
    if stream is None:
        stream_id = owner.new_stream_id() if store is not None and owner else None
        stream = Stream(stream_id, store, sse=not as_json)
        if owner is not None:
            owner.routes[item.id] = stream
            if stream_id is not None:
                owner.streams[stream_id] = stream
    stream.owe(item.id)
    if as_json:
        await session.receive_message(message)
        await stream.wait(receive)
        if stream.replies:
            await respond(send, 200, stream.replies[0], [JSON_TYPE, *headers])
        elif owner is not None and owner.ended:
            await refuse(send, 404, "Not Found: Session not found or expired")
        elif not stream.pending:  # cancelled by the client: no reply, nothing more owed
            await respond(send, 202, b"", headers)
        return
    stream.hold()
    token = None
    if stream.store is not None:
        negotiated = owner.protocol_version if owner is not None else None
        if (negotiated or version or ASSUMED_VERSION) >= PRIMING_SINCE and await stream.emit(
            None, config.retry_ms
        ):
            # Only a stream with an id to resume from may be ended early.
            token = STREAM_CLOSER.set(_closer(stream, send, config.retry_ms))
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
            body += _retry_line(config.retry_ms)
        await respond(send, 200, body, [*SSE_HEADERS, *headers])
        return
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
    held = stream.unhold(send)
    if held:
        await stream.send_raw(held)
    await stream.wait(receive, config.keepalive_seconds)
    await _end_response(stream, send)


def _retry_line(retry_ms: int | None) -> bytes:
    return b"" if retry_ms is None else b"retry: " + str(retry_ms).encode("ascii") + b"\n\n"


def _closer(stream: Stream, send: ASGISend, retry_ms: int | None) -> Callable[[], Awaitable[None]]:
    """What `ctx.close_sse_stream()` calls for a call carried by `stream` on `send`: end the
    response now (with a `retry` hint); the call's later events are only stored."""

    async def close() -> None:
        if stream.holding:
            stream.cut = True  # the handler ends the response as soon as it may
        elif stream.is_sending_to(send):
            await stream.send_raw(_retry_line(retry_ms))
            stream.detach()

    return close


async def _end_response(stream: Stream, send: ASGISend) -> None:
    """End the SSE response on `send` (the stream itself may live on, stored or resumed)."""
    if stream.is_sending_to(send):
        stream.release()
    try:
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except Exception as error:  # the client is gone already
        logger.debug("ending an SSE response failed (%s)", error)
