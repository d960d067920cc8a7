"""Where synchronous tool functions run: worker threads, within the budget a server sets.

A thread cannot be stopped. When a call to a sync tool times out or is cancelled, its body
runs on to its end, and the call's caller has already been answered. Freeing the call's
slot at once let a hung tool pile up bodies and threads without bound; keeping the slot
until the body ends would let a hung tool take every slot. A server's `SyncBudget` does
neither: `limit` slots for calls that are still waited for, plus an allowance of as many
again for bodies whose calls already ended. While that allowance is full, a function that
has bodies in it is refused at once (`SyncToolRefused`), so the slots stay free for the
other tools. At most 2 x `limit` bodies run at a time.

Calls of functions known to be quick take the express lane (`_express.py`): one worker per
budget that runs them one at a time under a single slot, batched; it hands that slot to a
body that turns slow there. The other calls take a slot each and a thread of `_pool.py`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from . import _pool
from ._express import REROUTED, ExpressLane, retire_lanes
from ._pool import QUICK_WAIT_SECONDS, BodyWatch

if TYPE_CHECKING:
    import anyio

__all__ = [
    "QUICK_WAIT_SECONDS",
    "SyncBudget",
    "SyncToolRefused",
    "release_workers",
    "run_sync",
    "run_sync_within",
    "sync_limiter",
    "worker_wait",
]

T = TypeVar("T")

sync_limiter: ContextVar[SyncBudget | anyio.CapacityLimiter | asyncio.Semaphore | None] = (
    ContextVar("toolwire_sync_limiter", default=None)
)
"""The limiter for callers that are handed none: `run_sync`, and tools invoked without one.
A server passes its own explicitly (a request's task may not share the session's context);
None means nothing beyond the pool's own size."""

worker_wait: ContextVar[list[int] | None] = ContextVar("toolwire_worker_wait", default=None)
"""A list a caller installs to learn why its call was slow: `run_sync` appends the budget's
limit when the call was cancelled while it still waited for a free slot."""


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
        self._slots = asyncio.Semaphore(limit)
        self._abandoned = 0  # bodies in the allowance
        self._abandoned_by: dict[Hashable, int] = {}  # per function, slot holders included
        self._lane: ExpressLane | None = None

    @property
    def abandoned(self) -> int:
        """Bodies running in the allowance (their calls already ended)."""
        return self._abandoned

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
        key: Hashable = func
        self._check(key)
        if _pool._quick.get(id(func)):
            lane = self._lane
            if lane is None or lane.loop is not loop:
                lane = self._lane = ExpressLane(
                    loop, self._try_slot, self._slots.release, self._adopt
                )
            if lane.admits():
                watch = BodyWatch(holds_slot=False)
                try:
                    answer = await lane.call(func, args, kwargs, watch)
                except BaseException:
                    if watch.holds_slot:
                        self._leave(loop, key, watch)
                    raise
                if answer is not REROUTED:
                    if watch.holds_slot:
                        self._slots.release()
                    return answer  # type: ignore[no-any-return]
        try:
            await self._slots.acquire()
        except asyncio.CancelledError:
            note = worker_wait.get()
            if note is not None:
                note.append(self.limit)
            raise
        try:
            self._check(key)  # the allowance may have filled while this call waited
        except SyncToolRefused:
            self._slots.release()
            raise
        watch = BodyWatch()
        try:
            result = await _pool.pool(limited=True).call(loop, func, args, kwargs, watch)
        except BaseException:
            self._leave(loop, key, watch)
            raise
        self._slots.release()  # the body has ended: its result is here
        return result

    def _try_slot(self) -> bool:
        """Take a slot if one is free now, as an uncontended `acquire()` would (the express
        lane takes one from a plain callback, where it cannot wait)."""
        slots = self._slots
        if slots.locked():
            return False
        slots._value -= 1
        return True

    def _adopt(self, key: Hashable, watch: BodyWatch, call_ended: bool) -> None:
        """The express lane's stuck body took the lane's slot: its call holds it now."""
        watch.holds_slot = True
        if call_ended:
            assert self._lane is not None
            self._leave(self._lane.loop, key, watch)

    def _leave(self, loop: asyncio.AbstractEventLoop, key: Hashable, watch: BodyWatch) -> None:
        """A call that stops waiting: its body may still run."""
        holds_slot = self._abandoned >= self.limit
        ended = functools.partial(self._abandoned_body_ended, key, holds_slot)
        if not watch.abandon(loop, ended):
            self._slots.release()
            return
        self._abandoned_by[key] = self._abandoned_by.get(key, 0) + 1
        if not holds_slot:
            self._abandoned += 1
            self._slots.release()

    def _abandoned_body_ended(self, key: Hashable, held_slot: bool) -> None:
        left = self._abandoned_by[key] - 1
        if left:
            self._abandoned_by[key] = left
        else:
            del self._abandoned_by[key]
        if held_slot:
            self._slots.release()
        else:
            self._abandoned -= 1


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
    limiter: SyncBudget | anyio.CapacityLimiter | asyncio.Semaphore | None,
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
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is None:  # another anyio backend (trio): let anyio do it
        import anyio.to_thread

        call = functools.partial(func, *args, **kwargs)
        capacity = limiter if isinstance(limiter, anyio.CapacityLimiter) else None
        return await anyio.to_thread.run_sync(call, abandon_on_cancel=True, limiter=capacity)
    if type(limiter) is SyncBudget:
        return await limiter.run(loop, func, args, kwargs)
    if limiter is None:
        return await _pool.pool(limited=False).call(loop, func, args, kwargs)
    assert not isinstance(limiter, SyncBudget)
    await limiter.acquire()
    try:
        return await _pool.pool(limited=True).call(loop, func, args, kwargs)
    finally:
        limiter.release()


def release_workers() -> None:
    """At the end of serving: idle worker threads leave now, busy ones after their job, and
    a later serving in this process starts with fresh pools."""
    _pool._shutdown_pools()
    _pool._forget_pools()
    retire_lanes()
