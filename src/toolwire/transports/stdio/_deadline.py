"""The last word on a stdio server's exit: once shutdown has begun, a watchdog thread ends the
process (its tools' processes first, exit code 0) if the orderly path has not finished within a
few seconds, so that a tool swallowing its cancellation or blocking the event loop cannot keep
the process alive. Only `run_stdio`, which owns the process, calls `enable()`; `begin()` is safe
from a signal handler (it takes no lock: it writes one byte to a pipe the thread waits on)."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import sys
import threading
import time
from types import FrameType

from . import _parent_watch

__all__ = ["EXIT_SECONDS", "begin", "disarm", "enable", "watch_signals_too"]

logger = logging.getLogger("toolwire.stdio")

EXIT_SECONDS = 3.0
"""How long an orderly shutdown may take once it began (after EOF: once the grace is over)."""

_wake_fd: int | None = None  # the pipe's write end, once enabled
_at: float | None = None  # monotonic time by which the process must be gone
_why = ""


def enable(descendant_grace: float) -> None:
    """Start the watchdog (idle until `begin`). Idempotent; does nothing on Windows."""
    global _wake_fd  # noqa: PLW0603 - one watchdog per process
    if _wake_fd is not None or sys.platform == "win32":
        return
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)  # a full pipe already holds a wake-up
    thread = threading.Thread(
        target=_watch, args=(read_fd, descendant_grace), name="toolwire-exit-deadline", daemon=True
    )
    thread.start()
    _wake_fd = write_fd


def begin(seconds: float, why: str) -> None:
    """Shutdown began (`why`): the process must be gone within `seconds`. A later call can only
    bring the moment closer. Nothing happens unless `enable()` ran."""
    global _at, _why
    if _wake_fd is None:
        return
    at = time.monotonic() + seconds
    if _at is not None and _at <= at:
        return
    _at, _why = at, why
    with contextlib.suppress(OSError):  # BlockingIOError: a wake-up is already pending
        os.write(_wake_fd, b"!")


def disarm() -> None:
    """Shutdown finished (the process may serve again): forget the deadline."""
    global _at  # noqa: PLW0603 - one watchdog per process
    if _wake_fd is None or _at is None:
        return
    _at = None
    with contextlib.suppress(OSError):
        os.write(_wake_fd, b"!")


def watch_signals_too() -> None:
    """Make SIGTERM, SIGINT and the parent's death signal start the deadline from the signal
    handler itself, which runs even while a tool blocks the event loop. Call it once the event
    loop's handlers are installed: the loop still hears the signal through its wake-up fd."""
    if _wake_fd is None:
        return
    for signum in _parent_watch.QUIET_SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, _on_signal)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    del frame
    if signum != _parent_watch.DEATH_SIGNAL:
        begin(EXIT_SECONDS, signal.Signals(signum).name)
    elif not _parent_watch.parent_alive():
        begin(EXIT_SECONDS, "the parent process exited")


def _watch(read_fd: int, descendant_grace: float) -> None:
    _parent_watch.block_termination_signals()  # delivered to the main thread, never here
    while True:
        left = None if _at is None else _at - time.monotonic()
        if left is not None and left <= 0:
            break
        ready, _, _ = select.select([read_fd], [], [], left)
        if ready:
            os.read(read_fd, 512)
    logger.warning(
        "shutdown (%s) did not finish in time: a tool ignores its cancellation or blocks the "
        "event loop; leaving without it",
        _why,
    )
    _parent_watch.end_descendants(descendant_grace)
    _parent_watch.quiet_exit(0)
