"""Following, live, a stream another process is still producing: resuming a POST stream whose call
runs on another process sharing the event store.

After the replay (`_resume.py`), the GET's response passes on each event the producer stores,
read from the shared store as it comes, until the stream's end marker, the producer's lease
lapsing without one (logged at WARNING; the response just ends), the client leaving, the session
ending here, the follower's `follow_seconds` running out (the client resumes from its last event
id, losing nothing) or the store failing. Each follower holds one Redis connection while it
waits; `reserve` bounds how many run at once (`max_followers`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from .._sse import encode_event
from ..channel import KEEPALIVE, ASGIReceive, until_disconnect
from .records import StoreUnavailable

if TYPE_CHECKING:
    from ..channel import ASGISend
    from .events import LiveEventStore, StreamTail
    from .sessions import HttpSession

__all__ = ["follow", "release", "reserve"]

logger = logging.getLogger("toolwire.http")

MAX_READS = 10_000_000
"""Reads one follower makes at most (its lifetime bounds it long before, in practice)."""


def reserve(store: LiveEventStore) -> bool:
    """Take a follower slot of this process; False when all `max_followers` are taken."""
    if store.followers >= store.max_followers:
        return False
    store.followers += 1
    return True


def release(store: LiveEventStore) -> None:
    """Give back the slot `reserve` took."""
    store.followers = max(0, store.followers - 1)


async def follow(
    store: LiveEventStore,
    found: HttpSession,
    after: str,
    receive: ASGIReceive,
    send: ASGISend,
    keepalive: float | None,
) -> None:
    """Pass on the events stored after event `after` as they come, on an SSE response
    already started, until the stream ends (see the module's docstring); the caller ends
    the response.

    Args:
        store: The shared store the producer writes to.
        found: The session the stream belongs to (this process's copy).
        after: The id of the last event the client has.
        receive: The GET's receive, to notice the client leaving.
        send: The GET's send.
        keepalive: Seconds of silence after which a comment goes out (None: never).
    """
    stream_id = after.rpartition("/")[0]
    watcher = asyncio.ensure_future(until_disconnect(receive))
    started = quiet_since = time.monotonic()
    seen = after
    try:
        for _ in range(MAX_READS):
            now = time.monotonic()
            if watcher.done() or found.ended or now - started > store.follow_seconds:
                logger.debug(
                    "stream %s: follower stops (%s)",
                    stream_id,
                    "client gone"
                    if watcher.done()
                    else "session ended"
                    if found.ended
                    else "lifetime reached",
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
                        "stream %s: its producer (another process) stopped renewing its lease "
                        "without ending it (killed, frozen or cut off from Redis); its "
                        "resumed response ends after event %s",
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


class _WriteFailed(Exception):
    """A write to the client failed: it is gone."""


async def _write(send: ASGISend, body: bytes) -> None:
    try:
        await send({"type": "http.response.body", "body": body, "more_body": True})
    except Exception as error:  # ASGI servers raise various errors for a closed connection
        raise _WriteFailed(repr(error)) from error


async def _pass_on(tail: StreamTail, send: ASGISend) -> bool:
    """Send the events of `tail`; whether it read any entry at all."""
    for event_id, frame in tail.events:
        await _write(send, encode_event(frame, event_id))
    return tail.last_id is not None
