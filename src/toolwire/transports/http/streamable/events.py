"""Resumable SSE streams: events kept under ids (`<stream>/<sequence>`, never issued twice) so a
client can resume with `Last-Event-ID` (`EventStore`; `MemoryEventStore` by default, which
forgets the oldest first). A `LiveEventStore` also lets another process follow a stream live.
See docs/decisions.md, `events.py`."""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import NamedTuple, Protocol, runtime_checkable

__all__ = [
    "EventStore",
    "LiveEventStore",
    "MalformedEventId",
    "MemoryEventStore",
    "ReplaySink",
    "StreamTail",
]

ReplaySink = Callable[[str, bytes], Awaitable[None]]
"""Receives each replayed event: its id and its frame."""

_MAX_SEQUENCE_DIGITS = 20


class MalformedEventId(ValueError):
    """A `Last-Event-ID` that cannot be an id the store issued; the message says what one is."""


@runtime_checkable
class EventStore(Protocol):
    """Where the events of resumable SSE streams are kept."""

    async def store(self, stream_id: str, frame: bytes | None) -> str:
        """Keep one event of `stream_id` (None for a priming event); return its new id."""
        ...

    async def replay_after(self, last_event_id: str, sink: ReplaySink) -> str | None:
        """Hand `sink` every event of the stream `last_event_id` belongs to that came after it.

        Returns:
            That stream's id, or None when the id is unknown (never issued, or forgotten).

        Raises:
            MalformedEventId: The id cannot be one this store issues (optional: a store may
                also return None for it).
        """
        ...


class StreamTail(NamedTuple):
    """What one read of a stream past an event id found (`LiveEventStore.read_tail`)."""

    events: list[tuple[str, bytes]]
    """The events with a frame, in order: (id, frame)."""
    last_id: str | None
    """The id of the last entry read, frames or not (the next read starts after it)."""
    ended: bool
    """The stream's end marker was read: nothing more will come."""
    live: bool
    """Its producer's lease was held when it was read."""


@runtime_checkable
class LiveEventStore(EventStore, Protocol):
    """An event store on which another process can follow a stream while it is produced.

    Attributes:
        wait_seconds: How long one `read_tail` may wait for new events.
        follow_seconds: How long one follower may follow before its response ends (the
            client resumes from its last event id).
        max_followers: Streams one process may follow at once.
        followers: How many it follows now (kept by the followers).
    """

    wait_seconds: float
    follow_seconds: float
    max_followers: int
    followers: int

    def produce(self, stream_id: str) -> None:
        """This process produces `stream_id`: hold its lease until the stream ends."""
        ...

    async def store_last(self, stream_id: str, frame: bytes) -> str:
        """Keep the last event of `stream_id` with its end marker, release its lease; return
        the event's id."""
        ...

    def abandon(self, stream_id: str) -> None:
        """`stream_id` ended without `store_last` (its session closed, or its last write
        failed): store its end marker soon, without waiting here."""
        ...

    async def read_tail(self, last_event_id: str, wait: float | None) -> StreamTail | None:
        """The entries of the id's stream after it, waiting up to `wait` seconds for one
        (None: not at all); None when its stream is gone.

        Raises:
            MalformedEventId: The id cannot be one this store issues.
        """
        ...


class MemoryEventStore:
    """Events in this process's memory, bounded; the default store.

    Args:
        max_events: Events kept across all streams before the oldest are forgotten.
        max_bytes: Bytes of frames kept across all streams before the oldest are forgotten.
    """

    def __init__(self, max_events: int = 10_000, max_bytes: int = 64 * 1024 * 1024) -> None:
        if max_events < 1 or max_bytes < 1:
            raise ValueError("MemoryEventStore: max_events and max_bytes must be at least 1")
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._streams: dict[str, deque[tuple[int, bytes | None]]] = {}
        self._next = 0  # one sequence for every stream: an id is never issued twice
        self._order: deque[str] = deque()  # the stream of each kept event, oldest first
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._order)

    async def store(self, stream_id: str, frame: bytes | None) -> str:
        """Keep one event; return its id."""
        sequence = self._next
        self._next = sequence + 1
        events = self._streams.get(stream_id)
        if events is None:
            events = self._streams[stream_id] = deque()
        events.append((sequence, frame))
        self._order.append(stream_id)
        self._bytes += len(frame) if frame else 0
        while len(self._order) > self.max_events or self._bytes > self.max_bytes:
            oldest = self._order.popleft()
            kept = self._streams[oldest]
            _, dropped = kept.popleft()
            self._bytes -= len(dropped) if dropped else 0
            if not kept:
                del self._streams[oldest]
        return f"{stream_id}/{sequence}"

    async def replay_after(self, last_event_id: str, sink: ReplaySink) -> str | None:
        """Send `sink` the events of the id's stream that followed it.

        Raises:
            MalformedEventId: The id is not `<stream>/<sequence>`.
        """
        stream_id, _, tail = last_event_id.rpartition("/")
        if not (
            stream_id
            and 0 < len(tail) <= _MAX_SEQUENCE_DIGITS
            and tail.isascii()
            and tail.isdigit()
        ):
            raise MalformedEventId(
                "an event id here is <stream>/<sequence>, the sequence a number of at most "
                f"{_MAX_SEQUENCE_DIGITS} digits 0-9"
            )
        after = int(tail)
        if after >= self._next:
            return None  # never issued
        for sequence, frame in list(self._streams.get(stream_id, ())):
            if sequence > after and frame is not None:
                await sink(f"{stream_id}/{sequence}", frame)
        return stream_id
