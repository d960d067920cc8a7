"""The session-record stores (memory and Redis) keep one contract, the Redis event store keeps
the event-store contract bounded per stream and in time, and the change buses (in-process
and Redis pub/sub) carry notices to every member but the sender. Against a real
redis-server on a free loopback port (skipped without one, except under CI)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests._local_bus import LocalChangeBus
from tests.redis._server import RedisServer

from toolwire import Identity
from toolwire.redis import RedisChangeBus, RedisEventStore, RedisSessionStore
from toolwire.transports.http.streamable.events import MalformedEventId
from toolwire.transports.http.streamable.records import (
    MemorySessionStore,
    SessionRecord,
    caller_key,
)

_prefixes = iter(range(1_000_000))


def _prefix() -> str:
    return f"t{next(_prefixes)}"  # each test its own keys


def _record(session_id: str = "s1", **fields: Any) -> SessionRecord:
    return SessionRecord(session_id=session_id, protocol_version="2025-11-25", **fields)


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        return MemorySessionStore()
    server: RedisServer = request.getfixturevalue("module_redis")
    return RedisSessionStore(server.url, prefix=_prefix())


def test_session_store_contract(store: Any) -> None:
    async def scenario() -> None:
        record = _record(client_info={"name": "c"}, caller=caller_key(Identity("u", client_id="a")))
        assert await store.load("s1") is None
        assert await store.save(record, 30, create=True) is True
        assert await store.load("s1") == record
        assert await store.save(_record(), 30, create=True) is False  # an id is never reused
        assert await store.load("s1") == record
        # An update of a record that exists.
        record.log_level = "error"
        assert await store.save(record, 30, create=False) is True
        assert (await store.load("s1")).log_level == "error"
        # Ended: gone, and an update cannot bring it back.
        await store.end("s1")
        assert await store.load("s1") is None
        assert await store.save(record, 30, create=False) is False
        assert await store.load("s1") is None
        # Expiry, and a touch pushing it back. s2 and s3 get the same ttl, s2 first, and
        # only s2 is touched: once s3 has lapsed, so has s2's first ttl, and s2 is there by
        # the touch alone. No sleep decides it (a 0.2 s sleep against a 0.3 s ttl left 0.1 s
        # for a loaded machine to lag); the ttl only has to outlast the calls before the touch.
        await store.save(_record("s2"), 2.0, create=True)
        await store.save(_record("s3"), 2.0, create=True)
        assert await store.touch(["s2", "missing"], 600) == ["missing"]
        for _ in range(600):  # a hang guard: s3 lapses after 2 s
            if await store.load("s3") is None:
                break
            await asyncio.sleep(0.05)
        assert await store.load("s3") is None
        assert await store.load("s2") is not None
        assert await store.load("missing") is None
        # No ttl: kept until ended.
        await store.save(_record("s4"), None, create=True)
        await asyncio.sleep(0.1)
        assert await store.load("s4") is not None

    asyncio.run(scenario())


def test_caller_keys_bind_sessions_to_the_principal_not_the_token() -> None:
    first = Identity("u", client_id="app", scopes="a")
    refreshed = Identity("u", client_id="app", scopes="a b", expires_at=99.0)
    assert caller_key(first) == caller_key(refreshed) == ["principal", "u", "app"]
    assert caller_key(Identity("v", client_id="app")) != caller_key(first)
    assert caller_key(None) is None
    assert caller_key("alice") == ["value", "alice"]


def test_a_record_survives_json() -> None:
    record = _record(client_capabilities={"roots": {}}, caller=["principal", "u", None])
    assert SessionRecord.from_json(record.to_json()) == record
    with pytest.raises(ValueError, match="not a session record"):
        SessionRecord.from_json(b'{"nope": 1}')


def test_a_record_keeps_subscriptions_and_reads_records_written_without_them() -> None:
    record = _record(resource_subscriptions=["b://2", "a://1"])
    assert SessionRecord.from_json(record.to_json()).resource_subscriptions == ["b://2", "a://1"]
    older = b'{"session_id":"s0","protocol_version":"2025-06-18","log_level":"info"}'
    assert SessionRecord.from_json(older).resource_subscriptions == []


def test_redis_event_store_replays_one_stream_bounded_and_forgets_in_time(
    module_redis: RedisServer,
) -> None:
    async def scenario() -> None:
        store = RedisEventStore(module_redis.url, prefix=_prefix(), max_events_per_stream=3)
        prime = await store.store("a.x.1", None)
        ids = [await store.store("a.x.1", f"m{i}".encode()) for i in range(2)]
        await store.store("a.x.2", b"other stream")
        got: list[tuple[str, bytes]] = []

        async def sink(event_id: str, frame: bytes) -> None:
            got.append((event_id, frame))

        assert await store.replay_after(prime, sink) == "a.x.1"
        assert got == [(ids[0], b"m0"), (ids[1], b"m1")]  # the priming event replays nothing
        got.clear()
        assert await store.replay_after(ids[0], sink) == "a.x.1"
        assert got == [(ids[1], b"m1")]
        # Bounded per stream: three kept, the oldest forgotten.
        more = [await store.store("a.x.1", f"n{i}".encode()) for i in range(3)]
        got.clear()
        assert await store.replay_after(prime, sink) == "a.x.1"
        assert [frame for _, frame in got] == [b"n0", b"n1", b"n2"]
        assert got[-1][0] == more[-1]
        # Unknown ids name nothing; malformed ones are refused before Redis is asked (it would
        # fail the command on an entry id beyond 64 bits, and the store pause a while).
        assert await store.replay_after("a.x.9/1-0", sink) is None
        for malformed in ("no-slash", "a.x.1/abc", "a.x.1/\u0663-0", f"a.x.1/{2**64}-0"):
            with pytest.raises(MalformedEventId, match="a Redis stream entry id"):
                await store.replay_after(malformed, sink)
        assert await store.replay_after(f"a.x.1/{2**64 - 1}-0", sink) == "a.x.1"
        assert got[-1][0] == more[-1]  # the store was not paused by anything above
        # Bounded in time: a stream lapses `ttl` after its last event.
        short = RedisEventStore(module_redis.url, prefix=_prefix(), ttl=0.2)
        brief = await short.store("b.x.1", b"soon gone")
        await asyncio.sleep(0.4)
        assert await short.replay_after(brief, sink) is None

    asyncio.run(scenario())


def test_event_store_rejects_bad_bounds() -> None:
    with pytest.raises(ValueError, match="max_events_per_stream must be an integer >= 1"):
        RedisEventStore(max_events_per_stream=0)
    with pytest.raises(ValueError, match="ttl must be a number of seconds > 0"):
        RedisEventStore(ttl=0)


@pytest.fixture(params=["local", "redis"])
def bus(request: pytest.FixtureRequest) -> Any:
    if request.param == "local":
        return LocalChangeBus()
    server: RedisServer = request.getfixturevalue("module_redis")
    return RedisChangeBus(server.url, prefix=_prefix())


def test_change_bus_reaches_every_member_but_the_sender(bus: Any) -> None:
    async def scenario() -> None:
        heard: list[list[tuple[str, str]]] = [[], [], []]
        members = []
        for box in heard:
            members.append(await bus.join(lambda topic, data, box=box: box.append((topic, data))))
        for member in members:  # Redis: subscribed before anything is published
            listening = getattr(member, "listening", None)
            if listening is not None:
                await asyncio.wait_for(listening.wait(), 10)
        members[0].publish("tools")
        members[1].publish("session-ended", "abc")
        for _ in range(200):
            if len(heard[2]) == 2 and heard[0] and heard[1]:
                break
            await asyncio.sleep(0.01)
        assert heard[0] == [("session-ended", "abc")]
        assert heard[1] == [("tools", "")]
        assert sorted(heard[2]) == [("session-ended", "abc"), ("tools", "")]
        for member in members:
            await member.leave()

    asyncio.run(scenario())


def test_a_password_in_the_url_never_reaches_errors_or_logs() -> None:
    store = RedisSessionStore("redis://app:s3cret@10.0.0.5:6379/2", timeout=0.5)
    assert store.link.where == "redis://app:***@10.0.0.5:6379/2"
    assert "s3cret" not in RedisSessionStore("redis://:s3cret@h/0").link.where


def test_a_store_operation_cancelled_mid_command_stays_cancelled(
    module_redis: RedisServer,
) -> None:
    # redis-py may swallow a cancellation that reaches it mid-command; the store must not.
    # A task that stores events in a bounded loop is cancelled while a command is in flight:
    # it ends cancelled, never by running its loop out as if nothing had happened.
    async def scenario() -> list[str]:
        store = RedisEventStore(module_redis.url, prefix=_prefix())
        outcomes = []
        try:
            for attempt in range(50):

                async def keep_storing() -> None:
                    for _ in range(500):
                        await store.store("s.c.1", b"{}")

                task = asyncio.ensure_future(keep_storing())
                await asyncio.sleep(0.001 + (attempt % 7) / 2000)
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                if not task.cancelled():
                    outcomes.append(f"attempt {attempt}: {task!r}")
        finally:
            await store.close()
        return outcomes

    assert asyncio.run(scenario()) == []
