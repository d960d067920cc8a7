"""The response channel of streamable HTTP (both eras) and legacy SSE: a `Stream` carries the
frames routed to one response (a POST, a GET stream, a legacy SSE stream) as one JSON body, an
SSE stream, or JSON that turns into SSE at the first notice (2026-07-28), and knows the replies
it still owes; a client leaving cancels its request or detaches the stream. Events held before
the response starts are bounded (`HOLD_BYTES`), so a client that does not read slows the tool,
not the server. Serving is asyncio only."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, cast

import anyio

from ...protocol.wire.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    FrameKind,
    RequestId,
    decode,
)
from ._sse import SSE_HEADERS, encode_event
from .asgi import JSON_TYPE, ASGIReceive, ASGISend, respond
from .streamable._mirror import HEADER_MISMATCH
from .streamable.events import EventStore, LiveEventStore
from .streamable.records import StoreUnavailable

__all__ = [
    "ASSUMED_VERSION",
    "JSON_MEDIA",
    "KEEPALIVE",
    "KEEPALIVE_SECONDS",
    "SSE_MEDIA",
    "WATCH_AFTER_SECONDS",
    "Stream",
    "acceptable",
    "accepts",
    "end_answer",
    "end_response",
    "followable",
    "media_ranges",
    "until_disconnect",
]

logger = logging.getLogger("toolwire.http")

JSON_MEDIA = "application/json"
SSE_MEDIA = "text/event-stream"


def media_ranges(accept: str) -> dict[str, float]:
    """The media ranges an `Accept` header lists, lower case and without their parameters,
    each with its quality: its `q` weight, 1 when it has none or one that is not in 0..1."""
    ranges: dict[str, float] = {}
    for part in accept.split(","):
        kind, *parameters = part.split(";")
        kind = kind.strip().lower()
        quality = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 1.0
                if not 0.0 <= quality <= 1.0:  # NaN too
                    quality = 1.0
                break
        if kind:
            ranges[kind] = max(quality, ranges.get(kind, 0.0))
    return ranges


def accepts(ranges: dict[str, float], media: str) -> bool:
    """Whether `ranges` (from `media_ranges`) take `media`: the most specific range naming it
    decides, and `q=0` means "not acceptable" (RFC 9110 section 12.5.1)."""
    for key in (media, media.partition("/")[0] + "/*", "*/*"):
        if key in ranges:
            return ranges[key] > 0.0
    return False


def acceptable(accept: bytes | None, *, sse: bool) -> bool:
    """Whether the client's `Accept` lets it read the answer it may get: JSON always, an event
    stream too with `sse`. A request without `Accept` takes anything (as HTTP says)."""
    if accept is None or not accept.strip():
        return True
    ranges = media_ranges(accept.decode("latin-1"))
    return accepts(ranges, JSON_MEDIA) and (not sse or accepts(ranges, SSE_MEDIA))


KEEPALIVE_SECONDS = 15.0
"""Seconds of silence on an event stream after which a keep-alive comment goes out (the
default of every app; proxies drop idle connections, and a dead peer shows up as a failed
write)."""
WATCH_AFTER_SECONDS = 0.2
"""How long a request waits for its answer before watching for the client's disconnect."""
HOLD_BYTES = 64 * 1024
"""Events held back before the response starts, at most: a task writing past it waits for
the response to start, and from then on each write waits for the connection (uvicorn's flow
control), so a client that does not read slows the tool, not the server."""
BODY_AFTER_BYTES = 64 * 1024
"""Body bytes a client may send on a request whose answer is streaming (a GET should send
none) before it is taken as gone."""
KEEPALIVE = b": keep-alive\n\n"
MAX_KEEPALIVES = 100_000
"""Keep-alive comments one wait sends at most (about 17 days at 15 s)."""


class Stream:
    """One response that frames are routed to.

    Args:
        stream_id: Names it in the event store (None: events get no ids, no replay).
        store: Keeps its events for replay, or None.
        sse: An SSE stream; False collects the replies for one JSON body instead.
        live: Another process may follow it while it runs (a POST stream; the session's
            GET stream never ends on its own and is carried, not followed).
        upgrades: The response `send` of a JSON answer that turns into an SSE stream at the
            first frame that is not a reply, or at the first keep-alive (2026-07-28); None
            keeps the choice `sse` made.
        on_leave: Called when the client leaves (its request is then cancelled); None
            detaches the stream instead, and the call goes on.
    """

    __slots__ = (
        "_held",
        "_held_bytes",
        "_holder",
        "_leased",
        "_live",
        "_on_leave",
        "_started",
        "_waiter",
        "_written",
        "cut",
        "finished",
        "gone",
        "pending",
        "replies",
        "send_to",
        "sse",
        "store",
        "stream_id",
        "upgrades",
    )

    def __init__(
        self,
        stream_id: str | None,
        store: EventStore | None,
        *,
        sse: bool,
        live: bool = True,
        upgrades: ASGISend | None = None,
        on_leave: Callable[[], object] | None = None,
    ) -> None:
        self.stream_id = stream_id
        self.store = store if stream_id is not None else None
        # The store, while others may follow this stream on it and it has not ended there.
        self._live: LiveEventStore | None = None
        if live and sse and store is not None and self.store is not None and followable(store):
            self._live = cast("LiveEventStore", store)
        self._leased = False  # told `_live` that it runs here
        self.sse = sse
        self.pending: set[RequestId] = set()  # the requests whose replies are still owed
        self.replies: list[bytes] = []  # JSON mode: the replies, for the body
        self.finished = False  # every reply sent (or the session ended)
        self.send_to: ASGISend | None = None  # the open SSE response receiving its events
        self._waiter: asyncio.Future[None] | None = None
        self._written = time.monotonic()  # when the connection last got bytes
        self._held: list[bytes] | None = None  # events written before the response starts
        self._held_bytes = 0
        self._holder: asyncio.Task[Any] | None = None  # the task that asked for the hold
        self._started: asyncio.Future[None] | None = None  # tasks past HOLD_BYTES wait on it
        self.cut = False  # a tool ended the stream while it was held
        self.upgrades = upgrades
        self._on_leave = on_leave
        self.gone = False  # the client left and the request was cancelled

    @property
    def holding(self) -> bool:
        """Whether events are held back (the response has not started yet)."""
        return self._held is not None

    def hold(self) -> None:
        """Keep events back until `unhold`: a call answered at once then goes out as one
        complete response instead of a start, several chunks and an end. At most
        `HOLD_BYTES` are held; the holding task itself is never kept waiting."""
        self._held = []
        self._held_bytes = 0
        self._holder = asyncio.current_task()

    def unhold(self, send: ASGISend | None) -> bytes:
        """The events held so far, as one chunk; from now on events go to `send` (if any)."""
        held = self._held or []
        self._held = None
        self._holder = None
        if send is not None and not self.cut:
            self.send_to = send
        started, self._started = self._started, None
        if started is not None and not started.done():
            started.set_result(None)  # the waiting tasks write after the held events
        return b"".join(held)

    def detach(self) -> None:
        """No connection receives the events any more (they are still stored); wakes the
        handler waiting on the stream so it can end its response."""
        self.send_to = None
        self._wake()

    def leave(self) -> None:
        """The client is gone: cancel its request (`on_leave`) or detach the stream."""
        on_leave = self._on_leave
        if on_leave is None:
            self.detach()
            return
        self._on_leave = None
        self.gone = True
        self.send_to = None
        on_leave()
        self._wake()

    async def upgrade(self) -> None:
        """Turn a JSON answer into an SSE stream (once): the response starts now, and events
        written meanwhile wait for it."""
        send = self.upgrades
        if self.sse or send is None or self.gone:
            return
        self.sse = True
        self.hold()
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        except Exception as error:  # the client is gone already
            logger.debug("starting an SSE response failed (%s)", error)
            self.unhold(None)
            self.leave()
            return
        held = self.unhold(send)
        if held:
            await self.send_raw(held)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def finish(self) -> None:
        """Nothing more will come (every reply went out, or the session is gone)."""
        self.finished = True
        live = self._live
        if live is not None and self._leased:  # it stored events, and no end marker yet
            assert self.stream_id is not None
            live.abandon(self.stream_id)
        self._live = None
        self._wake()

    async def write(self, frame: bytes, kind: FrameKind, request_id: RequestId | None) -> bool:
        """Route one frame here; return whether it was the reply to `request_id`."""
        reply = False
        if self.gone or (self.upgrades is not None and self.finished):
            return False  # nothing more goes out
        if kind is FrameKind.REPLY and request_id is not None and request_id in self.pending:
            self.pending.discard(request_id)
            reply = True
        if not reply and self.upgrades is not None and not self.sse:
            await self.upgrade()
        if not self.sse:
            if reply:
                self.replies.append(frame)  # notifications have no place in one JSON body
        else:
            await self.emit(frame, last=reply and not self.pending)
        if reply and not self.pending:
            self.finish()
        return reply

    async def emit(
        self, frame: bytes | None, retry_ms: int | None = None, *, last: bool = False
    ) -> str | None:
        """Store (when resumable) and send one SSE event, `frame` None for a priming event
        (with the `retry_ms` hint, if any), `last` for the stream's last (its end marker goes
        with it); return its id, None when not stored. A failing shared store (it logs why)
        does not fail the stream: the event goes out without an id, a priming event not at all.
        """
        event_id = None
        if self.store is not None:
            assert self.stream_id is not None
            try:
                event_id = await self._store(self.stream_id, frame, last)
            except StoreUnavailable:
                if frame is None:
                    return None
        await self.send_raw(encode_event(frame or b"", event_id, retry_ms))
        return event_id

    async def _store(self, stream_id: str, frame: bytes | None, last: bool) -> str:
        live = self._live
        if live is None:
            assert self.store is not None
            return await self.store.store(stream_id, frame)
        if not self._leased:  # its first event: from now on its lease is held
            live.produce(stream_id)
            self._leased = True
        if last and frame is not None:
            event_id = await live.store_last(stream_id, frame)
            self._live = None
            return event_id
        return await live.store(stream_id, frame)

    async def send_raw(self, chunk: bytes) -> None:
        """Send bytes on the attached connection, if any; a failed write detaches it."""
        held = self._held
        if held is not None:
            if self.cut:  # once cut, events are only stored (a resume replays them)
                return
            if (
                self._held_bytes + len(chunk) <= HOLD_BYTES
                or not held
                or asyncio.current_task() is self._holder
            ):
                held.append(chunk)
                self._held_bytes += len(chunk)
                return
            started = self._started
            if started is None:
                started = self._started = asyncio.get_running_loop().create_future()
            await asyncio.shield(started)
            if self.cut:
                return
        self._written = time.monotonic()
        send = self.send_to
        if send is None:
            return
        try:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except Exception as error:  # the client went away (servers raise various errors)
            logger.debug("SSE write failed (%s); the client is taken as gone", error)
            self.leave()

    async def wait(self, receive: ASGIReceive | None, keepalive: float | None = None) -> None:
        """Until the stream finishes or is detached. The client leaving (seen on `receive`,
        watched only once the wait passes `WATCH_AFTER_SECONDS`: most calls answer sooner)
        detaches the stream or cancels its request (`on_leave`). With `keepalive`, an SSE
        stream (or one that `upgrades`) silent that many seconds gets a comment."""
        if self.finished or self.gone or (self.sse and self.send_to is None):
            return
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        watcher: asyncio.Future[None] | None = None

        def gone(task: asyncio.Future[None]) -> None:
            if not task.cancelled():
                task.exception()  # a failing receive() counts as a disconnect too
                self.leave()

        def watch() -> None:
            nonlocal watcher
            assert receive is not None
            watcher = asyncio.ensure_future(until_disconnect(receive))
            watcher.add_done_callback(gone)

        timer = loop.call_later(WATCH_AFTER_SECONDS, watch) if receive is not None else None
        try:
            if keepalive is None or not (self.sse or self.upgrades is not None):
                await waiter
                return
            sent = 0
            while sent < MAX_KEEPALIVES and not waiter.done():
                quiet = time.monotonic() - self._written
                if quiet < keepalive:
                    done, _pending = await asyncio.wait((waiter,), timeout=keepalive - quiet)
                    if done:
                        return
                    continue
                await self.upgrade()
                if waiter.done():
                    return
                await self.send_raw(KEEPALIVE)
                sent += 1
            if not waiter.done():
                self.detach()  # silent for days: let the client reconnect
        finally:
            if self._waiter is waiter:  # else another connection's wait has begun since
                self._waiter = None
            if timer is not None:
                timer.cancel()
            if watcher is not None and not watcher.done():
                watcher.remove_done_callback(gone)
                watcher.cancel()


def followable(store: EventStore) -> bool:
    """Whether `store` is a `LiveEventStore` (asked for every resumable stream: a look in a
    dict by class, not a protocol check each time)."""
    kind = type(store)
    known = _FOLLOWABLE.get(kind)
    if known is None:
        known = _FOLLOWABLE[kind] = isinstance(store, LiveEventStore)
    return known


_FOLLOWABLE: dict[type, bool] = {}


async def until_disconnect(receive: ASGIReceive) -> None:
    """Until the client has gone (`http.disconnect`), or has sent more than `BODY_AFTER_BYTES`
    of body after what the request was read for (a GET should send none); never returns
    otherwise."""
    # After the body, a server's receive() only returns when the client is gone. Stray empty
    # chunks are skipped, a bounded number of times; then only the waiter decides.
    received = empty = 0
    while empty < 1000:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
        size = len(message.get("body") or b"")
        received += size
        if received > BODY_AFTER_BYTES:
            return
        empty += size == 0
    await anyio.sleep_forever()  # cancelled by the waiter


ASSUMED_VERSION = "2025-03-26"  # the spec's assumption when the version header is absent
PRIMING_SINCE = "2025-11-25"  # SEP-1699: older clients may choke on an event without data


async def end_response(stream: Stream | None, send: ASGISend) -> None:
    """End the SSE response on `send` (the stream itself, if any, may live on, stored or
    resumed)."""
    if stream is not None and stream.send_to is send:
        stream.send_to = None
    try:
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except Exception as error:  # the client is gone already
        logger.debug("ending an SSE response failed (%s)", error)


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

_ERROR_MEMBER = b'"error":{'


async def end_answer(stream: Stream, send: ASGISend) -> None:
    """End a 2026-07-28 answer once its request is done: its JSON reply, with the HTTP status
    its error code calls for (400 for -32700, -32600, -32602, -32020, -32021, -32022; 404 for
    -32601; 200 otherwise, as the SDK), or the end of its SSE stream; 503 when the session
    closed without a reply (cancelled from outside). Nothing once the client is gone."""
    if stream.gone:
        return
    if stream.sse:
        await end_response(stream, send)
    elif stream.replies:
        reply = stream.replies[0]
        status = 200
        if _ERROR_MEMBER in reply:  # a result that holds no such text: no need to decode it
            error = decode(reply).get("error")
            if isinstance(error, dict):
                status = _STATUS_BY_CODE.get(error["code"], 200)
        await respond(send, status, reply, [JSON_TYPE])
    else:
        await respond(send, 503)
