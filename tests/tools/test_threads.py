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


def test_a_base_exception_fails_that_call_only() -> None:
    from toolwire.errors import ToolAbortedError

    def work(n: int) -> int:
        if n < 0:
            raise SystemExit(3)
        return n

    async def main() -> tuple[BaseException | int, ...]:
        return tuple(
            await asyncio.gather(*(run_sync(work, n) for n in (1, -1, 2)), return_exceptions=True)
        )

    first, failed, last = asyncio.run(main())
    assert (first, last) == (1, 2)
    assert isinstance(failed, ToolAbortedError)
    assert isinstance(failed.__cause__, SystemExit)


def test_a_body_does_not_leak_context_changes_to_its_caller_or_the_next_call() -> None:
    def work() -> str:
        seen = probe.get()
        probe.set("changed in the body")
        return seen

    async def main() -> tuple[str, str, str]:
        probe.set("caller")
        first = await run_sync(work)
        second = await run_sync(work)
        return first, second, probe.get()

    assert asyncio.run(main()) == ("caller", "caller", "caller")
