"""The in-memory event store: ids name their stream, replay stays within it, bounds hold."""

from __future__ import annotations

import asyncio

import pytest

from toolwire.transports.http.streamable.events import (
    EventStore,
    MalformedEventId,
    MemoryEventStore,
)


def replay(store: MemoryEventStore, last: str) -> tuple[str | None, list[tuple[str, bytes]]]:
    seen: list[tuple[str, bytes]] = []

    async def sink(event_id: str, frame: bytes) -> None:
        seen.append((event_id, frame))

    stream = asyncio.run(store.replay_after(last, sink))
    return stream, seen


def store_all(store: MemoryEventStore, events: list[tuple[str, bytes | None]]) -> list[str]:
    async def go() -> list[str]:
        return [await store.store(stream, frame) for stream, frame in events]

    return asyncio.run(go())


def test_replay_sends_the_later_events_of_that_stream_only() -> None:
    store = MemoryEventStore()
    ids = store_all(store, [("a", None), ("b", b"b1"), ("a", b"a1"), ("a", b"a2"), ("b", b"b2")])
    assert isinstance(store, EventStore)
    assert len(set(ids)) == 5 and all(i.startswith(("a/", "b/")) for i in ids)
    assert replay(store, ids[0]) == ("a", [(ids[2], b"a1"), (ids[3], b"a2")])
    assert replay(store, ids[3]) == ("a", [])
    assert replay(store, ids[1]) == ("b", [(ids[4], b"b2")])


@pytest.mark.parametrize("last", ["a/999", "b/1", "a.b.c/12345678901234567890"])
def test_unknown_ids_replay_nothing(last: str) -> None:
    store = MemoryEventStore()
    store_all(store, [("a", b"1")])
    assert replay(store, last) == (None, [])


@pytest.mark.parametrize(
    "last",
    ["", "nope", "a/", "a/x", "/3", "a/\xb2", "a/\u0663", "a/1" + "0" * 20, "a/" + "9" * 5000],
)
def test_malformed_ids_are_refused_saying_what_an_id_is(last: str) -> None:
    store = MemoryEventStore()
    store_all(store, [("a", b"1")])
    with pytest.raises(MalformedEventId, match="<stream>/<sequence>, the sequence a number"):
        replay(store, last)


def test_the_oldest_events_go_first_once_a_bound_is_reached() -> None:
    by_count = MemoryEventStore(max_events=3)
    ids = store_all(by_count, [("a", b"1"), ("a", b"2"), ("b", b"3"), ("a", b"4")])
    assert len(by_count) == 3
    assert replay(by_count, ids[0]) == ("a", [(ids[1], b"2"), (ids[3], b"4")])
    by_bytes = MemoryEventStore(max_bytes=10)
    ids = store_all(by_bytes, [("a", b"12345"), ("a", b"67890"), ("a", b"abc")])
    assert len(by_bytes) == 2
    assert replay(by_bytes, ids[0]) == ("a", [(ids[1], b"67890"), (ids[2], b"abc")])


def test_bounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_events and max_bytes must be at least 1"):
        MemoryEventStore(max_events=0)
