"""What every transport does around serving in a process it owns: checking the shutdown grace and
setting up logging before, settling the heap once (collect, then `gc.freeze()` what is alive, so
that later full passes skip it; `TOOLWIRE_GC_FREEZE=0` turns it off), letting the worker threads
of sync tools go after."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import os
import signal
import sys
import threading
import time
from typing import Any

from .stdio import _parent_watch
from .stdio._stderr_log import BackgroundStderrHandler

__all__ = [
    "SETTLE_SECONDS",
    "THREAD_GRACE_SECONDS",
    "checked_grace",
    "configure_logging",
    "free_forked_children",
    "release_threads",
    "settle_heap_later",
    "settle_heap_now",
]

logger = logging.getLogger("toolwire.transports")

THREAD_GRACE_SECONDS = 0.2
"""At exit, how long worker threads get to finish before the process leaves without them."""


def checked_grace(seconds: Any) -> float:
    """`seconds` as a shutdown grace period.

    Raises:
        ValueError: It is not a finite number of seconds >= 0.
    """
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise ValueError(f"shutdown_grace must be a number of seconds >= 0, not {seconds!r}")
    return float(seconds)


def configure_logging(*, background: bool = False) -> None:
    """Give the toolwire logger a stderr handler unless the application configured logging.

    Never touches the root logger. The level comes from TOOLWIRE_LOG_LEVEL (default WARNING).
    With `background`, a thread writes the lines, so logging never waits on a client that
    does not read stderr.
    """
    toolwire_logger = logging.getLogger("toolwire")
    if toolwire_logger.handlers or logging.getLogger().handlers:
        return
    stream = sys.stderr
    handler = BackgroundStderrHandler(stream) if background else logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    toolwire_logger.addHandler(handler)
    level = os.environ.get("TOOLWIRE_LOG_LEVEL", "WARNING").strip().upper()
    try:
        toolwire_logger.setLevel(level)
    except ValueError:
        toolwire_logger.setLevel(logging.WARNING)
        toolwire_logger.warning("TOOLWIRE_LOG_LEVEL=%r is not a level; using WARNING", level)


_fork_hook = False
_forking = threading.local()  # the forking thread's signal mask, to restore on both sides


def free_forked_children() -> None:
    """Once per process: a child a tool forks without exec (multiprocessing's fork start
    method, a fork `Pool`) gets the default handling of the termination signals and no event
    loop wake-up fd. Else it keeps the server's handlers: it ignores the SIGTERM meant for it
    (its parent waits on it forever), and the signal it got wakes the server's loop instead.
    The forking thread blocks those signals across the fork, so one that reaches the child
    before it has reset its handlers (a loaded machine may not run it for a while) waits and
    then gets the default handling."""
    global _fork_hook  # noqa: PLW0603 - process-wide state
    if _fork_hook or not hasattr(os, "register_at_fork"):
        return
    _fork_hook = True
    os.register_at_fork(
        before=_hold_signals, after_in_parent=_release_signals, after_in_child=_default_signals
    )


def _hold_signals() -> None:
    with contextlib.suppress(OSError, ValueError):
        _forking.mask = signal.pthread_sigmask(signal.SIG_BLOCK, _parent_watch.QUIET_SIGNALS)


def _release_signals() -> None:
    mask = getattr(_forking, "mask", None)
    if mask is not None:
        _forking.mask = None
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _default_signals() -> None:
    with contextlib.suppress(OSError, ValueError):
        signal.set_wakeup_fd(-1)
    for signum in _parent_watch.QUIET_SIGNALS:
        default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, default)
    _release_signals()  # a signal that came meanwhile is handled now, by the defaults


def release_threads(exit_code: int, log: logging.Logger) -> None:
    """Let idle workers go; if a thread is still busy after a short grace, exit without it
    with `exit_code`, saying so on `log`."""
    workers: list[threading.Thread] = []
    if "toolwire.tools.threads" in sys.modules:  # no sync tool ran: nothing to release
        from ..tools.threads import release_workers

        workers = release_workers()  # daemons, yet a busy body gets the grace too
    # An orphan has nobody to finish work for: no grace then.
    grace = THREAD_GRACE_SECONDS if _parent_watch.parent_alive() else 0.0
    deadline = time.monotonic() + grace
    waited = workers + [
        thread
        for thread in threading.enumerate()
        if thread is not threading.current_thread() and not thread.daemon
    ]
    for thread in waited:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [thread.name for thread in waited if thread.is_alive()]
    if stuck:
        log.info("leaving without %d busy worker thread(s): %s", len(stuck), stuck)
        _parent_watch.quiet_exit(exit_code)


SETTLE_SECONDS = 1.0
"""How long after serving began the heap is collected once and frozen."""


def settle_heap_later() -> None:
    """Collect and freeze the heap once, `SETTLE_SECONDS` from now, on the running loop."""
    asyncio.get_running_loop().call_later(SETTLE_SECONDS, settle_heap_now)


def settle_heap_now() -> None:
    """Collect and freeze the heap now (before a server takes its first request)."""
    if os.environ.get("TOOLWIRE_GC_FREEZE", "").strip() == "0" or not gc.isenabled():
        return
    started = time.perf_counter()
    found = gc.collect()
    gc.freeze()
    logger.debug(
        "heap settled: %d unreachable objects collected, %d frozen, in %.1f ms",
        found,
        gc.get_freeze_count(),
        (time.perf_counter() - started) * 1e3,
    )
