"""`Server.serving()` entered by several apps on one event loop: one lifespan for all of
them; a failed start-up fails every entry that waited on it; entries after the first one
left, or on another event loop, serve afresh."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire import Server
from toolwire.lifespan import LifespanError


def _counting_server(events: list[str], *, fail: bool = False) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
        events.append("enter")
        await asyncio.sleep(0.01)  # a start-up that takes a while: others arrive meanwhile
        if fail:
            raise RuntimeError("no database")
        yield {"n": len(events)}
        events.append("exit")

    return Server("shared", lifespan=lifespan)


def test_entries_made_while_serving_is_held_share_one_lifespan() -> None:
    events: list[str] = []
    server = _counting_server(events)

    async def main() -> None:
        first_in = asyncio.Event()
        release = asyncio.Event()

        async def first() -> object:
            async with server.serving() as opener:
                first_in.set()
                await release.wait()
                return opener

        async def second() -> object:
            async with server.serving() as opener:
                return opener

        owner = asyncio.create_task(first())
        await asyncio.sleep(0)  # the first entry is starting up
        sharer = asyncio.create_task(second())
        shared = await sharer
        await first_in.wait()
        release.set()
        assert await owner is shared
        assert events == ["enter", "exit"]
        async with server.serving():  # the first one left: a new serving
            pass
        assert events == ["enter", "exit", "enter", "exit"]

    asyncio.run(main())


def test_a_failed_start_up_fails_the_entries_that_waited_on_it() -> None:
    events: list[str] = []
    server = _counting_server(events, fail=True)

    async def enter() -> None:
        async with server.serving():
            pass

    async def main() -> list[BaseException | None]:
        return await asyncio.gather(enter(), enter(), return_exceptions=True)

    outcomes = asyncio.run(main())
    assert events == ["enter"]
    assert all(isinstance(outcome, LifespanError) for outcome in outcomes), outcomes
    assert "server 'shared' did not start: its lifespan failed" in str(outcomes[1])


def test_serving_on_another_event_loop_is_entered_apart() -> None:
    events: list[str] = []
    server = _counting_server(events)
    entered = threading.Event()
    leave = threading.Event()

    async def hold() -> None:
        async with server.serving():
            entered.set()
            while not leave.is_set():  # bounded by the other thread's timeout below
                await asyncio.sleep(0.01)

    holder = threading.Thread(target=lambda: asyncio.run(hold()))
    holder.start()
    try:
        assert entered.wait(30)

        async def other_loop() -> None:
            async with server.serving():
                pass

        asyncio.run(other_loop())
    finally:
        leave.set()
        holder.join(30)
    assert events.count("enter") == 2 and events.count("exit") == 2


def test_serving_can_be_entered_again_after_a_failure() -> None:
    runs = 2
    events: list[str] = []
    server = _counting_server(events, fail=True)

    async def enter() -> None:
        async with server.serving():
            pass

    for _ in range(runs):
        with pytest.raises(LifespanError):
            asyncio.run(enter())
    assert events == ["enter"] * runs
