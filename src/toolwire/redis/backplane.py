"""`RedisBackplane`: the three Redis pieces a scaled-out deployment needs, on one connection
pool, handed to `Server.http_app` in one argument."""

from __future__ import annotations

from typing import Any

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

    Then, whichever process a request reaches: a handshake-era session continues (also after the
    process that created it restarted or died), a broken SSE stream resumes with
    `Last-Event-ID`, a change made on any process (a tool, resource or prompt added or removed,
    a resource update announced) reaches the clients of all (their GET streams, and 2026-07-28
    `subscriptions/listen` streams), and a client's answer to a question a tool asks
    (`ctx.elicit`, `ctx.sample`, `ctx.list_roots`) reaches the process whose call waits for it,
    wherever the balancer sent the answer (answers up to 1 MiB: see
    `transports/http/streamable/_client_answers.py`). When Redis fails or does not answer within
    `timeout`, requests that need it get a 503 whose JSON-RPC error names the store and what failed
    (logged on the `toolwire` logger); sessions a process holds go on being served. Changes
    announced meanwhile wait for Redis and go out when it is back (those held over ten minutes are
    dropped, logged), and each process that lost it tells its clients, once it hears again, that
    every list and every resource they follow may have changed: they read them again.

    What stays with one process: a call runs where its POST arrived; a stream still running
    there is followed live from any other process through Redis (its events are relayed
    there, not produced). A load balancer hashing on `Mcp-Session-Id` (nginx: `hash
    $http_mcp_session_id consistent`) keeps each session on one process while it lives,
    which spares the hops through Redis; the backplane then moves it to another when that
    process goes. Each process serves its own registries: the change bus carries the news of
    a change, not the tools, resources or prompts.

    Args:
        url: The Redis URL (`redis://host:port/db`, `rediss://...` for TLS).
        prefix: Starts every key and channel name: deployments sharing one Redis use
            different prefixes.
        timeout: Seconds any Redis operation may take before it counts as failed.
        max_events_per_stream: Events kept per SSE stream for resumption.
        events_ttl: Seconds a stream's events are kept after its last event.
        lease: Seconds the process running a stream may go without renewing its lease
            (renewed in the background while the stream runs) before a process following
            it takes it for dead and ends its response.
        max_followers: Streams of other processes this process follows at once, each on a
            Redis connection of its own while it waits; a resumption beyond that is answered
            503, and 0 never follows (stored events are replayed, then the response ends).

    Attributes:
        sessions: The `RedisSessionStore`.
        events: The `RedisEventStore`.
        changes: The `RedisChangeBus`.
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
        """Close the connections (an app closes them when it stops serving; they open
        again on next use)."""
        await self.link.close()
