"""The express lane: one long-lived worker per server budget for sync bodies known to be quick.

Why (issue #12; 2 vCPUs shared with other jobs, so CPU per call is the steady figure and
req/s the noisy one). `tools/call add(2, 3)`, stateless JSON over HTTP, 32 connections:
4,705 req/s with a sync `add`, 6,967 with `async def add`, floor 7,848. The server is bound
by its event loop's thread, and per-thread CPU from /proc under wrk showed why: a sync call
cost ~171 us on the loop thread plus ~26 us spread over three pool workers (1.8-3 voluntary
context switches per call), an async one ~138 us. A driver of 20,000 calls through one
`ServerSession` in process, 32 at a time, split the sync call's extra cost:

- 20 us per call for an async tool, 36-59 us for a sync one through the pool;
- 29 us with the sync body run inline but the call suspended on a future (a task made for
  the call, the future settled, the task resumed): the price of suspending at all;
- +7 us with the default budget of 8 slots for 32 calls: 24 of them wait on the semaphore,
  one more suspension and wake-up each;
- the rest is the hop: a wake-up per job, an answer posted through the loop's self-pipe per
  job, and a worker that, once awake, wants the GIL of a loop that lets go of it around
  every socket call and takes it back before the worker gets there (woken in vain, again
  and again: 6 futex calls per call under strace).

So calls to quick functions skip the semaphore and share one worker, and the hop's costs are
paid once per batch:

- The lane holds ONE slot of the budget while it has calls pending, however many are
  queued, since it runs one body at a time; it gives the slot back when idle.
- Jobs queue on a deque. The first job queued in a pass of the event loop schedules a kick
  for the next pass, so the jobs queued meanwhile share one wake-up (~19 per kick under
  wrk). The kick wakes the worker and waits in place, at most `QUICK_WAIT_SECONDS`, while
  the worker runs the batch with the GIL to itself; the loop then delivers the results
  itself, with no post through the self-pipe. (A kick that does not wait measured 10-45%
  more wall time and ~10% more CPU in process.) A batch that outlasts the wait is posted
  back by the worker with one `call_soon_threadsafe`.
- A lone call (the lane idle and nothing else ready on the loop, as over stdio) waits in
  place for its own result and never suspends, so it needs no task (protocol/_eager.py).
  The loop's ready queue is asyncio's private `_ready`; a loop without one (uvloop) only
  ever batches.
- A body that turns slow must not hold up the jobs queued behind it: while calls are
  pending, a timer looks every `STUCK_SECONDS`. A body that has kept the worker that long
  is left to that worker, which finishes it and leaves; the lane's slot goes with the body
  to its call, which from then on is treated as any call holding a slot (its budget's rules
  for calls that stop waiting apply). The queue goes to a new worker if a slot is free,
  else its calls are sent the general way (the pool, behind the semaphore). The function
  is marked slow, so its next calls go the general way until one is quick again.

Measured after, interleaved with the commit before the lane (bench_http, stateless JSON, 3
rounds at a load of ~2): toolwire / floor 0.80-0.83 instead of 0.69-0.75; CPU per sync call
under wrk ~148 us (async ~130, before ~160-190), 0.16 worker wake-ups per call; a lone call
still ~9 us in process and ~53 us p50 over stdio, as through the pool. An SSE answer waits
two passes of the loop for such a call, so that it still goes out whole (http/_answer.py).
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
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..errors import ToolAbortedError
from . import _pool
from ._express_threads import LANES, Job, Worker, retire_lanes
from ._pool import BodyWatch

__all__ = ["REROUTED", "STUCK_SECONDS", "ExpressLane", "retire_lanes"]

STUCK_SECONDS = 0.002
"""How long one body may keep the express worker before the calls queued behind it are
served elsewhere."""

REROUTED: Any = object()
"""What a lane call returns when it must go the general way (no slot, or its lane got stuck
before its body started)."""

_BATCH = 32  # results a worker holds back at most while jobs remain queued


class ExpressLane:
    """Runs quick sync bodies for one budget, on its event loop, one at a time.

    Loop side everything runs on `loop`'s thread; the worker touches only the deques, its
    `Worker` and, under `_lock`, who the current worker is.

    Args:
        loop: The event loop the calls come from; results are delivered there.
        take_slot: Takes a slot of the budget if one is free now (never waits).
        give_slot: Gives a slot back.
        adopt: Called with a job's function and watch when a stuck body takes the lane's
            slot with it: from then on its call holds that slot as if it had taken it itself
            (the budget's rules for calls that stop waiting apply), whether the call still
            waits (False) or not (True).
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        take_slot: Callable[[], bool],
        give_slot: Callable[[], None],
        adopt: Callable[[Hashable, BodyWatch, bool], None],
    ) -> None:
        self.loop = self._loop = loop
        self._take_slot = take_slot
        self._give_slot = give_slot
        self._adopt = adopt
        self._jobs: collections.deque[Job] = collections.deque()
        self._results: collections.deque[tuple[asyncio.Future[Any], Any, Any, bool]] = (
            collections.deque()
        )
        self._lock = threading.Lock()  # orders a worker's sleep against its wake-up
        # Orders the stuck check against the worker's end of a body. A lock of its own: the
        # loop holds `_lock` while it writes a wake-up byte, which lets go of the GIL, and a
        # worker that ran its whole body meanwhile must not then block on `_lock` (measured:
        # 3.3 context switches per lone call instead of 1.2, 29 us instead of 9).
        self._body_lock = threading.Lock()
        self._worker: Worker | None = None
        self._holds_slot = False  # the current worker's slot, held while calls are pending
        self._pending = 0  # calls handed to the current worker, not yet answered on the loop
        self._posted = False  # a delivery is scheduled on the loop and has not started yet
        self._kicking = False  # a kick is scheduled for the next pass of the loop
        self._timing = False  # the stuck check is scheduled
        self._batch_done: threading.Lock | None = None  # released by the worker for the kick
        # Pending callbacks of an asyncio loop: a lone call may wait in place only when the
        # loop has nothing else to do. Loops without it (uvloop) never wait in place.
        self._ready: collections.deque[Any] | None = getattr(loop, "_ready", None)
        LANES.add(self)

    def admits(self) -> bool:
        """Whether a call may take this lane now (it takes a slot if it has none)."""
        if self._holds_slot:
            return True
        if self._take_slot():
            self._holds_slot = True
            return True
        return False

    async def call(
        self,
        func: Callable[..., Any],
        args: Sequence[Any],
        kwargs: dict[str, Any],
        watch: BodyWatch,
    ) -> Any:
        """Run one call (after `admits`): its result, its exception raised, or `REROUTED`.
        `watch` hears when the body ends, and tells whether the call came to hold a slot."""
        call = functools.partial(func, *args, **kwargs) if kwargs else (func, *args)
        context = contextvars.copy_context()
        self._pending += 1
        ready = self._ready
        if self._pending == 1 and ready is not None and not ready:
            handoff = _pool._Handoff()
            self._jobs.append((handoff, context, call, func, watch))
            self._wake()
            if handoff.wait(_pool.QUICK_WAIT_SECONDS):
                self._answered()
                return handoff.take()
            future: asyncio.Future[Any] = self._loop.create_future()
            if not handoff.give_up(future):
                self._answered()
                return handoff.take()
            self._watch()
        else:
            future = self._loop.create_future()
            self._jobs.append((future, context, call, func, watch))
            if not self._kicking:
                self._kicking = True
                self._loop.call_soon(self._kick)
            self._watch()
        return await future

    # --- loop side -------------------------------------------------------------------------

    def _answered(self, count: int = 1) -> None:
        self._pending -= count
        if not self._pending and self._holds_slot:
            self._holds_slot = False
            self._give_slot()

    def _wake(self) -> None:
        """Make sure a worker will look at the queue."""
        worker = self._worker
        if worker is not None and not worker.asleep:
            return
        with self._lock:
            worker = self._worker
            if worker is None:
                worker = self._worker = Worker()
                start = True
            else:
                start = False
                if worker.asleep:
                    worker.asleep = False
                    os.write(worker.write_fd, b"\0")  # lets go of the GIL while it wakes it
        if start:
            threading.Thread(target=self._work, args=(worker,), name="toolwire-express").start()

    def _kick(self) -> None:
        """Hand the jobs queued since the last pass to the worker and wait in place for it
        (bounded): the worker runs them with the GIL to itself."""
        self._kicking = False
        if not self._jobs:
            return
        worker = self._worker
        if worker is not None and not worker.asleep:
            return  # awake: it takes them and posts the results
        done = threading.Lock()
        done.acquire()
        self._batch_done = done
        self._wake()
        done.acquire(timeout=_pool.QUICK_WAIT_SECONDS)
        self._batch_done = None  # after that, the worker posts what remains
        self._deliver()

    def _watch(self) -> None:
        if not self._timing:
            self._timing = True
            self._loop.call_later(STUCK_SECONDS, self._check)

    def _check(self) -> None:
        """While calls are pending: a body that keeps the worker too long is left to it."""
        self._timing = False
        worker = self._worker
        if worker is not None and worker.since:
            now = time.perf_counter()
            with self._body_lock:  # the worker clears `since` and `job` under it
                job = worker.job
                since = worker.since
                if job is None or self._worker is not worker or not since:
                    job = None
                elif now - since >= STUCK_SECONDS:
                    self._worker = None  # it leaves after this body
                    worker.left_behind = True
                else:
                    job = None
            if job is not None:
                self._left_behind(job)
        if self._results:
            self._deliver()
        if self._pending:
            self._watch()

    def _left_behind(self, job: Job) -> None:
        """The worker is stuck on `job`'s body: the body keeps the lane's slot, its call
        answers for it, and the queue goes to a new worker (or the general way)."""
        waiter, _, _, func, watch = job
        _pool._quick[id(func)] = False
        self._pending -= 1  # the stuck worker's answer is not counted here any more
        if self._holds_slot:
            self._holds_slot = False
            future = waiter if isinstance(waiter, asyncio.Future) else waiter.future
            self._adopt(func, watch, future is not None and future.done())
        if not self._jobs:
            return
        if self._take_slot():
            self._holds_slot = True
            self._wake()
            return
        jobs = self._jobs
        while jobs:
            try:
                waiter = jobs.popleft()[0]
            except IndexError:  # the worker took the last one meanwhile
                break
            future = waiter if isinstance(waiter, asyncio.Future) else waiter.future
            self._pending -= 1
            if future is not None and not future.done():
                future.set_result(REROUTED)

    def _deliver(self) -> None:
        """Settle every result that has arrived."""
        self._posted = False
        results = self._results
        settle = _pool._settle
        answered = 0
        while results:
            future, result, error, counted = results.popleft()
            answered += counted
            settle(future, result, error)
        if answered:
            self._answered(answered)

    # --- worker side -----------------------------------------------------------------------

    def _post(self) -> None:
        """Have the loop deliver the results: one wake-up of the loop for all of them."""
        if self._results and not self._posted:
            self._posted = True
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                self._loop.call_soon_threadsafe(self._deliver)

    def _batch_over(self) -> None:
        done = self._batch_done
        if done is not None:
            self._batch_done = None
            done.release()  # the kick waiting in place delivers
        else:
            self._post()

    def _work(self, me: Worker) -> None:
        jobs, results = self._jobs, self._results
        poller = select.poll()
        poller.register(me.read_fd, select.POLLIN)
        try:
            while self._worker is me:
                try:
                    job = jobs.popleft()
                except IndexError:
                    self._batch_over()
                    if not self._sleep(me, poller):
                        return
                    continue
                waiter, context, call, func, watch = job
                future = waiter if isinstance(waiter, asyncio.Future) else waiter.future
                if future is not None and future.done():  # cancelled before it started
                    result, error, elapsed = None, None, None
                else:
                    me.job = job
                    started = me.since = time.perf_counter()
                    try:
                        result, error = context.run(_pool._call, call), None
                    except Exception as exc:
                        result, error = None, exc
                    except BaseException as exc:  # SystemExit & co. mean nothing to the caller
                        result, error = None, ToolAbortedError(exc)
                    elapsed = time.perf_counter() - started
                with self._body_lock:
                    me.since = 0.0
                    me.job = None
                    counted = not me.left_behind
                if not counted:  # only a body left behind has a call that may stop waiting
                    watch.ended()
                if isinstance(waiter, asyncio.Future):
                    results.append((waiter, result, error, counted))
                else:
                    future = waiter.deliver(result, error)
                    if future is not None:
                        results.append((future, result, error, counted))
                if elapsed is not None:  # after the answer: only a hint for the next call
                    _pool.remember(id(func), elapsed)
                del job, waiter, future, context, call, func, result, error, watch
                if len(results) >= _BATCH and self._batch_done is None:
                    self._post()  # a kick waiting in place delivers them all at the end
        finally:
            self._batch_over()
            me.close()

    def _sleep(self, me: Worker, poller: select.poll) -> bool:
        """Wait for jobs: True when there may be some, False when this worker leaves."""
        me.asleep = True
        # The loop queues, then looks at `asleep`; here it is set, then the queue looked at:
        # one of the two sees the other, so no job is left waiting for a sleeper.
        if self._jobs or self._worker is not me:
            with self._lock:
                if me.asleep:
                    me.asleep = False
                    return self._worker is me
            # a byte was promised meanwhile: read it below
        while True:
            if poller.poll(_pool.IDLE_SECONDS * 1000):
                os.read(me.read_fd, 64)
                return self._worker is me
            with self._lock:
                if me.asleep:  # idle for IDLE_SECONDS and nobody promised a byte: leave
                    me.asleep = False
                    if self._worker is me:
                        self._worker = None
                    return False

    def retire(self) -> None:
        """The worker leaves once idle (after its current body); a later call starts a new one."""
        with self._lock:
            worker, self._worker = self._worker, None
            if worker is not None and worker.asleep:
                worker.asleep = False
                os.write(worker.write_fd, b"\0")

    def forget_worker(self) -> None:
        """In a forked child: the worker thread does not exist there, only its pipe."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()
