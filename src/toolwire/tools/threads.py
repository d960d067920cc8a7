"""Where synchronous tool functions run: worker threads, within the budget a server sets.

A thread cannot be stopped, so a sync body runs to its end even after its call timed out or was
cancelled. A server's `SyncBudget` has `limit` slots for calls still waited for and an allowance
of as many again for such abandoned bodies; while the allowance is full, a function with bodies in
it is refused at once (`SyncToolRefused`). Calls beyond `limit` wait in order. Bodies run on the
budget's own daemon threads (idle ones leave after `IDLE_SECONDS`), each in a copy of its caller's
context; one cancelled before it starts never runs, and a `BaseException` fails its call only.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import queue
import threading
import weakref
from collections import Counter, deque
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ToolAbortedError

if TYPE_CHECKING:
    import anyio

__all__ = [
    "IDLE_SECONDS",
    "SyncBudget",
    "SyncToolRefused",
    "call_sync_or_async",
    "is_async_callable",
    "release_workers",
    "run_sync",
    "run_sync_within",
    "sync_limiter",
    "worker_wait",
]

T = TypeVar("T")

IDLE_SECONDS = 30.0
"""How long a budget's threads may go without a new body before they are let go."""

sync_limiter: ContextVar[SyncBudget | anyio.CapacityLimiter | None] = ContextVar(
    "toolwire_sync_limiter", default=None
)
"""The limiter for callers that are handed none: `run_sync`, and tools invoked without one.
A server passes its own explicitly (a request's task may not share the session's context);
None means anyio's default thread limiter."""

worker_wait: ContextVar[list[int] | None] = ContextVar("toolwire_worker_wait", default=None)
"""A list a caller installs to learn why its call was slow: `run_sync` appends the budget's
limit when the call was cancelled while it still waited for a free slot."""

_BUDGETS: weakref.WeakSet[SyncBudget] = weakref.WeakSet()


class SyncToolRefused(RuntimeError):
    """A sync tool's earlier calls still run after they ended, and no room is left for more.

    Args:
        running: How many abandoned bodies of this function are still running.
        limit: The budget's limit (the allowance for abandoned bodies is as large).
    """

    def __init__(self, running: int, limit: int) -> None:
        self.running = running
        self.limit = limit
        super().__init__(
            f"{running} earlier call(s) of this tool are still running after they timed out "
            f"or were cancelled, and the server's room for such calls ({limit}) is full; "
            "try again once they finish"
        )


def _body(func: Callable[..., T], args: Sequence[Any], kwargs: dict[str, Any]) -> T:
    """A body as a worker runs it: a non-`Exception` fails the call, not the worker."""
    try:
        return func(*args, **kwargs)
    except Exception:
        raise
    except BaseException as escaped:  # SystemExit & co. mean nothing to the caller
        raise ToolAbortedError(escaped) from escaped


class SyncBudget:
    """How many sync tool bodies may run: `limit` for calls someone waits for, and as many
    again for bodies whose calls already ended (see the module docstring).

    One per server and event loop; used from that loop's thread only.

    Args:
        limit: Bodies that may run for calls still waited for (`max_sync_workers`).
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"max_sync_workers must be at least 1, not {limit}")
        self.limit = limit
        self._queued: deque[_Job] = deque()  # calls waiting for a slot, oldest first
        self._taken = 0  # slots held, by calls or by abandoned bodies beyond the allowance
        self._abandoned = 0  # bodies in the allowance
        self._abandoned_by: Counter[Hashable] = Counter()  # per function, slot holders included
        self._workers: _Workers | None = None
        self._last_start = 0.0
        self._idle_check: asyncio.TimerHandle | None = None
        _BUDGETS.add(self)

    @property
    def abandoned(self) -> int:
        """Bodies running in the allowance (their calls already ended)."""
        return self._abandoned

    @property
    def free_slots(self) -> int:
        """Slots no call or body holds now."""
        return self.limit - self._taken

    def _check(self, key: Hashable) -> None:
        if self._abandoned >= self.limit and key in self._abandoned_by:
            raise SyncToolRefused(self._abandoned_by[key], self.limit)

    async def run(
        self,
        loop: asyncio.AbstractEventLoop,
        func: Callable[..., T],
        args: Sequence[Any],
        kwargs: dict[str, Any],
    ) -> T:
        """Run `func(*args, **kwargs)` in a worker once a slot is free.

        Raises:
            SyncToolRefused: This function's abandoned bodies are in a full allowance.
        """
        self._check(func)
        job = _Job(
            self, loop, func, args, kwargs, contextvars.copy_context(), loop.create_future(), [None]
        )
        if self._taken < self.limit:
            self._start(job)
        else:
            self._queued.append(job)
        try:
            return await job.waiter  # type: ignore[no-any-return]
        finally:
            self._leave(job)

    def _give_back(self) -> None:
        """A slot is free: the longest-waiting call takes it, in this same pass of the loop."""
        self._taken -= 1
        queued = self._queued
        while queued and self._taken < self.limit:
            job = queued.popleft()
            if job.waiter.done():  # cancelled while it waited: it leaves on its own
                continue
            try:
                self._check(job.func)  # the allowance may have filled while this call waited
            except SyncToolRefused as refused:
                job.waiter.set_exception(refused)
                continue
            self._start(job)

    def _start(self, job: _Job) -> None:
        """Give `job` a slot and a worker; when no worker can start, the call fails with why."""
        self._taken += 1
        loop = job.loop
        self._last_start = loop.time()
        if self._workers is None:
            self._workers = _Workers()
            self._idle_check = loop.call_later(IDLE_SECONDS, self._retire_if_idle, loop)
        try:
            self._workers.take(job)
        except Exception as failed:  # e.g. "can't start new thread"
            self._taken -= 1
            job.waiter.set_exception(failed)

    def _retire_if_idle(self, loop: asyncio.AbstractEventLoop) -> None:
        idle_for = loop.time() - self._last_start
        if idle_for < IDLE_SECONDS:
            self._idle_check = loop.call_later(IDLE_SECONDS - idle_for, self._retire_if_idle, loop)
            return
        self._idle_check = None
        self.retire()

    def retire(self) -> list[threading.Thread]:
        """Let the threads go: idle ones now, busy ones after their body; the next call
        starts new ones. Returns the threads let go (a caller may join them)."""
        workers, self._workers = self._workers, None
        if self._idle_check is not None:
            self._idle_check.cancel()
            self._idle_check = None
        return workers.dismiss() if workers is not None else []

    def _leave(self, job: _Job) -> None:
        """The call stops waiting: its slot comes back, unless its body still runs."""
        workers = job.workers
        if workers is None:  # it never got a slot
            if job in self._queued:
                self._queued.remove(job)
            note = worker_wait.get()
            if note is not None and job.waiter.cancelled():
                note.append(self.limit)
            return
        if job.over:
            self._give_back()
            return
        if job.claim():  # it never started
            workers.pending -= 1
            self._give_back()
            return
        holds_slot = self._abandoned >= self.limit  # a full allowance: it keeps the slot
        self._abandoned_by[job.func] += 1
        if not holds_slot:
            self._abandoned += 1
            self._give_back()
        job.abandoned = True
        job.held_slot = holds_slot

    def _body_ended(self, job: _Job, result: Any, error: BaseException | None) -> None:
        """On the loop, once a body is over: its call gets the outcome, or, if the call was
        abandoned, the allowance gets its room back."""
        job.over = True
        assert job.workers is not None
        job.workers.pending -= 1
        if not job.abandoned:
            waiter = job.waiter
            if not waiter.done():
                if error is None:
                    waiter.set_result(result)
                elif isinstance(error, StopIteration):  # a future refuses it: it ends coroutines
                    refused = RuntimeError(f"the function raised StopIteration: {error}")
                    refused.__cause__ = error
                    waiter.set_exception(refused)
                else:
                    waiter.set_exception(error)
            return
        self._abandoned_by[job.func] -= 1
        if not self._abandoned_by[job.func]:  # `_check` asks whether the function is listed
            del self._abandoned_by[job.func]
        if job.held_slot:
            self._give_back()
        else:
            self._abandoned -= 1


@dataclass(slots=True, eq=False)  # eq=False: a job is found in the queue by identity
class _Job:
    """One body on its way to a worker, and the loop's future for its outcome.

    `ticket` (one item) decides the race between a worker starting the body and the loop
    cancelling it: whoever pops the item wins (a list's `pop` is atomic).
    """

    budget: SyncBudget
    loop: asyncio.AbstractEventLoop
    func: Callable[..., Any]
    args: Sequence[Any]
    kwargs: dict[str, Any]
    context: contextvars.Context
    waiter: asyncio.Future[Any]
    ticket: list[None]
    over: bool = False
    abandoned: bool = False
    held_slot: bool = False
    workers: _Workers | None = None  # set when the job gets a slot

    def claim(self) -> bool:
        """Take the ticket: True for the one caller (loop or worker) that wins the race."""
        try:
            self.ticket.pop()
        except IndexError:
            return False
        return True

    def run(self) -> None:
        """In a worker: the body, unless cancelled first; then one wake-up of the loop."""
        if not self.claim():
            return
        result: Any = None
        error: BaseException | None = None
        try:
            result = self.context.run(_body, self.func, self.args, self.kwargs)
        except BaseException as failed:  # _body leaves only Exceptions
            error = failed
        assert self.workers is not None
        self.workers.report(self, result, error)


class _Workers:
    """A budget's threads and the queue they take jobs from; a new thread starts when every
    one has a job (at most 2 x limit then, since no more bodies may be out at once)."""

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        self.pending = 0  # jobs handed over whose end the loop has not heard of
        self.ended: deque[tuple[_Job, Any, BaseException | None]] = deque()
        self.wake_sent = False  # the loop is already told to take `ended`

    def report(self, job: _Job, result: Any, error: BaseException | None) -> None:
        """In a worker, once a body is over: queue its outcome and wake the loop, unless a
        wake-up is on its way already (it takes every outcome queued before it runs).

        Each wake-up gives the interpreter lock to the loop's thread and back, so bodies that
        end close together share one.
        """
        self.ended.append((job, result, error))
        if self.wake_sent:
            return
        self.wake_sent = True
        try:
            job.loop.call_soon_threadsafe(self._deliver)
        except RuntimeError:  # a closed loop has nobody left to tell
            return

    def _deliver(self) -> None:
        """On the loop: every outcome reported so far reaches its budget."""
        self.wake_sent = False  # before taking: a later report must wake the loop again
        ended = self.ended
        while ended:
            job, result, error = ended.popleft()
            job.budget._body_ended(job, result, error)

    def take(self, job: _Job) -> None:
        if self.pending >= len(self.threads):
            thread = threading.Thread(
                target=_serve,
                args=(self.inbox,),
                name=f"toolwire-sync-{len(self.threads)}",
                daemon=True,  # a hung body must not hold the interpreter's exit
            )
            thread.start()
            self.threads.append(thread)
        job.workers = self
        self.pending += 1
        self.inbox.put(job)

    def dismiss(self) -> list[threading.Thread]:
        for _ in self.threads:
            self.inbox.put(None)
        return self.threads


def _serve(inbox: queue.SimpleQueue[_Job | None]) -> None:
    """A worker thread: jobs until told to leave (None)."""
    while True:
        job = inbox.get()
        if job is None:
            return
        job.run()
        del job  # an idle worker keeps nothing of the last call alive


async def run_sync(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run `func` in a worker thread and wait for it.

    Cancelling the waiting task abandons the thread (it runs to its end, its result is
    dropped). Within a server, the server's `SyncBudget` decides when the body may start and
    what the abandoned body still counts for.

    Raises:
        SyncToolRefused: Within a server, when this function's abandoned bodies fill the
            budget's allowance.
    """
    return await run_sync_within(None, func, args, kwargs)


async def run_sync_within(
    limiter: SyncBudget | anyio.CapacityLimiter | None,
    func: Callable[..., T],
    args: Sequence[Any],
    kwargs: dict[str, Any],
) -> T:
    """`run_sync` with the limiter given: a server's budget for its calls, or None for the one
    `sync_limiter` holds (if any).

    Raises:
        SyncToolRefused: As `run_sync`.
    """
    if limiter is None:
        limiter = sync_limiter.get()
    if isinstance(limiter, SyncBudget):
        return await limiter.run(asyncio.get_running_loop(), func, args, kwargs)
    import anyio.to_thread

    call = functools.partial(_body, func, args, kwargs)
    return await anyio.to_thread.run_sync(call, abandon_on_cancel=True, limiter=limiter)


def release_workers() -> list[threading.Thread]:
    """At the end of serving: every budget's idle threads leave now, busy ones after their
    body, and later calls start new ones. Returns the threads let go: they are daemons, so
    whoever wants busy bodies to finish before the process exits joins them."""
    dismissed: list[threading.Thread] = []
    for budget in list(_BUDGETS):
        dismissed += budget.retire()
    return dismissed


def is_async_callable(func: Any) -> bool:
    """Whether calling `func` makes a coroutine by its declaration: an `async def` function (a
    partial or bound method of one included) or an object whose `__call__` is one."""
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(type(func).__call__)


async def call_sync_or_async(
    limiter: SyncBudget | anyio.CapacityLimiter | None,
    func: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
) -> Any:
    """An author's function called the way it is written: an async one awaited on the loop, a
    plain one in a worker within `limiter` (and what it returns awaited if it is awaitable).

    Raises:
        SyncToolRefused: As `run_sync`.
    """
    if is_async_callable(func):
        return await func(*args, **kwargs)
    result = await run_sync_within(limiter, func, args, kwargs)
    return await result if inspect.isawaitable(result) else result
