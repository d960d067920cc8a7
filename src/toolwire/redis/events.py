"""`RedisEventStore`: the events of resumable SSE streams in Redis, resumable on any process.

Each SSE stream is the Redis stream `<prefix>:events:<stream id>`, an event id is
`<stream id>/<Redis entry id>`, and while its producer runs the stream holds a lease,
`<prefix>:live:<stream id>`, which its followers on other processes watch; an entry without a
frame is a priming event or, with the `END` field, the stream's end marker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import TYPE_CHECKING, Any

from ..errors import check_count, check_seconds
from ..transports.http.streamable.events import MalformedEventId, StreamTail
from ..transports.http.streamable.records import StoreUnavailable
from ._link import DEFAULT_TIMEOUT, RedisLink, RedisStore

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from ..transports.http.streamable.events import ReplaySink

__all__ = ["RedisEventStore"]

logger = logging.getLogger("toolwire.http")

STORE = "Redis event store"
_ENTRY_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")
_ENTRY_PART_LIMIT = 2**64  # each part of a Redis stream entry id is an unsigned 64-bit number
_FRAME = b"f"
_PRIMING = b"p"
END = b"e"
_END_ATTEMPTS = 3  # tries at an abandoned stream's end marker; then its lease lapses alone
_FLUSH_SECONDS = 1.0  # what closing the store waits, at most, for the pending end markers


class RedisEventStore(RedisStore):
    """SSE events in Redis, bounded per stream and in time (`toolwire[redis]`).

    Pass it as `Server.http_app(event_store=...)` in every process serving one MCP URL (or use
    `RedisBackplane`). Storing an event costs one round trip to Redis before it is sent.

    Args:
        url: The Redis URL (`redis://127.0.0.1:6379/0`).
        prefix: Starts every key this store writes.
        max_events_per_stream: Events kept per stream (older ones are trimmed).
        ttl: Seconds a stream's events are kept after its last, and one follower follows it.
        timeout: Seconds an operation may take.
        link: A `RedisLink` to share with other stores (then `url` and `timeout` are its).
        lease: Seconds without renewal after which a stream's producer counts as dead.
        max_followers: Other processes' streams followed at once, each on a Redis connection
            (503 beyond; 0: never follow).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolwire",
        max_events_per_stream: int = 1000,
        ttl: float = 3600.0,
        timeout: float = DEFAULT_TIMEOUT,
        link: RedisLink | None = None,
        lease: float = 6.0,
        max_followers: int = 100,
    ) -> None:
        check_count("max_events_per_stream", max_events_per_stream, 1)
        check_seconds("ttl", ttl)
        check_seconds("lease", lease)
        check_count("max_followers", max_followers, 0)
        super().__init__(url, prefix=prefix, timeout=timeout, link=link)
        self.max_events_per_stream = max_events_per_stream
        self.ttl = ttl
        self._ttl_ms = max(1, int(ttl * 1000))
        self.lease = lease
        self.max_followers = max_followers
        self.followers = 0
        self.follow_seconds = ttl
        # A blocked read must end well within the link's bound on one operation.
        self.wait_seconds = min(1.0, self.link.timeout / 2)
        # The leases of the streams produced here (a lapsed one tells a follower its producer
        # is dead), renewed by one task, which also writes the end markers of abandoned streams.
        self._lease_ms = max(1, int(lease * 1000))
        self._running: set[str] = set()  # streams produced here, not ended yet
        self._unleased: set[str] = set()  # running, but their lease is not set yet
        self._ending: dict[str, int] = {}  # abandoned streams -> attempts at their end marker
        self._renewer: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def _stream_key(self, stream_id: str) -> str:
        return f"{self.prefix}:events:{stream_id}"

    def _lease_key(self, stream_id: str) -> str:
        return f"{self.prefix}:live:{stream_id}"

    async def store(self, stream_id: str, frame: bytes | None) -> str:
        """Keep one event of `stream_id` (None: a priming event); return its id.

        Raises:
            StoreUnavailable: Redis failed or did not answer in time.
        """
        return await self._add(stream_id, frame, last=False)

    async def store_last(self, stream_id: str, frame: bytes) -> str:
        """Keep the last event of `stream_id` and its end marker, and drop its lease, in one
        round trip; return the event's id.

        Raises:
            StoreUnavailable: Redis failed or did not answer in time (`abandon` ends it).
        """
        event_id = await self._add(stream_id, frame, last=True)
        self._running.discard(stream_id)
        self._unleased.discard(stream_id)
        return event_id

    async def _add(self, stream_id: str, frame: bytes | None, *, last: bool) -> str:
        key = self._stream_key(stream_id)
        fields: dict[Any, Any] = {_PRIMING: b""} if frame is None else {_FRAME: frame}
        lease = not last and stream_id in self._unleased
        self._unleased.discard(stream_id)

        async def add(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                pipe.xadd(key, fields, maxlen=self.max_events_per_stream, approximate=False)
                pipe.pexpire(key, self._ttl_ms)
                if lease:
                    pipe.set(self._lease_key(stream_id), b"1", px=self._lease_ms)
                if last:
                    self._end_commands(pipe, stream_id, expire=False)
                return await pipe.execute()

        try:
            entry = (await self.link.call(STORE, f"store an event of stream {stream_id}", add))[0]
        except StoreUnavailable:
            if lease:
                self._unleased.add(stream_id)  # the next event tries again
            raise
        return f"{stream_id}/{_text(entry)}"

    def produce(self, stream_id: str) -> None:
        """This process produces `stream_id`: its first stored event sets its lease, which
        is renewed in the background until the stream ends."""
        self._running.add(stream_id)
        self._unleased.add(stream_id)
        self._ensure_renewer()

    def abandon(self, stream_id: str) -> None:
        """`stream_id` stopped without a last event: its end marker is written in the background."""
        if stream_id not in self._running:
            return
        self._running.discard(stream_id)
        self._unleased.discard(stream_id)
        self._ending[stream_id] = 0
        self._ensure_renewer()
        self._wake.set()

    async def replay_after(self, last_event_id: str, sink: ReplaySink) -> str | None:
        """Hand `sink` the events of the id's stream that followed it.

        Returns:
            The stream's id, or None when its stream is gone.

        Raises:
            MalformedEventId: The id is not `<stream>/<Redis entry id>`.
            StoreUnavailable: Redis failed or did not answer in time.
        """
        tail = await self.read_tail(last_event_id, None)
        if tail is None:
            return None
        for event_id, frame in tail.events:
            await sink(event_id, frame)
        return _parts(last_event_id)[0]

    async def read_tail(self, last_event_id: str, wait: float | None) -> StreamTail | None:
        """The entries of the id's stream after it, and whether its producer holds its lease;
        with `wait`, waits that long (at most `wait_seconds`) for an entry.

        Returns:
            None when (without `wait`) its stream is gone.

        Raises:
            MalformedEventId: The id is not `<stream>/<Redis entry id>`.
            StoreUnavailable: Redis failed or did not answer in time.
        """
        stream_id, entry = _parts(last_event_id)
        key = self._stream_key(stream_id)
        lease_key = self._lease_key(stream_id)
        block = None if wait is None else max(1, int(min(wait, self.wait_seconds) * 1000))

        async def read(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                if block is None:
                    pipe.exists(key)
                    pipe.xrange(key, min=f"({entry}", max="+")
                else:
                    pipe.xread({key: entry}, count=self.max_events_per_stream, block=block)
                pipe.exists(lease_key)
                return await pipe.execute()

        replies = await self.link.call(STORE, f"follow stream {stream_id}", read)
        if block is None:
            exists, entries, leased = replies
            if not exists:
                return None
        else:
            found, leased = replies
            entries = _entries_of(found)
        events: list[tuple[str, bytes]] = []
        last_id = None
        ended = False
        for entry_id, fields in entries:
            last_id = f"{stream_id}/{_text(entry_id)}"
            frame = fields.get(_FRAME)
            if frame is not None:
                events.append((last_id, bytes(frame)))
            elif END in fields:
                ended = True
        return StreamTail(events, last_id, ended, bool(leased))

    def _end_commands(self, pipe: Any, stream_id: str, *, expire: bool = True) -> None:
        """Queue on `pipe` what ends `stream_id`: its end marker, its expiry (unless the
        pipeline set it already), no lease."""
        key = self._stream_key(stream_id)
        pipe.xadd(key, {END: b""}, maxlen=self.max_events_per_stream, approximate=False)
        if expire:
            pipe.pexpire(key, self._ttl_ms)
        pipe.delete(self._lease_key(stream_id))

    def _ensure_renewer(self) -> None:
        task = self._renewer
        loop = asyncio.get_running_loop()
        if task is None or task.done() or task.get_loop() is not loop:
            self._wake = asyncio.Event()
            self._renewer = loop.create_task(self._renew())

    async def _renew(self) -> None:
        """Renew and end, until nothing runs here (bounded: each pass sleeps or ends one)."""
        while self._running or self._ending:
            if not self._ending:
                with contextlib.suppress(TimeoutError):  # time to renew
                    async with asyncio.timeout(self.lease / 3):
                        await self._wake.wait()
            self._wake.clear()
            await self._renew_and_end()

    async def _renew_and_end(self) -> None:
        ending = self._ending
        self._ending = {}
        renewing = list(self._running - self._unleased)
        if not ending and not renewing:
            return

        async def write(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                for stream_id in ending:
                    self._end_commands(pipe, stream_id)
                for stream_id in renewing:
                    pipe.set(self._lease_key(stream_id), b"1", px=self._lease_ms)
                return await pipe.execute()

        what = f"renew {len(renewing)} stream leases and end {len(ending)} streams"
        try:
            await self.link.call(STORE, what, write)
        except StoreUnavailable:  # logged by the link; a lapsed lease ends a follower anyway
            for stream_id, attempts in ending.items():
                if attempts + 1 < _END_ATTEMPTS:
                    self._ending[stream_id] = attempts + 1
        except asyncio.CancelledError:  # the store is closing: `close` writes them
            self._ending.update(ending)
            raise

    async def close(self) -> None:
        """Stop renewing, write the end markers still pending (briefly), close the connections."""
        task, self._renewer = self._renewer, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self._ending:
            try:
                async with asyncio.timeout(_FLUSH_SECONDS):
                    await self._renew_and_end()
            except TimeoutError:
                logger.debug("the end markers of %d streams were not written", len(self._ending))
        self._ending.clear()
        await super().close()


def _text(value: Any) -> str:
    return value.decode("ascii") if isinstance(value, bytes) else str(value)


def _parts(event_id: str) -> tuple[str, str]:
    """The stream and the Redis entry an event id names (checked: Redis would fail on it)."""
    stream_id, _, entry = event_id.rpartition("/")
    parts = _ENTRY_ID.fullmatch(entry)
    if not stream_id or parts is None or any(int(p) >= _ENTRY_PART_LIMIT for p in parts.groups()):
        raise MalformedEventId(
            "an event id here is <stream>/<entry>, the entry a Redis stream entry id "
            "(two numbers below 2**64 joined by '-', such as 1700000000000-0)"
        )
    return stream_id, entry


def _entries_of(found: Any) -> list[Any]:
    """The entries of the one stream an XREAD asked for (RESP2: a list of [key, entries];
    RESP3: a mapping of key to entries; nothing new: empty)."""
    if not found:
        return []
    if isinstance(found, dict):
        return list(next(iter(found.values()), []))
    return list(found[0][1])
