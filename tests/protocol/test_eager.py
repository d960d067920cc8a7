"""`start_eagerly`: a coroutine starts in the caller's task and moves to a task of its own
only if it suspends; quick sync tool calls are answered before `receive()` returns."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest
from tests.protocol.harness import legacy

from toolwire import Server
from toolwire.protocol._eager import start_eagerly

pytestmark = pytest.mark.anyio

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


async def test_a_coroutine_that_never_suspends_runs_to_its_end_without_a_task() -> None:
    log: list[str] = []

    async def quick() -> None:
        log.append("ran")

    before = len(asyncio.all_tasks())
    assert start_eagerly(asyncio.get_running_loop(), quick()) is None
    assert log == ["ran"]
    assert len(asyncio.all_tasks()) == before


async def test_a_suspending_coroutine_goes_on_in_a_task_with_its_context() -> None:
    log: list[str] = []
    gate: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def suspends() -> None:
        token = marker.set("inside")
        try:
            log.append(await gate)
            log.append(marker.get())
        finally:
            marker.reset(token)  # raises ValueError if the context changed in between
            log.append("cleaned")

    task = start_eagerly(asyncio.get_running_loop(), suspends())
    assert task is not None and not task.done()
    assert marker.get() == "unset"  # the caller's context was not touched
    gate.set_result("resumed")
    await asyncio.wait_for(task, 5)
    assert log == ["resumed", "inside", "cleaned"]


@pytest.mark.parametrize("started", [False, True], ids=["before-first-step", "after"])
async def test_cancelling_the_task_cancels_the_coroutine_in_its_context(started: bool) -> None:
    log: list[str] = []
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def waits() -> None:
        token = marker.set("inside")
        try:
            await gate
            log.append("not reached")
        except asyncio.CancelledError:
            log.append("cancelled")
            raise
        finally:
            marker.reset(token)
            log.append("cleaned")

    task = start_eagerly(asyncio.get_running_loop(), waits())
    assert task is not None
    if started:
        await asyncio.sleep(0)  # the task has taken over the coroutine
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert log == ["cancelled", "cleaned"]
    assert gate.cancelled() or not started  # a cancel before the first step frees the wait


async def test_an_exception_in_the_first_step_reaches_the_caller() -> None:
    async def fails() -> None:
        raise LookupError("first step")

    with pytest.raises(LookupError, match="first step"):
        start_eagerly(asyncio.get_running_loop(), fails())


async def test_quick_sync_calls_are_answered_before_receive_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once a sync tool has been quick, a call to it completes within `receive()`: the reply
    is out before the event loop runs anything else. Slow or async tools still answer later,
    from a task (the first call: the tool is not known to be quick yet)."""
    from toolwire.tools import _pool as worker_threads

    monkeypatch.setattr(worker_threads, "QUICK_WAIT_SECONDS", 10.0)  # a loaded machine
    monkeypatch.setattr(worker_threads, "_quick", {})  # no hint left by an earlier function
    server = Server("eager")
    threads: list[str] = []

    @server.tool
    def add(a: int, b: int) -> int:
        """Add."""
        threads.append(threading.current_thread().name)
        return a + b

    @server.tool
    async def echo(text: str) -> str:
        """Echo."""
        return text

    def call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }

    async with legacy(server) as peer:
        await peer.feed(call(1, "add", {"a": 1, "b": 2}))
        assert peer.raw == []  # first call: unknown, runs in a task
        assert (await peer.wait_for(1))["result"]["structuredContent"] == {"result": 3}
        peer.take()
        for i in range(2, 6):
            await peer.feed(call(i, "add", {"a": i, "b": 1}))
            replies = peer.take()  # no await in between: answered within receive()
            assert [r["id"] for r in replies] == [i]
            assert replies[0]["result"]["structuredContent"] == {"result": i + 1}
        await peer.feed(call(9, "echo", {"text": "hi"}))
        assert peer.raw == []  # async tools always get a task of their own
        assert (await peer.wait_for(9))["result"]["content"][0]["text"] == "hi"
        assert peer.session is not None
        assert peer.session.in_flight == 0
    assert threads and all(name != threading.main_thread().name for name in threads)
