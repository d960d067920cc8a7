"""run_sync: worker threads, context variables, the server's limiter, cancellation."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import anyio
import pytest

from toolwire.tools.threads import run_sync, sync_limiter

probe: contextvars.ContextVar[str] = contextvars.ContextVar("probe", default="unset")


def test_runs_in_another_thread_with_args_kwargs_and_context() -> None:
    def work(a: int, *, b: int) -> tuple[int, str, bool]:
        return a + b, probe.get(), threading.current_thread() is threading.main_thread()

    async def main() -> Any:
        probe.set("from caller")
        return await run_sync(work, 1, b=2)

    assert asyncio.run(main()) == (3, "from caller", False)


def test_exceptions_propagate_with_their_type() -> None:
    def fail() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        asyncio.run(run_sync(fail))


def test_calls_run_concurrently() -> None:
    barrier = threading.Barrier(3, timeout=5)

    def meet(i: int) -> int:
        barrier.wait()  # only returns if three calls are in threads at the same time
        return i

    async def main() -> list[int]:
        return list(await asyncio.gather(*(run_sync(meet, i) for i in range(3))))

    assert asyncio.run(main()) == [0, 1, 2]


def test_cancel_abandons_the_thread_and_frees_the_limiter_slot() -> None:
    release = threading.Event()
    started = threading.Event()

    def stuck() -> str:
        started.set()
        release.wait(5)
        return "late"

    async def main() -> tuple[int, str]:
        limiter = anyio.CapacityLimiter(1)
        sync_limiter.set(limiter)
        task = asyncio.ensure_future(run_sync(stuck))
        await asyncio.to_thread(started.wait, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        borrowed = limiter.borrowed_tokens
        # The slot is free again: another call gets through while the first thread still runs.
        result = await asyncio.wait_for(run_sync(lambda: "next"), 5)
        release.set()
        return borrowed, result

    assert asyncio.run(main()) == (0, "next")


def test_works_from_anyio_run() -> None:
    async def main() -> int:
        return await run_sync(sum, [1, 2, 3])

    assert anyio.run(main) == 6


def test_quick_functions_are_waited_for_in_place_and_still_run_in_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After one quick call, the loop waits for the worker in place: the result comes through
    the hand-off (no future settles on the loop), the function still runs off the main thread,
    sees the caller's context, and its exceptions keep their type."""
    from toolwire.tools import threads

    # A generous in-place wait: on a loaded machine a trivial call can outlast 0.5 ms, and
    # this test is about the hand-off path, not about the budget.
    monkeypatch.setattr(threads, "QUICK_WAIT_SECONDS", 10.0)
    monkeypatch.setattr(threads, "_quick", {})  # hints are keyed by id(): start clean

    def work(a: int, fail: bool = False) -> tuple[int, bool, str]:
        if fail:
            raise LookupError(f"bad {a}")
        return a * 2, threading.current_thread() is threading.main_thread(), probe.get()

    settled: list[Any] = []
    original_settle = threads._settle

    def counting_settle(*args: Any) -> None:
        settled.append(args)
        original_settle(*args)

    async def main() -> list[Any]:
        probe.set("ctx")
        first = await run_sync(work, 1)  # unknown yet: answered through the loop
        assert len(settled) == 1
        assert threads._quick.get(id(work)) is True
        rest = [await run_sync(work, i) for i in range(2, 6)]
        assert len(settled) == 1, "quick calls came through the hand-off"
        with pytest.raises(LookupError, match="bad 7"):
            await run_sync(work, 7, fail=True)
        assert len(settled) == 1
        return [first, *rest]

    threads._settle = counting_settle  # type: ignore[assignment]
    try:
        results = asyncio.run(main())
    finally:
        threads._settle = original_settle  # type: ignore[assignment]
    assert results == [(2 * i, False, "ctx") for i in range(1, 6)]


def test_a_quick_function_turning_slow_is_awaited_and_the_loop_keeps_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call that outlasts the in-place wait falls back to the future: meanwhile the event
    loop runs other tasks, and the function is not waited for in place next time."""
    from toolwire.tools import threads

    # 50 ms: surely longer than the quick call on a loaded machine, and short enough for
    # the in-place wait to give up on the slow one (which waits for the loop to run).
    monkeypatch.setattr(threads, "QUICK_WAIT_SECONDS", 0.05)
    monkeypatch.setattr(threads, "_quick", {})
    gate = threading.Event()

    def maybe_slow(slow: bool) -> str:
        if slow:
            gate.wait(5)
        return "slow" if slow else "quick"

    async def main() -> tuple[str, list[str], bool]:
        assert await run_sync(maybe_slow, False) == "quick"
        assert threads._quick.get(id(maybe_slow)) is True
        ticks: list[str] = []

        async def ticker() -> None:
            for _ in range(3):
                await asyncio.sleep(0)
            ticks.append("loop ran")
            gate.set()

        slow_call = asyncio.ensure_future(run_sync(maybe_slow, True))
        tick_task = asyncio.ensure_future(ticker())
        result = await asyncio.wait_for(slow_call, 10)
        await tick_task
        return result, ticks, threads._quick[id(maybe_slow)]

    result, ticks, quick_after = asyncio.run(main())
    assert result == "slow"
    assert ticks == ["loop ran"]  # the ticker released the gate: the loop was not blocked
    assert quick_after is False
