"""Following a stream across processes, on a real redis-server: the Redis event store's end
markers and leases, and the bound on followers of an app (two apps in this process stand for
two processes: each holds its own copy of the session)."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import httpx2 as httpx
import pytest
from tests._jsonrpc import tool_call_request
from tests.redis._server import RedisServer
from tests.redis._streams import break_off, open_streaming_session, slow_server
from tests.transports.http._http_harness import serving

from toolwire import Server
from toolwire.redis import RedisEventStore, RedisSessionStore
from toolwire.transports.http.streamable.events import (
    LiveEventStore,
    MalformedEventId,
    MemoryEventStore,
)

pytestmark = pytest.mark.timeout(120)

POLLS = 200  # every wait below polls at most this many times, 0.05 s apart


def _store(url: str, **options: Any) -> RedisEventStore:
    return RedisEventStore(url, prefix=f"t{secrets.token_hex(4)}", **options)


def test_the_memory_store_is_not_followed_and_the_redis_store_is() -> None:
    assert not isinstance(MemoryEventStore(), LiveEventStore)
    assert isinstance(RedisEventStore(), LiveEventStore)
    with pytest.raises(ValueError, match="lease must be a number of seconds > 0, not 0"):
        RedisEventStore(lease=0)
    with pytest.raises(ValueError, match="max_followers must be an integer >= 0, not -1"):
        RedisEventStore(max_followers=-1)


def test_a_stream_holds_its_lease_while_it_runs_and_ends_with_its_last_event(
    module_redis: RedisServer,
) -> None:
    async def scenario() -> None:
        store = _store(module_redis.url)
        store.produce("s.a.1")
        priming = await store.store("s.a.1", None)
        first = await store.store("s.a.1", b'{"n":1}')
        tail = await store.read_tail(priming, None)
        assert tail is not None
        assert (tail.events, tail.last_id, tail.ended, tail.live) == (
            [(first, b'{"n":1}')],
            first,
            False,
            True,
        )
        last = await store.store_last("s.a.1", b'{"n":2}')
        tail = await store.read_tail(first, None)
        assert tail is not None
        assert tail.events == [(last, b'{"n":2}')]
        assert tail.ended and not tail.live
        # The end marker is an entry after the last event: a read after it finds the end.
        after_last = await store.read_tail(last, None)
        assert after_last is not None
        assert (after_last.events, after_last.ended) == ([], True)
        # What replays (for a store that cannot follow) is unchanged: frames only.
        replayed: list[tuple[str, bytes]] = []

        async def sink(event_id: str, frame: bytes) -> None:
            replayed.append((event_id, frame))

        assert await store.replay_after(priming, sink) == "s.a.1"
        assert replayed == [(first, b'{"n":1}'), (last, b'{"n":2}')]
        assert await store.read_tail("s.a.404/1-0", None) is None
        with pytest.raises(MalformedEventId):
            await store.read_tail("no-entry", None)
        await store.close()

    asyncio.run(scenario())


def test_an_abandoned_stream_gets_its_end_marker_and_a_blocked_read_wakes_for_an_event(
    module_redis: RedisServer,
) -> None:
    async def scenario() -> None:
        store = _store(module_redis.url)
        store.produce("s.b.1")
        first = await store.store("s.b.1", b'{"n":1}')
        waiting = asyncio.ensure_future(store.read_tail(first, store.wait_seconds))
        await asyncio.sleep(0.05)
        second = await store.store("s.b.1", b'{"n":2}')
        woken = await waiting
        assert woken is not None
        assert woken.events == [(second, b'{"n":2}')]
        store.abandon("s.b.1")  # its session ended before its reply: the end comes anyway
        for _ in range(POLLS):
            tail = await store.read_tail(second, None)
            assert tail is not None
            if tail.ended:
                break
            await asyncio.sleep(0.05)
        assert tail.ended and not tail.live and tail.events == []
        await store.close()

    asyncio.run(scenario())


def test_a_lease_nobody_renews_lapses_and_the_stream_shows_no_end(
    module_redis: RedisServer,
) -> None:
    async def scenario() -> None:
        # Renewed every third of a lease: a stall of this process up to two thirds of it (2 s
        # on a loaded machine) still finds the lease live.
        store = _store(module_redis.url, lease=3.0)
        store.produce("s.c.1")
        first = await store.store("s.c.1", b'{"n":1}')
        await asyncio.sleep(6.0)  # two leases: only renewals keep it
        tail = await store.read_tail(first, None)
        assert tail is not None and tail.live
        await store.close()  # the producer stops renewing, as a killed process does
        for _ in range(POLLS):
            tail = await store.read_tail(first, None)
            assert tail is not None
            if not tail.live:
                break
            await asyncio.sleep(0.05)
        assert not tail.live and not tail.ended
        await store.close()

    asyncio.run(scenario())


def test_followers_are_bounded_per_process_and_none_means_replay_only(
    module_redis: RedisServer,
) -> None:
    server = slow_server()
    prefix = f"t{secrets.token_hex(4)}"
    producer_store = RedisEventStore(module_redis.url, prefix=prefix)
    one_follower = RedisEventStore(module_redis.url, prefix=prefix, max_followers=1)
    no_follower = RedisEventStore(module_redis.url, prefix=prefix, max_followers=0)

    def app(events: RedisEventStore) -> Any:
        sessions = RedisSessionStore(module_redis.url, prefix=prefix)
        return server.http_app(event_store=events, session_store=sessions)

    with (
        serving(app(producer_store)) as a,
        serving(app(one_follower)) as b,
        serving(app(no_follower)) as c,
        httpx.Client(base_url=a, timeout=30) as on_a,
        httpx.Client(base_url=b, timeout=30) as on_b,
        httpx.Client(base_url=c, timeout=30) as on_c,
    ):
        headers = open_streaming_session(on_a)
        last_id = break_off(on_a, headers)
        resume = {**headers, "last-event-id": last_id}
        with on_b.stream("GET", "/mcp", headers=resume) as followed:
            assert followed.status_code == 200
            lines = followed.iter_lines()
            next(line for line in lines if line.startswith("data:"))  # it follows, live
            second = on_b.get("/mcp", headers=resume)
            assert second.status_code == 503, second.text
            assert second.headers["retry-after"] == "1"
            message = json.loads(second.text)["error"]["message"]
            assert "already follows 1 streams of other processes" in message
            # Without followers, a process replays what is stored and ends the response.
            replayed = on_c.get("/mcp", headers=resume)
            assert replayed.status_code in (200, 409), replayed.text
            assert '"result"' not in replayed.text
            heard = [line for line in lines if line.startswith("data:")]
        assert '"result"' in heard[-1] and '"done"' in heard[-1]


def _command_calls(url: str, names: tuple[str, ...]) -> int:
    async def read() -> int:
        from redis.asyncio import Redis

        client = Redis.from_url(url)
        try:
            stats = await client.info("commandstats")
        finally:
            await client.aclose()
        return sum(int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in names)

    return asyncio.run(read())


def test_json_responses_cost_the_event_store_nothing_per_call(module_redis: RedisServer) -> None:
    server = Server("json")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    prefix = f"t{secrets.token_hex(4)}"
    app = server.http_app(
        event_store=RedisEventStore(module_redis.url, prefix=prefix),
        session_store=RedisSessionStore(module_redis.url, prefix=prefix),
        json_response=True,
        session_idle_timeout=600,
    )
    every = ("xadd", "xrange", "xread", "set", "get", "del", "exists", "pexpire")
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        headers = open_streaming_session(client)
        before = _command_calls(module_redis.url, every)
        for n in range(100):
            call = tool_call_request("add", {"a": n, "b": 1}, n + 2)
            answer = client.post("/mcp", json=call, headers=headers)
            assert answer.json()["result"]["content"][0]["text"] == str(n + 1)
        spent = _command_calls(module_redis.url, every) - before
    # No event, no lease, no end marker: a JSON body is not a stream (at most one refresh
    # of the session's expiry).
    assert spent <= 1, spent
