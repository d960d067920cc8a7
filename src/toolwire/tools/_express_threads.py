"""The express lanes' threads as the process sees them: each worker's wake-up pipe, and what
happens to every lane's worker at the interpreter's exit and in a forked child.

Kept apart from `_express.py` (how calls are batched onto a worker) because it is about the
process, not the calls: the exit hook and the fork hook reach every lane there is.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from ._pool import BodyWatch

__all__ = ["LANES", "Job", "Worker", "retire_lanes"]

# (waiter, context, call, func, watch): the waiter is the caller's future, or the hand-off
# the loop waits on in place.
Job = tuple[Any, contextvars.Context, Any, Callable[..., Any], BodyWatch]


class Worker:
    """One express thread: its wake-up pipe and what it is running."""

    __slots__ = ("asleep", "job", "left_behind", "read_fd", "since", "write_fd")

    def __init__(self) -> None:
        self.asleep = False  # waiting for a wake-up byte nobody has promised yet
        self.since = 0.0  # perf_counter() when its current body started; 0.0 between bodies
        self.job: Job | None = None  # that body's job
        self.left_behind = False  # stuck on a slow body and replaced: it leaves after it
        self.read_fd, self.write_fd = os.pipe()

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class Lane(Protocol):
    """What the hooks ask of a lane (`_express.ExpressLane`)."""

    def retire(self) -> None: ...

    def forget_worker(self) -> None: ...


LANES: weakref.WeakSet[Lane] = weakref.WeakSet()
"""Every lane alive in the process: a lane adds itself when made."""


def retire_lanes() -> None:
    """Every lane's worker leaves once idle (the end of serving, the interpreter's exit)."""
    for lane in list(LANES):
        lane.retire()


def _after_fork_in_child() -> None:
    for lane in list(LANES):
        lane.forget_worker()


threading._register_atexit(retire_lanes)  # type: ignore[attr-defined]
os.register_at_fork(after_in_child=_after_fork_in_child)
