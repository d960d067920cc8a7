"""GET on the MCP path: the session's standalone stream, or the resumption of a lost stream
(`Last-Event-ID`: the events stored after it are replayed, then a stream still running here is
taken over, one produced by another process followed). One GET at a time takes a stream (409
for a second); a malformed id is 400. See docs/decisions.md, `_resume.py`."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, cast

from .._sse import SSE_HEADERS, encode_event
from ..asgi import ASGIReceive, ASGISend, printable, refuse, unavailable
from ..channel import (
    KEEPALIVE,
    PRIMING_SINCE,
    Stream,
    end_response,
    followable,
    until_disconnect,
)
from .events import MalformedEventId
from .records import StoreUnavailable
from .sessions import is_get_stream

if TYPE_CHECKING:
    from .events import EventStore, LiveEventStore, StreamTail
    from .sessions import HttpSession

__all__ = ["MAX_EVENT_ID_LENGTH", "GetStream"]

logger = logging.getLogger("toolwire.http")

CATCH_UP_PASSES = 100
MAX_READS = 10_000_000
"""Reads one follower makes at most (its lifetime bounds it long before, in practice)."""
MAX_EVENT_ID_LENGTH = 256
"""The longest `Last-Event-ID` taken (toolwire's own ids are under 150 characters)."""

_NOT_RESUMED = 0  # the id names nothing of this session's: open the GET stream instead
_ANSWERED = 1  # the GET is answered
_GOES_ON = 2  # another copy's GET stream was replayed: carry this copy's from here
_ONE_GET = "Conflict: Only one SSE stream is allowed per session"


def _taken(found: HttpSession, stream: Stream) -> bool:
    """Whether a connection receives `stream`, or a GET is about to."""
    return stream.send_to is not None or stream in found.claimed


def _malformed(last: bytes) -> str | None:
    """What makes a `Last-Event-ID` no event id at all, whatever the store; None if nothing."""
    if len(last) > MAX_EVENT_ID_LENGTH:
        return f"{len(last)} bytes long, and an event id is at most {MAX_EVENT_ID_LENGTH}"
    text = last.decode("latin-1")
    if not (text.isascii() and text.isprintable()):
        return "an event id is printable ASCII"
    return None


async def _replayed(store: EventStore, after: str) -> tuple[str | None, list[tuple[str, bytes]]]:
    """What `store` replays after event `after`: its stream's id (None: unknown) and events."""
    events: list[tuple[str, bytes]] = []

    async def keep(event_id: str, frame: bytes) -> None:
        events.append((event_id, frame))

    return await store.replay_after(after, keep), events


class GetStream:
    """One GET of session `found`: the response it sends on `send` while `receive` says
    whether its client is still there."""

    def __init__(
        self, found: HttpSession, receive: ASGIReceive, send: ASGISend, keepalive: float | None
    ) -> None:
        self.found = found
        self.receive = receive
        self.send = send
        self.keepalive = keepalive

    async def serve(
        self,
        store: EventStore | None,
        retry_ms: int | None,
        last: bytes | None,
        version: str | None,
    ) -> None:
        """Serve this GET (`last`: its `Last-Event-ID`) until the client leaves or the session
        ends."""
        found, send = self.found, self.send
        outcome = _NOT_RESUMED
        if last:
            malformed = _malformed(last)
            try:
                if malformed is None and store is not None:
                    outcome = await self.resume(store, last.decode("ascii"))
            except StoreUnavailable as failure:
                await unavailable(send, failure)
                return
            except MalformedEventId as error:
                malformed = str(error)
            if malformed is not None:
                await refuse(
                    send, 400, f"Bad Request: Last-Event-ID '{printable(last)}': {malformed}"
                )
                return
            if outcome == _ANSWERED:
                return
        stream = found.get_stream
        if stream is not None and _taken(found, stream):
            await refuse(send, 409, _ONE_GET)
            return
        if stream is None:
            stream_id = found.new_stream_id(get=True) if store is not None else None
            stream = found.get_stream = Stream(stream_id, store, sse=True, live=False)
        if outcome == _NOT_RESUMED:
            found.claimed.add(stream)
            try:
                await self.start([])
            finally:
                found.claimed.discard(stream)
        stream.send_to = send
        protocol_version = found.server_session.protocol_version
        if stream.store is not None and (protocol_version or version or "") >= PRIMING_SINCE:
            await stream.emit(None, retry_ms)
        await self.carry(stream)

    async def resume(self, store: EventStore, last_event_id: str) -> int:
        """Replay and take over the stream `last_event_id` belongs to.

        Raises:
            StoreUnavailable: The event store failed (nothing was sent).
        """
        found, send = self.found, self.send
        first: list[tuple[str, bytes]] = []
        tail: StreamTail | None = None
        live = cast("LiveEventStore", store) if followable(store) else None
        if live is not None:
            tail = await live.read_tail(last_event_id, None)
            stream_id = last_event_id.rpartition("/")[0] if tail is not None else None
            first = tail.events if tail is not None else []
        else:
            stream_id, first = await _replayed(store, last_event_id)
        if stream_id is None or not found.owns(stream_id):
            return _NOT_RESUMED
        target = found.streams.get(stream_id)
        if target is None and found.get_stream is not None:
            target = found.get_stream if found.get_stream.stream_id == stream_id else None
        foreign = target is None and not found.made(stream_id)
        if (
            live is not None
            and live.max_followers > 0
            and foreign
            and tail is not None
            and tail.live
            and not tail.ended
            and not is_get_stream(stream_id)
        ):
            await self.follow_elsewhere(live, tail, last_event_id)
            return _ANSWERED
        if foreign and is_get_stream(stream_id):
            target = found.get_stream
            if target is not None and _taken(found, target):
                await refuse(send, 409, _ONE_GET)
                return _ANSWERED
        elif foreign and not first:
            await refuse(
                send,
                409,
                f"Conflict: stream {stream_id} was carried by another server process and "
                f"nothing was stored on it after {last_event_id}; that process may be gone: "
                "retry the request",
            )
            return _ANSWERED
        elif target is not None and _taken(found, target):
            await refuse(send, 409, "Conflict: this stream is already being received")
            return _ANSWERED
        if target is not None:
            found.claimed.add(target)
        try:
            await self.start(first)
            if foreign and is_get_stream(stream_id):
                return _GOES_ON
            if target is None:  # finished, or another process's: everything stored is replayed
                await end_response(None, send)
                return _ANSWERED
            seen = first[-1][0] if first else last_event_id
            for _ in range(CATCH_UP_PASSES):  # what was stored on it meanwhile
                later = (await _replayed(store, seen))[1]
                if not later:
                    break
                await _send_events(send, later)
                seen = later[-1][0]
        finally:
            if target is not None:
                found.claimed.discard(target)
        if target.finished:
            await end_response(None, send)
        else:
            await self.carry(target)
        return _ANSWERED

    async def follow_elsewhere(self, live: LiveEventStore, tail: StreamTail, after: str) -> None:
        """Replay `tail`, then follow the stream another process writes (503 at
        `max_followers`)."""
        if live.followers >= live.max_followers:
            await refuse(
                self.send,
                503,
                f"Service Unavailable: this process already follows {live.max_followers} "
                "streams of other processes; retry shortly",
                headers=[(b"retry-after", b"1")],
            )
            return
        live.followers += 1
        try:
            await self.start(tail.events)
            await self.follow(live, tail.last_id or after)
        finally:
            live.followers -= 1
        await end_response(None, self.send)

    async def follow(self, store: LiveEventStore, after: str) -> None:
        """Pass on the events stored after `after` as they come, until the stream ends, its
        producer stops renewing its lease, the client or session goes, `follow_seconds` pass
        or the store fails."""
        found, send, keepalive = self.found, self.send, self.keepalive
        stream_id = after.rpartition("/")[0]
        watcher = asyncio.ensure_future(until_disconnect(self.receive))
        started = quiet_since = time.monotonic()
        seen = after
        try:
            for _ in range(MAX_READS):
                now = time.monotonic()
                if watcher.done() or found.ended or now - started > store.follow_seconds:
                    logger.debug(
                        "stream %s: follower stops (client, session or lifetime)", stream_id
                    )
                    return
                found.last_seen = now  # a followed stream keeps its session from idling out
                tail = await store.read_tail(seen, store.wait_seconds)
                if tail is None:  # its events expired
                    return
                if tail.ended:
                    await _pass_on(tail, send)
                    return
                if not tail.live:
                    # Between the read and the lease check, the producer may have ended the
                    # stream (the end marker goes before the lease): read once more to know.
                    if await _pass_on(tail, send):
                        seen = tail.last_id or seen
                    last = await store.read_tail(seen, None)
                    if last is not None:
                        await _pass_on(last, send)
                    if last is None or not last.ended:
                        logger.warning(
                            "stream %s: its producer (another process) stopped renewing its "
                            "lease without ending it (killed, frozen or cut off from Redis); "
                            "its resumed response ends after event %s",
                            stream_id,
                            (last.last_id if last is not None else None) or seen,
                        )
                    return
                if await _pass_on(tail, send):
                    seen = tail.last_id or seen
                    quiet_since = time.monotonic()
                elif keepalive is not None and time.monotonic() - quiet_since >= keepalive:
                    await _write(send, KEEPALIVE)
                    quiet_since = time.monotonic()
        except StoreUnavailable:  # logged by the store
            return
        except _WriteFailed as failure:
            logger.debug("stream %s: follower stops, the client is gone (%s)", stream_id, failure)
            return
        finally:
            watcher.cancel()

    async def start(self, first: list[tuple[str, bytes]]) -> None:
        """Start the response, with the events `first` replays."""
        session_header = (b"mcp-session-id", self.found.id.encode("ascii"))
        await self.send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*SSE_HEADERS, session_header],
            }
        )
        await _send_events(self.send, first)

    async def carry(self, stream: Stream) -> None:
        """Carry `stream` until the client leaves or the stream or session ends."""
        stream.send_to = self.send
        await stream.wait(self.receive, self.keepalive)
        self.found.last_seen = time.monotonic()
        await end_response(stream, self.send)


class _WriteFailed(Exception):
    """A write to the client failed: it is gone."""


async def _write(send: ASGISend, body: bytes) -> None:
    try:
        await send({"type": "http.response.body", "body": body, "more_body": True})
    except Exception as error:  # ASGI servers raise various errors for a closed connection
        raise _WriteFailed(repr(error)) from error


async def _pass_on(tail: StreamTail, send: ASGISend) -> bool:
    """Send the events of `tail`; whether it read any entry at all."""
    await _send_events(send, tail.events)
    return tail.last_id is not None


async def _send_events(send: ASGISend, events: list[tuple[str, bytes]]) -> None:
    for event_id, frame in events:
        await _write(send, encode_event(frame, event_id))
