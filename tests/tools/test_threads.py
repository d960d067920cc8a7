"""run_sync: worker threads, context variables, the server's limiter, cancellation."""

from __future__ import annotations

import asyncio
import contextvars
import operator
import os
import sys
import threading
import time
from typing import Any

import anyio
import pytest

from toolwire.tools._pool import _WorkerPool
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
    from toolwire.tools import _pool as threads

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
        for _ in range(500):  # the worker records the hint just after answering
            if id(work) in threads._quick:
                break
            await asyncio.sleep(0.002)
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
    from toolwire.tools import _pool as threads

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
        for _ in range(500):  # the worker records the hint just after answering
            if id(maybe_slow) in threads._quick:
                break
            await asyncio.sleep(0.002)
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
        for _ in range(500):  # the hint is recorded just after answering
            if threads._quick[id(maybe_slow)] is False:
                break
            await asyncio.sleep(0.002)
        return result, ticks, threads._quick[id(maybe_slow)]

    result, ticks, quick_after = asyncio.run(main())
    assert result == "slow"
    assert ticks == ["loop ran"]  # the ticker released the gate: the loop was not blocked
    assert quick_after is False


def _pool_threads(pool: _WorkerPool) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(pool._name + "_")]


def test_sequential_calls_reuse_one_worker() -> None:
    pool = _WorkerPool(8, "reuse-test")

    async def main() -> list[int]:
        loop = asyncio.get_running_loop()
        return [await pool.call(loop, lambda i=i: i * 2, (), {}) for i in range(200)]

    try:
        assert asyncio.run(main()) == [i * 2 for i in range(200)]
        # A worker is idle again before its answer goes out, so the next call wakes it
        # through the pipe instead of starting a thread.
        assert pool._threads == 1
    finally:
        pool.shutdown()


def test_more_jobs_than_workers_all_run_and_the_pool_stays_bounded() -> None:
    pool = _WorkerPool(2, "bounded-test")
    running = 0
    peak = 0
    guard = threading.Lock()

    def job(i: int) -> int:
        nonlocal running, peak
        with guard:
            running += 1
            peak = max(peak, running)
        time.sleep(0.002)
        with guard:
            running -= 1
        return i

    async def main() -> list[int]:
        loop = asyncio.get_running_loop()
        return list(await asyncio.gather(*(pool.call(loop, job, (i,), {}) for i in range(40))))

    try:
        assert asyncio.run(main()) == list(range(40))
        assert pool._threads == 2
        assert peak == 2  # queued jobs waited for a busy worker to finish
    finally:
        pool.shutdown()


def test_concurrent_submitters_never_strand_a_job() -> None:
    # Several event loops (threads) submit bursts while workers finish and go idle: every
    # job is answered, and the pipe never holds more bytes than there are sleeping workers.
    pool = _WorkerPool(3, "stress-test")
    results: list[list[int]] = []

    def submitter(seed: int) -> None:
        async def main() -> list[int]:
            loop = asyncio.get_running_loop()
            out = []
            for burst in range(30):
                size = 1 + (seed * 7 + burst) % 5
                out += await asyncio.gather(
                    *(pool.call(loop, operator.add, (seed, i), {}) for i in range(size))
                )
            return out

        results.append(asyncio.run(main()))

    threads = [threading.Thread(target=submitter, args=(seed,)) for seed in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert not any(thread.is_alive() for thread in threads)
        assert len(results) == 4
        for out in results:
            seed = out[0]
            expected = []
            for burst in range(30):
                expected += [seed + i for i in range(1 + (seed * 7 + burst) % 5)]
            assert out == expected
        assert pool._threads <= 3
        time.sleep(0.05)  # every worker idle: each owes exactly one read
        assert pool._idle == pool._threads
        assert _pending_bytes(pool) == 0
    finally:
        pool.shutdown()


def _pending_bytes(pool: _WorkerPool) -> int:
    import fcntl
    import termios

    buffer = bytearray(4)
    fcntl.ioctl(pool._wake_read, termios.FIONREAD, buffer)
    return int.from_bytes(buffer, sys.byteorder)


def test_shutdown_lets_idle_workers_leave_and_closes_the_pipe() -> None:
    pool = _WorkerPool(4, "shutdown-test")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(pool.call(loop, time.sleep, (0.01,), {}) for _ in range(3)))

    asyncio.run(main())
    workers = _pool_threads(pool)
    assert len(workers) == 3
    read_fd = pool._wake_read
    pool.shutdown()
    for worker in workers:
        worker.join(5)
    assert not any(worker.is_alive() for worker in workers)
    with pytest.raises(OSError):  # closed by the last worker to leave
        os.fstat(read_fd)
    with pytest.raises(RuntimeError, match="shut down"):
        pool._submit((None, None, None, None, None, None, 0))  # type: ignore[arg-type]


def test_a_busy_worker_finishes_its_job_after_shutdown_then_leaves() -> None:
    pool = _WorkerPool(2, "busy-shutdown-test")
    release = threading.Event()

    async def main() -> str:
        loop = asyncio.get_running_loop()
        call = asyncio.ensure_future(pool.call(loop, lambda: release.wait(5) and "done", (), {}))
        await asyncio.sleep(0.02)
        pool.shutdown()
        release.set()
        return await call

    assert asyncio.run(main()) == "done"
    for worker in _pool_threads(pool):
        worker.join(5)
    assert not _pool_threads(pool)
    assert pool._pipe_fds == ()
