"""The leases a process holds on the SSE streams it produces in Redis, and the end markers of
streams that stopped without a last event.

While a stream runs its producer holds the key `<prefix>:live:<stream id>` with a short expiry,
renewed by one task per process for all its streams, so that a follower on another process
(`transports/http/streamable/_follow.py`) can tell a slow producer from a dead one: a lapsed lease
means dead, frozen or cut off from Redis. The same task writes the end marker of a stream that
stopped without its last event, at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from ..transports.http.streamable.records import StoreUnavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from .events import RedisEventStore

__all__ = ["END", "LeaseKeeper"]

logger = logging.getLogger("toolwire.http")

END = b"e"
"""The field of an end-marker entry (no frame)."""
_END_ATTEMPTS = 3
"""Tries at writing an abandoned stream's end marker; after that its lease lapses alone."""
_FLUSH_SECONDS = 1.0
"""What closing the store waits, at most, for the pending end markers."""


class LeaseKeeper:
    """Holds the leases of the streams this process produces and ends abandoned ones.

    Args:
        store: The event store whose streams these are.
    """

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store
        self.lease_ms = max(1, int(store.lease * 1000))
        self.period = store.lease / 3
        self.running: set[str] = set()  # streams of this process not ended yet
        self.unleased: set[str] = set()  # running, but their lease is not set yet
        self._ending: dict[str, int] = {}  # abandoned streams -> attempts at their end marker
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def start(self, stream_id: str) -> None:
        """`stream_id` runs here now; its next stored event sets its lease."""
        self.running.add(stream_id)
        self.unleased.add(stream_id)
        self._ensure_task()

    def lease_once(self, stream_id: str) -> bool:
        """Whether the event about to be stored must set the stream's lease."""
        if stream_id in self.unleased:
            self.unleased.discard(stream_id)
            return True
        return False

    def stop(self, stream_id: str) -> None:
        """`stream_id` ended with its last event (its marker and lease were written with it)."""
        self.running.discard(stream_id)
        self.unleased.discard(stream_id)

    def abandon(self, stream_id: str) -> None:
        """`stream_id` ended without a last event: its end marker is written in the background."""
        if stream_id not in self.running:
            return
        self.stop(stream_id)
        self._ending[stream_id] = 0
        self._ensure_task()
        self._wake.set()

    def end_commands(self, pipe: Any, stream_id: str, *, expire: bool = True) -> None:
        """Queue on `pipe` what ends `stream_id`: its end marker, its expiry (unless the
        pipeline set it already), no lease."""
        key = self.store.stream_key(stream_id)
        pipe.xadd(key, {END: b""}, maxlen=self.store.max_events_per_stream, approximate=False)
        if expire:
            pipe.pexpire(key, self.store.ttl_ms)
        pipe.delete(self.store.lease_key(stream_id))

    def _ensure_task(self) -> None:
        task = self._task
        loop = asyncio.get_running_loop()
        if task is None or task.done() or task.get_loop() is not loop:
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._keep())

    async def _keep(self) -> None:
        """Renew and end, until nothing runs here (bounded: each pass sleeps or ends one)."""
        while self.running or self._ending:
            if not self._ending:
                with contextlib.suppress(TimeoutError):  # time to renew
                    await asyncio.wait_for(self._wake.wait(), timeout=self.period)
            self._wake.clear()
            await self._renew_and_end()

    async def _renew_and_end(self) -> None:
        ending = self._ending
        self._ending = {}
        renewing = list(self.running - self.unleased)
        if not ending and not renewing:
            return

        async def write(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                for stream_id in ending:
                    self.end_commands(pipe, stream_id)
                for stream_id in renewing:
                    pipe.set(self.store.lease_key(stream_id), b"1", px=self.lease_ms)
                return await pipe.execute()

        what = f"renew {len(renewing)} stream leases and end {len(ending)} streams"
        try:
            await self.store.link.call("Redis event store", what, write)
        except StoreUnavailable:  # logged by the link; a lapsed lease ends a follower anyway
            for stream_id, attempts in ending.items():
                if attempts + 1 < _END_ATTEMPTS:
                    self._ending[stream_id] = attempts + 1
        except asyncio.CancelledError:  # the store is closing: `close` writes them
            self._ending.update(ending)
            raise

    async def close(self) -> None:
        """Write the pending end markers (briefly) and stop renewing: the app is stopping."""
        task, self._task = self._task, None
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
