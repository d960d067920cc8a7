"""The answer to one 2026-07-28 request: one JSON body, or an event stream, as frames come.

The session serving the request hands every frame it writes to `Answer.frame`. The reply is
kept until the request is done when nothing else came first, and then sent as one JSON body
with the HTTP status its error code calls for (400 for -32700, -32600, -32602, -32020,
-32021, -32022; 404 for -32601; 200 otherwise, as the SDK). A notification first (progress,
a log message, a listen stream's acknowledgement) starts an event stream instead, which
then carries every frame as it comes, the reply last. A request that stays silent gets a
keep-alive comment every `KEEPALIVE_SECONDS` (which also starts the stream), and one whose
client goes away is cancelled.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

import anyio

from ...protocol.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    FrameKind,
    RequestId,
    decode,
)
from ._mirror import HEADER_MISMATCH
from ._replies import JSON_TYPE, respond
from ._sse import SSE_HEADERS, encode_event
from .channel import KEEPALIVE, KEEPALIVE_SECONDS, WATCH_AFTER_SECONDS

if TYPE_CHECKING:
    from ...protocol.session import ServerSession

__all__ = ["KEEPALIVE_SECONDS", "WATCH_AFTER_SECONDS", "Answer"]

logger = logging.getLogger("toolwire.http")

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MISSING_CLIENT_CAPABILITY = -32021

_STATUS_BY_CODE = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}

_ERROR_MEMBER = b',"error":{'
_RESULT_MEMBER = b',"result":'

_EMPTY = [(b"content-length", b"0")]


class Answer:
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

    async def frame(self, frame: bytes, kind: FrameKind, _request_id: RequestId | None) -> None:
        """Take one frame of the session (every frame of this session is this request's)."""
        if self.ended or self.reply is not None:
            return  # the client is gone, or the answer is complete: nothing more is sent
        if kind is not FrameKind.REPLY:
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
        # Most calls answer within moments: only then is a watcher task worth its cost.
        with anyio.move_on_after(min(WATCH_AFTER_SECONDS, KEEPALIVE_SECONDS)):
            await self._done.wait()
        if self._done.is_set():
            return
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
        logger.debug("a 2026-07-28 client went away before its answer ended; request cancelled")
        self.gone = self.ended = True
        self._done.set()
        session.close()  # cancels the call: closing the stream is the cancellation

    async def _keep_alive(self) -> None:
        async with self._lock:
            if self.ended or self._done.is_set():
                return  # the reply came meanwhile: it may still go out as plain JSON
            await self._start_stream()
            await self._write(KEEPALIVE)

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
            if self.reply is not None:  # kept while a keep-alive opened the stream
                await self._event(self.reply)
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
