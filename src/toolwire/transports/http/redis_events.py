"""`RedisEventStore`: the events of resumable SSE streams in Redis, so that a client whose
stream broke resumes it with `Last-Event-ID` on whichever process its reconnection reaches.

Layout: one Redis stream per SSE stream, `<prefix>:events:<stream id>`. An event id is
`<stream id>/<entry id>`, the entry id being the one Redis gave (`<ms>-<n>`, increasing within
the stream), so an id names its stream and replaying after it is one `XRANGE` from that
entry, exclusive. Each event is one `XADD` (trimming the stream to `max_events_per_stream`)
and one `PEXPIRE` (the whole stream lapses `ttl` seconds after its last event), in one round
trip.

A priming event (`None`) is stored as an entry with no frame: it has an id to resume from and
replays as nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ._redis_link import DEFAULT_TIMEOUT, RedisLink

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from .events import ReplaySink

__all__ = ["RedisEventStore"]

STORE = "Redis event store"
_ENTRY_ID = re.compile(r"\d{1,20}-\d{1,20}")
_FRAME = b"f"
_PRIMING = b"p"


class RedisEventStore:
    """SSE events in Redis, bounded per stream and in time (`toolwire[redis]`).

    Pass it as `Server.http_app(event_store=...)` in every process serving one MCP URL (or use
    `RedisBackplane`). Storing an event costs one round trip to Redis before it is sent.

    Args:
        url: The Redis URL (`redis://127.0.0.1:6379/0`).
        prefix: Starts every key this store writes.
        max_events_per_stream: Events kept per stream; older ones are trimmed (a client away
            that long resumes with a gap).
        ttl: Seconds a stream's events are kept after its last event.
        timeout: Seconds an operation may take.
        link: A `RedisLink` to share with other stores (then `url` and `timeout` are its).
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
    ) -> None:
        if isinstance(max_events_per_stream, bool) or max_events_per_stream < 1:
            raise ValueError(
                f"max_events_per_stream must be an integer >= 1, not {max_events_per_stream!r}"
            )
        if not ttl > 0:
            raise ValueError(f"ttl must be a number of seconds > 0, not {ttl!r}")
        self.link = link if link is not None else RedisLink(url, timeout=timeout)
        self.prefix = prefix
        self.max_events_per_stream = max_events_per_stream
        self.ttl = ttl

    def _key(self, stream_id: str) -> str:
        return f"{self.prefix}:events:{stream_id}"

    async def store(self, stream_id: str, frame: bytes | None) -> str:
        """Keep one event of `stream_id` (None: a priming event); return its id.

        Raises:
            StoreUnavailable: Redis failed or did not answer in time.
        """
        key = self._key(stream_id)
        fields: dict[Any, Any] = {_PRIMING: b""} if frame is None else {_FRAME: frame}
        expiry = max(1, int(self.ttl * 1000))

        async def add(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                pipe.xadd(key, fields, maxlen=self.max_events_per_stream, approximate=False)
                pipe.pexpire(key, expiry)
                return await pipe.execute()

        entry, _ = await self.link.call(STORE, f"store an event of stream {stream_id}", add)
        text = entry.decode("ascii") if isinstance(entry, bytes) else str(entry)
        return f"{stream_id}/{text}"

    async def replay_after(self, last_event_id: str, sink: ReplaySink) -> str | None:
        """Hand `sink` the events of the id's stream that followed it.

        Returns:
            The stream's id, or None when the id is malformed or its stream is gone.

        Raises:
            StoreUnavailable: Redis failed or did not answer in time.
        """
        stream_id, _, entry = last_event_id.rpartition("/")
        if not stream_id or _ENTRY_ID.fullmatch(entry) is None:
            return None
        key = self._key(stream_id)

        async def read(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                pipe.exists(key)
                pipe.xrange(key, min=f"({entry}", max="+")
                return await pipe.execute()

        exists, entries = await self.link.call(STORE, f"replay stream {stream_id}", read)
        if not exists:
            return None
        for entry_id, fields in entries:
            frame = fields.get(_FRAME)
            if frame is None:
                continue  # a priming event
            text = entry_id.decode("ascii") if isinstance(entry_id, bytes) else str(entry_id)
            await sink(f"{stream_id}/{text}", bytes(frame))
        return stream_id

    async def close(self) -> None:
        """Close the connections (an app's shutdown)."""
        await self.link.close()
