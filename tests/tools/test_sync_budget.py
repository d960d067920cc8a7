"""SyncBudget: bodies of sync tools stay bounded when their calls time out or are cancelled,
a hung function cannot take the slots other functions need, and idle workers leave."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from typing import Any

import pytest

from toolwire.tools import threads
from toolwire.tools.threads import SyncBudget, SyncToolRefused, run_sync, sync_limiter, worker_wait


class Bodies:
    """Counts the bodies running now and the most that ever ran at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.release = threading.Event()

    def hang(self, seconds: float) -> str:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            self.release.wait(seconds)
            return "done"
        finally:
            with self.lock:
                self.now -= 1


async def _settle_until(check: Any, rounds: int = 1000) -> None:
    for _ in range(rounds):
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not reached")


def test_abandoned_bodies_stay_within_twice_the_limit_and_the_hung_function_is_refused() -> None:
    bodies = Bodies()

    async def main() -> tuple[list[str], SyncBudget]:
        budget = SyncBudget(2)
        sync_limiter.set(budget)
        outcomes: list[str] = []

        async def one() -> None:
            try:
                await asyncio.wait_for(run_sync(bodies.hang, 10), 0.05)
                outcomes.append("answered")
            except TimeoutError:
                outcomes.append("timeout")
            except SyncToolRefused:
                outcomes.append("refused")

        calls = []
        for _ in range(20):
            calls.append(asyncio.ensure_future(one()))
            await asyncio.sleep(0.01)
        await asyncio.gather(*calls)
        assert bodies.now <= 4 and budget.abandoned == 2
        bodies.release.set()
        await _settle_until(lambda: budget.abandoned == 0 and not budget._abandoned_by)
        # Every body is over: the function is welcome again.
        assert await asyncio.wait_for(run_sync(bodies.hang, 0), 5) == "done"
        return outcomes, budget

    outcomes, budget = asyncio.run(main())
    assert len(outcomes) == 20
    assert "refused" in outcomes and "answered" not in outcomes
    assert bodies.peak <= 4  # limit 2 + allowance 2 (it was 18 with a limit of 2 before)
    assert budget.free_slots == 2  # every slot came back


def test_another_function_is_served_while_a_hung_one_fills_the_allowance() -> None:
    bodies = Bodies()

    async def main() -> tuple[str, int]:
        budget = SyncBudget(2)
        sync_limiter.set(budget)

        async def hung_call() -> None:
            with contextlib.suppress(TimeoutError, SyncToolRefused):
                await asyncio.wait_for(run_sync(bodies.hang, 10), 0.02)

        await asyncio.gather(*(hung_call() for _ in range(300)))
        running = bodies.now
        # All hung bodies are still running, and yet this call gets a worker.
        answer = await asyncio.wait_for(run_sync(lambda: "added"), 5)
        assert bodies.now == running  # none of them had to end first
        bodies.release.set()
        return answer, running

    answer, running = asyncio.run(main())
    assert answer == "added"
    assert running <= 4


def test_a_call_cancelled_while_waiting_for_a_slot_says_so() -> None:
    bodies = Bodies()

    async def main() -> list[int]:
        budget = SyncBudget(1)
        sync_limiter.set(budget)
        first = asyncio.ensure_future(run_sync(bodies.hang, 10))
        await _settle_until(lambda: bodies.now == 1)
        note: list[int] = []

        async def queued() -> None:
            worker_wait.set(note)
            await run_sync(lambda: "never")

        with pytest.raises(TimeoutError):
            await asyncio.wait_for(queued(), 0.05)
        bodies.release.set()
        assert await first == "done"
        return note

    assert asyncio.run(main()) == [1]


def test_a_body_that_raises_gives_its_slot_back() -> None:
    def boom() -> None:
        raise ValueError("boom")

    async def main() -> int:
        budget = SyncBudget(1)
        sync_limiter.set(budget)
        for _ in range(5):
            with pytest.raises(ValueError, match="boom"):
                await run_sync(boom)
        return budget.free_slots

    assert asyncio.run(main()) == 1


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_sync_workers must be at least 1, not 0"):
        SyncBudget(0)


def test_idle_workers_leave_and_later_calls_get_new_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "IDLE_SECONDS", 0.1)
    barrier = threading.Barrier(3, timeout=5)

    def meet() -> threading.Thread:
        barrier.wait()  # only returns if three bodies run at the same time
        return threading.current_thread()

    async def main() -> tuple[list[threading.Thread], threading.Thread]:
        budget = SyncBudget(3)
        first = await asyncio.gather(*(budget_call(budget, meet) for _ in range(3)))
        await _settle_until(lambda: not any(thread.is_alive() for thread in first))
        again = await budget_call(budget, threading.current_thread)
        budget.retire()
        return first, again

    first, again = asyncio.run(main())
    assert len(set(first)) == 3
    assert all(again is not thread for thread in first)  # a new thread serves the next call


async def budget_call(budget: SyncBudget, func: Any) -> Any:
    from toolwire.tools.threads import run_sync_within

    return await run_sync_within(budget, func, (), {})


def test_many_concurrent_calls_each_get_their_own_result_and_context() -> None:
    from toolwire.tools.threads import run_sync_within

    probe: contextvars.ContextVar[int] = contextvars.ContextVar("probe", default=-1)

    def body(n: int) -> tuple[int, int]:
        return n, probe.get()

    async def one(budget: SyncBudget, n: int) -> tuple[int, int]:
        probe.set(n)  # this task's own context
        return await run_sync_within(budget, body, (n,), {})

    async def main() -> tuple[list[tuple[int, int]], int]:
        budget = SyncBudget(8)
        results = await asyncio.wait_for(asyncio.gather(*(one(budget, n) for n in range(2000))), 60)
        budget.retire()
        return results, budget.free_slots

    results, free = asyncio.run(main())
    assert results == [(n, n) for n in range(2000)]
    assert free == 8


def test_a_call_cancelled_while_waiting_for_a_slot_never_runs_its_body() -> None:
    bodies = Bodies()
    ran: list[str] = []

    async def main() -> tuple[bool, int]:
        budget = SyncBudget(1)
        sync_limiter.set(budget)
        first = asyncio.ensure_future(run_sync(bodies.hang, 10))
        await _settle_until(lambda: bodies.now == 1)
        second = asyncio.ensure_future(run_sync(ran.append, "second"))
        await asyncio.sleep(0.01)
        second.cancel()
        bodies.release.set()
        assert await asyncio.wait_for(first, 5) == "done"
        await _settle_until(lambda: budget.free_slots == 1)
        return second.cancelled(), budget.abandoned

    assert asyncio.run(main()) == (True, 0)
    assert ran == []


def test_a_body_whose_call_was_cancelled_counts_as_abandoned_until_it_ends() -> None:
    bodies = Bodies()

    async def main() -> tuple[int, int, list[str], int, int]:
        budget = SyncBudget(2)
        sync_limiter.set(budget)
        stuck = asyncio.ensure_future(run_sync(bodies.hang, 10))
        await _settle_until(lambda: bodies.now == 1)
        stuck.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stuck
        abandoned, free = budget.abandoned, budget.free_slots
        others = await asyncio.gather(*(run_sync(str, n) for n in range(5)))
        bodies.release.set()
        await _settle_until(lambda: budget.abandoned == 0)
        return abandoned, free, others, budget.abandoned, budget.free_slots

    assert asyncio.run(main()) == (1, 2, ["0", "1", "2", "3", "4"], 0, 2)
