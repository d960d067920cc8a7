"""SyncBudget: bodies of sync tools stay bounded when their calls time out or are cancelled,
a hung function cannot take the slots other functions need, and idle workers leave."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

import pytest

from toolwire.tools import _pool
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
    assert budget._slots._value == 2  # every slot came back


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
        return budget._slots._value

    assert asyncio.run(main()) == 1


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_sync_workers must be at least 1, not 0"):
        SyncBudget(0)


def test_idle_workers_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "IDLE_SECONDS", 0.1)
    pool = _pool._WorkerPool(8, "toolwire-idle-test")
    barrier = threading.Barrier(4, timeout=5)

    def meet() -> str:
        barrier.wait()
        return threading.current_thread().name

    async def main() -> set[str]:
        loop = asyncio.get_running_loop()
        names = await asyncio.gather(*(pool.call(loop, meet, (), {}) for _ in range(4)))
        return set(names)

    names = asyncio.run(main())
    assert len(names) == 4

    def alive() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name in names]

    deadline = time.monotonic() + 10
    while alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert alive() == []
    assert pool._threads == 0 and pool._idle == 0
    # The pool still works: a new worker is started for the next job.
    assert asyncio.run(_one(pool)) == "again"
    pool.shutdown()


async def _one(pool: _pool._WorkerPool) -> str:
    return await pool.call(asyncio.get_running_loop(), lambda: "again", (), {})
