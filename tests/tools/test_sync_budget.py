"""SyncBudget: bodies of sync tools stay bounded when their calls time out or are cancelled,
a hung function cannot take the slots other functions need, and idle workers leave."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from toolwire.tools import threads
from toolwire.tools.threads import (
    SyncBudget,
    SyncToolRefused,
    run_sync,
    run_sync_within,
    sync_limiter,
    worker_wait,
)


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


def test_cancelling_right_after_the_hand_over_either_runs_the_body_or_never_does() -> None:
    """The worker starting a body and the loop cancelling its call race; whichever wins, the
    books balance: every slot comes back, nothing stays abandoned or handed over."""
    ran: list[int] = []

    async def main() -> tuple[int, int, int, int]:
        budget = SyncBudget(2)
        cancelled_first = 0
        for n in range(500):
            call = asyncio.ensure_future(run_sync_within(budget, ran.append, (n,), {}))
            for _ in range(n % 3):  # cancel at several points of the hand-over
                await asyncio.sleep(0)
            call.cancel()
            try:
                await call
            except asyncio.CancelledError:
                cancelled_first += 1
        await _settle_until(lambda: budget.abandoned == 0 and budget.free_slots == 2)
        workers = budget._workers
        pending = workers.pending if workers is not None else 0
        budget.retire()
        return cancelled_first, budget.free_slots, budget.abandoned, pending

    cancelled_first, free, abandoned, pending = asyncio.run(main())
    assert (free, abandoned, pending) == (2, 0, 0)
    assert len(ran) == len(set(ran))  # no body ran twice
    assert 500 - cancelled_first <= len(ran) <= 500  # each answered call ran its body


def test_a_body_raising_stop_iteration_fails_its_call_instead_of_hanging_it() -> None:
    def stop() -> None:
        raise StopIteration("drained")

    async def main() -> BaseException:
        budget = SyncBudget(1)
        with pytest.raises(RuntimeError) as caught:
            await asyncio.wait_for(run_sync_within(budget, stop, (), {}), 30)
        budget.retire()
        return caught.value

    error = asyncio.run(main())
    assert str(error) == "the function raised StopIteration: drained"
    assert isinstance(error.__cause__, StopIteration)


def test_release_workers_returns_the_threads_let_go_and_busy_ones_finish_their_body() -> None:
    release = threading.Event()
    finished: list[str] = []

    def busy() -> None:
        release.wait(30)
        finished.append("busy")

    async def main() -> list[threading.Thread]:
        budget = SyncBudget(2)
        assert await run_sync_within(budget, str, (1,), {}) == "1"
        call = asyncio.ensure_future(run_sync_within(budget, busy, (), {}))
        await asyncio.sleep(0.05)
        call.cancel()  # abandoned: its body keeps running
        with contextlib.suppress(asyncio.CancelledError):
            await call
        return threads.release_workers()

    dismissed = asyncio.run(main())
    assert dismissed and all(thread.daemon for thread in dismissed)
    assert all(thread.name.startswith("toolwire-sync-") for thread in dismissed)
    release.set()
    for thread in dismissed:
        thread.join(30)
    assert not any(thread.is_alive() for thread in dismissed)
    assert finished == ["busy"]


HUNG_AT_EXIT = """
import asyncio, threading
from toolwire.tools.threads import SyncBudget, run_sync_within

async def main():
    budget = SyncBudget(1)
    never = threading.Event()
    try:
        await asyncio.wait_for(run_sync_within(budget, never.wait, (), {}), 0.1)
    except TimeoutError:
        print("timed out", flush=True)

asyncio.run(main())
"""


def test_a_hung_body_does_not_hold_the_interpreter_at_exit() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HUNG_AT_EXIT],
        check=False,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert (done.returncode, done.stdout) == (0, b"timed out\n"), done.stderr


def test_calls_waiting_for_a_slot_start_in_the_order_they_came() -> None:
    started: list[int] = []
    gate = threading.Event()

    def body(number: int) -> int:
        started.append(number)
        if number == 0:
            gate.wait(10)
        return number

    async def main() -> list[int]:
        budget = SyncBudget(1)
        first = asyncio.ensure_future(run_sync_within(budget, body, (0,), {}))
        await _settle_until(lambda: started == [0])
        waiting = [
            asyncio.ensure_future(run_sync_within(budget, body, (n,), {})) for n in (1, 2, 3)
        ]
        await asyncio.sleep(0.02)
        assert started == [0]  # the one slot is taken: the others wait on the loop
        gate.set()
        results = await asyncio.gather(first, *waiting)
        budget.retire()
        return results

    assert asyncio.run(main()) == [0, 1, 2, 3]
    assert started == [0, 1, 2, 3]


def test_a_call_cancelled_in_the_pass_that_frees_its_slot_never_runs_its_body() -> None:
    # Both calls are cancelled in one pass; the holder's task runs first and frees the slot
    # while the cancelled call is still queued. The loop then sleeps (letting go of the
    # interpreter lock), so a body handed over by mistake would start before the cancelled
    # call's own task could take it back.
    ran: list[str] = []
    gate = threading.Event()

    def holder() -> None:
        gate.wait(10)

    async def main() -> tuple[int, int]:
        budget = SyncBudget(1)
        holding = asyncio.ensure_future(run_sync_within(budget, holder, (), {}))
        await asyncio.sleep(0.02)
        waiting = asyncio.ensure_future(run_sync_within(budget, ran.append, ("ran",), {}))
        await asyncio.sleep(0.02)
        holding.cancel()
        asyncio.get_running_loop().call_soon(time.sleep, 0.1)
        waiting.cancel()
        for task in (holding, waiting):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        gate.set()
        await _settle_until(lambda: budget.abandoned == 0)
        follow_up = await run_sync_within(budget, ran.append, ("after",), {})
        assert follow_up is None
        budget.retire()
        return budget.free_slots, budget.abandoned

    assert asyncio.run(main()) == (1, 0)
    assert ran == ["after"]


def test_a_worker_that_cannot_start_fails_its_call_and_leaves_the_slot_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class NoThreads(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    async def main() -> tuple[str, int, int]:
        budget = SyncBudget(2)
        with monkeypatch.context() as patched:
            patched.setattr(threads.threading, "Thread", NoThreads)
            with pytest.raises(RuntimeError) as refused:
                await asyncio.wait_for(run_sync_within(budget, sum, ([1, 2],), {}), 5)
        free = budget.free_slots
        answer = await asyncio.wait_for(run_sync_within(budget, sum, ([1, 2],), {}), 5)
        budget.retire()
        return str(refused.value), free, answer

    assert asyncio.run(main()) == ("can't start new thread", 2, 3)
