"""The express lane: quick sync bodies on one long-lived worker, batched, within the budget.

Every wait is bounded; a bound that runs out fails the test, nothing measures a duration.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from toolwire.errors import ToolAbortedError
from toolwire.tools import _express, _pool
from toolwire.tools.threads import SyncBudget, run_sync_within

BOUND = 30.0  # seconds: only ever reached when something is wrong
EXPRESS = "toolwire-express"

probe: contextvars.ContextVar[int] = contextvars.ContextVar("probe", default=-1)


class Overlap:
    """The most bodies that ever ran at once, counted by the bodies themselves."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


async def _until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + BOUND
    while not check():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.002)


async def _make_quick(budget: SyncBudget, func: Callable[..., Any], *args: Any) -> None:
    """Call `func` until its hint says quick (a loaded machine may stall one call)."""
    for _ in range(200):
        await run_sync_within(budget, func, args, {})
        try:
            await asyncio.wait_for(_until(lambda: _pool._quick.get(id(func)) is not None), BOUND)
        except TimeoutError:
            continue
        if _pool._quick.get(id(func)):
            return
    raise AssertionError("the function never measured quick")


@pytest.fixture(autouse=True)
def _fresh_hints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pool, "_quick", {})  # hints are keyed by id(): start clean


def test_many_concurrent_calls_each_get_their_own_result_and_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No body here is slow: a worker the OS leaves without a CPU must not be taken for stuck.
    monkeypatch.setattr(_express, "STUCK_SECONDS", BOUND * 10)

    def body(n: int) -> tuple[int, int, str]:
        return n, probe.get(), threading.current_thread().name

    async def one(budget: SyncBudget, n: int) -> tuple[int, int, str]:
        probe.set(n)  # this task's own context
        return await run_sync_within(budget, body, (n,), {})

    async def main() -> tuple[list[tuple[int, int, str]], int]:
        budget = SyncBudget(8)
        await _make_quick(budget, body, 0)
        results: list[tuple[int, int, str]] = []
        for wave in range(4):
            numbers = range(wave * 500, (wave + 1) * 500)
            results += await asyncio.wait_for(
                asyncio.gather(*(one(budget, n) for n in numbers)), BOUND
            )
        return results, budget._slots._value

    results, free = asyncio.run(main())
    assert [(n, seen) for n, seen, _ in results] == [(n, n) for n in range(2000)]
    assert {name for _, _, name in results} == {EXPRESS}
    assert free == 8  # the lane gave its slot back once idle


def test_a_body_turning_slow_does_not_hold_up_the_calls_queued_behind_it() -> None:
    gate = threading.Event()
    overlap = Overlap()

    def work(n: int, block: bool = False) -> tuple[int, str]:
        with overlap:
            if block:
                gate.wait(BOUND)
            return n, threading.current_thread().name

    async def main() -> tuple[Any, ...]:
        budget = SyncBudget(2)
        await _make_quick(budget, work, 0)
        # One pass of the loop queues them all, the one that blocks first in line.
        stuck = asyncio.ensure_future(run_sync_within(budget, work, (-1,), {"block": True}))
        queued = [asyncio.ensure_future(run_sync_within(budget, work, (n,), {})) for n in range(40)]
        answers = await asyncio.wait_for(asyncio.gather(*queued), BOUND)
        still_running = not stuck.done()
        gate.set()
        last = await asyncio.wait_for(stuck, BOUND)
        await _until(lambda: budget._slots._value == 2)
        return answers, still_running, last

    answers, still_running, last = asyncio.run(main())
    assert [n for n, _ in answers] == list(range(40))
    assert still_running  # they were answered while the slow body still ran
    assert last[0] == -1 and last[1] == EXPRESS  # it had started in the lane
    assert overlap.most <= 2  # the budget held: the stuck body kept its slot


def test_with_no_slot_left_the_calls_behind_a_stuck_body_wait_for_one() -> None:
    """Budget 1: the stuck body holds the only slot, so the queued calls go the general way
    and run once it ends; never two bodies at once."""
    gate = threading.Event()
    overlap = Overlap()
    started = threading.Event()

    def work(n: int, block: bool = False) -> int:
        with overlap:
            if block:
                started.set()
                gate.wait(BOUND)
            return n

    async def main() -> list[int]:
        budget = SyncBudget(1)
        await _make_quick(budget, work, 0)
        stuck = asyncio.ensure_future(run_sync_within(budget, work, (-1,), {"block": True}))
        queued = [asyncio.ensure_future(run_sync_within(budget, work, (n,), {})) for n in range(10)]
        await asyncio.to_thread(started.wait, BOUND)
        await _until(lambda: _pool._quick.get(id(work)) is False)  # the lane saw it stuck
        gate.set()
        answers = await asyncio.wait_for(asyncio.gather(stuck, *queued), BOUND)
        await _until(lambda: budget._slots._value == 1)
        return answers

    assert asyncio.run(main()) == [-1, *range(10)]
    assert overlap.most == 1


def test_a_base_exception_from_a_quick_body_fails_that_call_only() -> None:
    def work(n: int) -> int:
        if n < 0:
            raise SystemExit(3)
        return n

    async def main() -> tuple[BaseException | int, ...]:
        budget = SyncBudget(4)
        await _make_quick(budget, work, 0)
        return tuple(
            await asyncio.gather(
                *(run_sync_within(budget, work, (n,), {}) for n in (1, -1, 2)),
                return_exceptions=True,
            )
        )

    first, failed, last = asyncio.run(main())
    assert (first, last) == (1, 2)
    assert isinstance(failed, ToolAbortedError)
    assert isinstance(failed.__cause__, SystemExit)


def test_a_call_cancelled_while_queued_never_runs_its_body(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_express, "STUCK_SECONDS", BOUND * 10)  # keep the queue behind it
    gate = threading.Event()
    started = threading.Event()
    ran: list[int] = []

    def work(n: int, block: bool = False) -> int:
        ran.append(n)
        if block:
            started.set()
            gate.wait(BOUND)
        return n

    async def main() -> tuple[int, bool, int]:
        budget = SyncBudget(2)
        await _make_quick(budget, work, 0)
        ran.clear()
        first = asyncio.ensure_future(run_sync_within(budget, work, (1,), {"block": True}))
        second = asyncio.ensure_future(run_sync_within(budget, work, (2,), {}))
        await asyncio.to_thread(started.wait, BOUND)
        second.cancel()
        gate.set()
        answer = await asyncio.wait_for(first, BOUND)
        await _until(lambda: budget._slots._value == 2)
        return answer, second.cancelled(), budget._slots._value

    assert asyncio.run(main()) == (1, True, 2)
    assert ran == [1]


def test_the_idle_express_worker_leaves_and_a_new_one_serves_later_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_pool, "IDLE_SECONDS", 0.1)
    monkeypatch.setattr(_express, "STUCK_SECONDS", BOUND * 10)  # as above: nothing is slow

    def which() -> threading.Thread:
        return threading.current_thread()

    async def main() -> tuple[int, int, bool]:
        budget = SyncBudget(2)
        await _make_quick(budget, which)
        first = await asyncio.gather(*(run_sync_within(budget, which, (), {}) for _ in range(5)))
        await _until(lambda: not any(thread.is_alive() for thread in first))
        again = await asyncio.gather(*(run_sync_within(budget, which, (), {}) for _ in range(5)))
        assert all(thread.name == EXPRESS for thread in first + again)
        return len(set(first)), len(set(again)), any(t in first for t in again)

    assert asyncio.run(main()) == (1, 1, False)


def test_a_stuck_body_whose_call_timed_out_counts_as_abandoned_until_it_ends() -> None:
    """The stuck body takes the lane's slot with it, and its call (cancelled) leaves it to
    the budget's allowance like any call that stops waiting; everything comes back after."""
    gate = threading.Event()
    started = threading.Event()

    def work(n: int, block: bool = False) -> int:
        if block:
            started.set()
            gate.wait(BOUND)
        return n

    async def main() -> tuple[int, int, list[int], int, int]:
        budget = SyncBudget(2)
        await _make_quick(budget, work, 0)
        stuck = asyncio.ensure_future(run_sync_within(budget, work, (-1,), {"block": True}))
        await asyncio.to_thread(started.wait, BOUND)
        await _until(lambda: _pool._quick.get(id(work)) is False)  # left behind by the lane
        stuck.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stuck
        abandoned = budget.abandoned
        free_meanwhile = budget._slots._value
        others = await asyncio.wait_for(
            asyncio.gather(*(run_sync_within(budget, work, (n,), {}) for n in range(5))), BOUND
        )
        gate.set()
        await _until(lambda: budget.abandoned == 0)
        await _until(lambda: budget._slots._value == 2)
        return abandoned, free_meanwhile, others, budget.abandoned, budget._slots._value

    assert asyncio.run(main()) == (1, 2, [0, 1, 2, 3, 4], 0, 2)
