"""`RedisBackplane`: the three Redis stores of a scaled-out deployment on one connection pool."""

from __future__ import annotations

from typing import Any

from ..errors import check_seconds
from ._link import DEFAULT_TIMEOUT, RedisLink
from .changes import RedisChangeBus
from .events import RedisEventStore
from .sessions import RedisSessionStore

__all__ = ["RedisBackplane"]


class RedisBackplane:
    """Session records, resumable-stream events and change notices in one Redis
    (`pip install 'toolwire[redis]'`).

    Give every process serving one MCP URL the same backplane settings:

        backplane = RedisBackplane("redis://10.0.0.5:6379/0")
        app = server.http_app(backplane=backplane)

    Then any process continues any session or SSE stream, hears every change and takes any
    client answer; when Redis fails, requests needing it get a 503 saying why (docs/deployment.md).

    Args:
        url: The Redis URL (`redis://host:port/db`, `rediss://...` for TLS).
        prefix: Starts every key and channel name (one per deployment sharing a Redis).
        timeout: Seconds any Redis operation may take before it counts as failed.
        max_events_per_stream: Events kept per SSE stream for resumption.
        events_ttl: Seconds a stream's events are kept after its last event.
        lease: Seconds without renewal after which a stream's producer counts as dead.
        max_followers: Other processes' streams followed at once, each on a Redis connection
            (503 beyond; 0: never follow).

    Attributes:
        sessions: The `RedisSessionStore`.
        events: The `RedisEventStore`.
        changes: The `RedisChangeBus`.

    Raises:
        ValueError: An option is of the wrong kind or out of range (the message names it).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolwire",
        timeout: float = DEFAULT_TIMEOUT,
        max_events_per_stream: int = 1000,
        events_ttl: float = 3600.0,
        lease: float = 6.0,
        max_followers: int = 100,
    ) -> None:
        check_seconds("events_ttl", events_ttl)  # the store would name it `ttl`
        self.link = RedisLink(url, timeout=timeout)
        self.sessions = RedisSessionStore(prefix=prefix, link=self.link)
        self.events = RedisEventStore(
            prefix=prefix,
            max_events_per_stream=max_events_per_stream,
            ttl=events_ttl,
            link=self.link,
            lease=lease,
            max_followers=max_followers,
        )
        self.changes = RedisChangeBus(prefix=prefix, link=self.link)

    def app_options(self) -> dict[str, Any]:
        """The `http_app` options this backplane stands for."""
        return {
            "session_store": self.sessions,
            "event_store": self.events,
            "change_bus": self.changes,
        }

    async def close(self) -> None:
        """Close the connections (they open again on next use)."""
        await self.link.close()
