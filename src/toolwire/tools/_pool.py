"""The worker threads that run sync tool bodies, and the hand-offs to and from them.

See `toolwire.tools.threads` for who may run what (the server's budget); this module only
runs jobs. Idle workers leave after `IDLE_SECONDS`, so a burst of calls does not leave its
threads behind for the life of the process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import functools
import os
import select
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import ToolAbortedError

__all__ = ["QUICK_WAIT_SECONDS", "BodyWatch", "pool"]

T = TypeVar("T")

QUICK_WAIT_SECONDS = 0.0005
"""How long the event loop may wait in place for a sync call that was quick last time."""

IDLE_SECONDS = 30.0
"""How long an idle worker waits for a job before it leaves."""

# id(func) -> whether its last call took less than QUICK_WAIT_SECONDS. A hint only: a stale
# entry (a reused id) costs one wait at most, never a wrong result.
_quick: dict[int, bool] = {}
_QUICK_MEMORY = 4096

# asyncio.to_thread's default executor size, so a tool sees the same concurrency as in the SDK.
_DEFAULT_WORKERS = min(32, (os.cpu_count() or 1) + 4)
# Behind a server's budget the budget bounds how many bodies run; the pool's own bound is
# only a backstop.
_LIMITED_WORKERS = 256


class BodyWatch:
    """Tells the event loop when a body ends whose call stopped waiting for it.

    The worker marks the body ended (run or skipped); the loop, when its call is cancelled,
    either learns the body already ended or leaves a callback that the worker schedules on
    the loop when it does. The lock orders the two.

    `holds_slot` (loop side) says whether the call holds a slot of its budget for the body:
    always in the pool; in the express lane only once the lane's worker got stuck on it and
    handed it the lane's slot (see _express.py).
    """

    __slots__ = ("_ended", "_lock", "_loop", "_then", "holds_slot")

    def __init__(self, holds_slot: bool = True) -> None:
        self.holds_slot = holds_slot
        self._lock = threading.Lock()
        self._ended = False
        self._then: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def ended(self) -> None:
        """Worker side: the body is over (or will never run)."""
        with self._lock:
            self._ended = True
            then, loop = self._then, self._loop
        if then is not None and loop is not None:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody counts any more
                loop.call_soon_threadsafe(then)

    def abandon(self, loop: asyncio.AbstractEventLoop, then: Callable[[], None]) -> bool:
        """Loop side: True if the body is still to end (`then` runs on `loop` when it
        does); False if it already ended."""
        with self._lock:
            if self._ended:
                return False
            self._then, self._loop = then, loop
            return True


def remember(key: int, elapsed: float) -> None:
    """Record whether the function `key` (its id) was quick this time."""
    if len(_quick) >= _QUICK_MEMORY:
        _quick.clear()
    _quick[key] = elapsed < QUICK_WAIT_SECONDS


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the caller was cancelled: the result is dropped
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class _Handoff:
    """A result the event loop is waiting for in place (see the module docstring)."""

    __slots__ = ("done", "error", "future", "guard", "result")

    def __init__(self) -> None:
        self.done = threading.Lock()
        self.done.acquire()  # released by the worker when the result is here
        self.guard = threading.Lock()  # orders "delivered" against "gave up"
        self.future: asyncio.Future[Any] | None = None  # where the result goes after giving up
        self.result: Any = None
        self.error: BaseException | None = None

    def deliver(self, result: Any, error: BaseException | None) -> asyncio.Future[Any] | None:
        """Worker side: hand the result over in place, or return the future it must settle
        because the loop stopped waiting."""
        with self.guard:
            if self.future is not None:
                return self.future
            self.result, self.error = result, error
            self.done.release()
            return None

    def wait(self, seconds: float) -> bool:
        """Loop side: whether the result arrived within `seconds`."""
        return self.done.acquire(timeout=seconds)

    def give_up(self, future: asyncio.Future[Any]) -> bool:
        """Loop side, after waiting in vain: the result goes to `future` from now on. False if
        it was delivered in place just before (take it then)."""
        with self.guard:
            if self.done.acquire(blocking=False):
                return False
            self.future = future
            return True

    def take(self) -> Any:
        error = self.error
        if error is not None:
            self.error = None  # no reference cycle through the traceback
            raise error
        return self.result


_Job = tuple[
    asyncio.AbstractEventLoop,
    "asyncio.Future[Any] | None",
    contextvars.Context,
    Callable[..., Any],
    Any,
    "_Handoff | None",
    int,
    "BodyWatch | None",
]


class _WorkerPool:
    """A small thread pool with one cheap hand-off each way.

    `loop.run_in_executor` pays for a `concurrent.futures.Future`, a work item, a semaphore and
    future chaining on every call; here a job is one tuple in a deque and the answer one
    `call_soon_threadsafe`, which roughly halves the cost of a sync tool call.

    An idle worker sleeps in a read of a pipe, and a job for it is announced with one byte.
    `os.write` lets go of the GIL before the system call that wakes the worker, so the worker
    finds the GIL free; a lock or queue released by the event loop wakes the worker while the
    loop still holds the GIL, and the worker often wakes only to sleep again until the loop
    lets go of it: two wake-ups instead of one, each costly on a virtual machine (measured:
    the pipe takes 7-30 us off a 150-190 us stdio call). Only idle workers are owed a byte, so
    the pipe holds at most one byte per thread and a write never blocks. Like an executor's,
    idle threads are told to leave when the interpreter shuts down; a busy one is waited for
    (the stdio transport exits without it after a grace period).
    """

    def __init__(self, max_workers: int, name: str) -> None:
        self._max_workers = max_workers
        self._name = name
        self._jobs: collections.deque[_Job] = collections.deque()
        self._lock = threading.Lock()
        self._idle = 0  # workers asleep on the pipe that no byte was written for yet
        self._threads = 0
        self._closed = False
        self._wake_read, self._wake_write = os.pipe()
        self._pipe_fds: tuple[int, ...] = (self._wake_read, self._wake_write)

    async def call(
        self,
        loop: asyncio.AbstractEventLoop,
        func: Callable[..., T],
        args: Sequence[Any],
        kwargs: dict[str, Any],
        watch: BodyWatch | None = None,
    ) -> T:
        """Run one call in a worker and return its result (or raise its exception); `watch`
        hears when the body ends."""
        call = functools.partial(func, *args, **kwargs) if kwargs else (func, *args)
        key = id(func)
        context = contextvars.copy_context()
        future: asyncio.Future[T]
        if _quick.get(key):
            handoff = _Handoff()
            self._submit((loop, None, context, _call, call, handoff, key, watch))
            if handoff.wait(QUICK_WAIT_SECONDS):
                return handoff.take()  # type: ignore[no-any-return]
            future = loop.create_future()
            if not handoff.give_up(future):
                return handoff.take()  # type: ignore[no-any-return]
        else:
            future = loop.create_future()
            self._submit((loop, future, context, _call, call, None, key, watch))
        return await future

    def _submit(self, job: _Job) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the sync worker pool is shut down")
            self._jobs.append(job)
            wake = self._idle > 0
            if wake:
                self._idle -= 1
                spawn = False
            else:  # every worker is busy: a new one, or the first to finish takes it
                spawn = self._threads < self._max_workers
                if spawn:
                    self._threads += 1
            number = self._threads
        if wake:
            os.write(self._wake_write, b"\0")
        elif spawn:
            threading.Thread(target=self._work, name=f"{self._name}_{number}").start()

    def _next(self) -> _Job | bool | None:
        """A queued job; else None after marking this worker idle (it must wait for its
        byte); False when the pool is closed and drained (the worker leaves)."""
        with self._lock:
            if self._jobs:
                return self._jobs.popleft()
            if self._closed:
                self._threads -= 1
                if not self._threads:  # the last reader of the pipe is leaving
                    self.close_pipe()
                return False
            self._idle += 1
            return None

    def _stay_idle(self, poller: select.poll) -> bool:
        """Sleep until a job is announced: True then (its byte is read), False when no job
        came for IDLE_SECONDS and this worker has left the pool."""
        while not poller.poll(IDLE_SECONDS * 1000):
            with self._lock:
                # Bytes are owed only to sleepers nobody claimed yet (`_idle`): if none is
                # left, a byte is on its way to one of us, possibly this one, so stay.
                if self._idle > 0:
                    self._idle -= 1
                    self._threads -= 1
                    if self._closed and not self._threads:
                        self.close_pipe()
                    return False
        os.read(self._wake_read, 1)
        return True

    def _work(self) -> None:
        poller = select.poll()
        poller.register(self._wake_read, select.POLLIN)
        job = self._next()
        while job is not False:
            if job is None:
                if not self._stay_idle(poller):
                    return
                job = self._next()  # None again if a finishing worker took the job first
                continue
            assert not isinstance(job, bool)
            loop, future, context, runner, call, handoff, key, watch = job
            del job
            waiter = handoff.future if handoff is not None else future
            elapsed = None
            if waiter is not None and waiter.done():
                # Cancelled before it started: skip it, as an executor would.
                result, error = None, None
            else:
                started = time.perf_counter()
                try:
                    result, error = context.run(runner, call), None
                except Exception as exc:
                    result, error = None, exc
                except BaseException as exc:  # SystemExit & co. mean nothing to the caller
                    result, error = None, ToolAbortedError(exc)
                elapsed = time.perf_counter() - started
            if watch is not None:
                watch.ended()
            # Idle (or holding the next job) before the answer goes out, so that a job sent
            # right after the answer finds this thread instead of starting another.
            upcoming = self._next()
            if handoff is not None:
                future = handoff.deliver(result, error)
            if future is not None:
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                    loop.call_soon_threadsafe(_settle, future, result, error)
            if elapsed is not None:  # after the answer: it is only a hint for the next call
                remember(key, elapsed)
            del loop, future, waiter, context, call, result, error, handoff, watch
            job = upcoming

    def shutdown(self, wait: bool = False, *, cancel_futures: bool = False) -> None:
        """Let idle workers leave; busy ones leave after their current job (never joined)."""
        del wait, cancel_futures  # the signature of Executor.shutdown, for the stdio transport
        with self._lock:
            self._closed = True
            sleeping, self._idle = self._idle, 0
            if not self._threads:
                self.close_pipe()
        if sleeping:
            os.write(self._wake_write, b"\0" * sleeping)

    def close_pipe(self) -> None:
        """Close the wake-up pipe: once no thread can read it any more, or in a forked child
        (which has the pipe but none of the threads)."""
        fds, self._pipe_fds = self._pipe_fds, ()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _call(call: Any) -> Any:
    if isinstance(call, tuple):
        return call[0](*call[1:])
    return call()


# _POOL serves calls behind a server's limiter (the stdio transport shuts it down at exit);
# _FREE_POOL serves calls outside a server, sized like asyncio's default executor.
_POOL: _WorkerPool | None = None
_FREE_POOL: _WorkerPool | None = None


def pool(*, limited: bool) -> _WorkerPool:
    global _POOL, _FREE_POOL  # noqa: PLW0603 - one pool of each kind per process
    if limited:
        if _POOL is None:
            _POOL = _WorkerPool(_LIMITED_WORKERS, "toolwire-sync")
        return _POOL
    if _FREE_POOL is None:
        _FREE_POOL = _WorkerPool(_DEFAULT_WORKERS, "toolwire-tool")
    return _FREE_POOL


def _shutdown_pools() -> None:
    for pool in (_POOL, _FREE_POOL):
        if pool is not None:
            pool.shutdown()


def _forget_pools() -> None:
    """Start over with new pools (the old ones' busy threads finish and leave on their own)."""
    global _POOL, _FREE_POOL  # noqa: PLW0603
    _POOL = None
    _FREE_POOL = None


def _after_fork_in_child() -> None:
    """The child has none of the parent's threads, only copies of their wake-up pipes."""
    for pool in (_POOL, _FREE_POOL):
        if pool is not None:
            pool.close_pipe()
    _forget_pools()


# Runs before the interpreter joins non-daemon threads, as concurrent.futures does.
threading._register_atexit(_shutdown_pools)  # type: ignore[attr-defined]
os.register_at_fork(after_in_child=_after_fork_in_child)
