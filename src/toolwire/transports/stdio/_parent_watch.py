"""Process life: quiet exits on SIGTERM and SIGINT, no orphan when the parent dies (a client
killed may never close the pipe), and no process of a tool left behind. `arm()` remembers the
parent and installs quiet handlers where the defaults are in place; the parent is watched by a
death signal on Linux and polled every `POLL_SECONDS`; `watch(on_gone)` tells the transport;
`end_descendants` stops what tools started (through /proc, Linux only), leaving alone a process
that left the tree on purpose (a double fork, `setsid`). See docs/decisions.md."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = [
    "DEATH_SIGNAL",
    "POLL_SECONDS",
    "QUIET_SIGNALS",
    "arm",
    "block_termination_signals",
    "end_descendants",
    "install_quiet_handlers",
    "leave_now",
    "parent_alive",
    "quiet_exit",
    "remember_parent",
    "watch",
]

logger = logging.getLogger("toolwire.stdio")

POLL_SECONDS = 0.2
_PR_SET_PDEATHSIG = 1

_parent: int | None = None
_parent_handle: int | None = None  # Windows only
_armed = False

_RTMIN: Any = getattr(signal, "SIGRTMIN", None)
# The signal the kernel sends when the parent dies (Linux only). SIGRTMIN+n is not a member of
# signal.Signals; anyio only needs an int-like value.
DEATH_SIGNAL: signal.Signals | None = (
    _RTMIN + 7 if sys.platform.startswith("linux") and _RTMIN is not None else None
)
QUIET_SIGNALS: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT) + (
    () if DEATH_SIGNAL is None else (DEATH_SIGNAL,)
)


def parent_alive() -> bool:
    """False once the parent exited (POSIX: we were re-parented; Windows: its handle fired)."""
    if _parent is None:
        return True
    if sys.platform == "win32":
        if _parent_handle is None:
            return True
        import ctypes

        wait_object_0 = 0
        return bool(ctypes.windll.kernel32.WaitForSingleObject(_parent_handle, 0) != wait_object_0)
    return os.getppid() == _parent


def quiet_exit(code: int = 0) -> None:
    """Leave now, without a traceback: flush toolwire's log lines (a bounded wait) and what
    user code printed, then `os._exit`."""
    for handler in logging.getLogger("toolwire").handlers:
        with contextlib.suppress(Exception):
            handler.flush()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    os._exit(code)


def leave_now(code: int = 0) -> None:
    """`quiet_exit`, but first stop the processes tools started, with no grace."""
    end_descendants(0.0)
    quiet_exit(code)


def _quiet_handler(signum: int, frame: FrameType | None) -> None:
    """SIGTERM/SIGINT: leave quietly; the death signal: leave if the parent is gone."""
    del frame
    if signum != DEATH_SIGNAL or not parent_alive():
        leave_now(0)


def install_quiet_handlers() -> None:
    """Quiet handlers for the termination signals that have their default handler (again: the
    event loop resets them); only once `arm()` ran."""
    if sys.platform == "win32" or not _armed:
        return
    for signum in QUIET_SIGNALS:
        try:
            current = signal.getsignal(signum)
            if current in (signal.SIG_DFL, signal.default_int_handler, None, _quiet_handler):
                signal.signal(signum, _quiet_handler)
        except (OSError, ValueError):  # not the main thread, or an unsupported signal
            logger.debug("cannot handle signal %s here", signum)


def block_termination_signals() -> None:
    """Block the termination signals in the calling thread for the rest of its life: the main
    thread at interpreter exit, when finalization resets handlers to the defaults, and
    toolwire's own threads from their start (else the kernel may deliver one to them)."""
    if sys.platform != "win32" and hasattr(signal, "pthread_sigmask"):
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_sigmask(signal.SIG_BLOCK, QUIET_SIGNALS)


def remember_parent() -> None:
    """Note who the parent is now, if nobody did yet (the poll compares against it)."""
    global _parent, _parent_handle  # noqa: PLW0603 - process-wide state
    if _parent is not None:
        return
    _parent = os.getppid()
    if sys.platform == "win32":
        # Windows never re-parents: hold a handle to the parent (which also pins its pid)
        # and ask whether it has been signalled. Untested here; failure means "alive".
        try:
            import ctypes

            synchronize = 0x00100000
            handle = ctypes.windll.kernel32.OpenProcess(synchronize, False, _parent)
            _parent_handle = int(handle) or None
        except (OSError, AttributeError):
            _parent_handle = None


def arm() -> None:
    """Remember the parent, ask for the death signal, install quiet handlers. Idempotent."""
    global _armed  # noqa: PLW0603 - process-wide state
    first = not _armed
    _armed = True
    install_quiet_handlers()
    if not first:
        return
    remember_parent()
    if DEATH_SIGNAL is not None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, DEATH_SIGNAL, 0, 0, 0) != 0:
                logger.debug("prctl(PR_SET_PDEATHSIG) failed: errno %s", ctypes.get_errno())
        except (OSError, AttributeError):  # no libc with prctl (musl without it, sandbox)
            logger.debug("prctl(PR_SET_PDEATHSIG) unavailable; polling the parent instead")
        # The parent may have died between our fork and the prctl call.
        if not parent_alive():
            quiet_exit(0)


async def watch(on_gone: Callable[[], None]) -> None:
    """Call `on_gone` once the parent is gone (death signal or poll), then return."""
    import anyio

    if DEATH_SIGNAL is None:
        while parent_alive():
            await anyio.sleep(POLL_SECONDS)
    else:
        try:
            with anyio.open_signal_receiver(DEATH_SIGNAL) as signals:
                while parent_alive():
                    with anyio.move_on_after(POLL_SECONDS):
                        async for _ in signals:
                            break
        finally:
            install_quiet_handlers()
    logger.info("parent process exited; shutting down")
    on_gone()


def _live_parent(pid: int) -> int | None:
    """The parent of `pid` from /proc/PID/stat; None if `pid` is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            raw = stat.read()
    except OSError:
        return None
    # The command name sits in parentheses and may hold spaces or ')': split after the last.
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 2 or fields[0] == b"Z":
        return None
    return int(fields[1])


def _descendants(root: int) -> list[int]:
    """The live descendants of `root`, parents before their children; [] without /proc."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    children: dict[int, list[int]] = {}
    for name in names:
        parent = _live_parent(int(name)) if name.isdigit() else None
        if parent is not None:
            children.setdefault(parent, []).append(int(name))
    found: list[int] = []
    frontier = [root]
    while frontier:
        for child in children.get(frontier.pop(), ()):
            found.append(child)
            frontier.append(child)
    return found


def _reap_children() -> None:
    """Collect the exit statuses of our own children, so none is left a zombie."""
    with contextlib.suppress(ChildProcessError, OSError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def _kill_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)
    _reap_children()


def end_descendants(grace: float = 0.5) -> int:
    """SIGTERM every descendant, wait up to `grace` seconds for them all, SIGKILL the rest;
    how many there were (0 off Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    targets = _descendants(os.getpid())
    if not targets:
        return 0
    _kill_all(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while True:
        left = [pid for pid in targets if _live_parent(pid) is not None]
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.01)
        _reap_children()
    # A child of a killed descendant may have been started, or re-parented, meanwhile.
    left += [pid for pid in _descendants(os.getpid()) if pid not in left]
    _kill_all(left, signal.SIGKILL)
    logger.info(
        "stopped %d process(es) started by tools (%d needed SIGKILL)", len(targets), len(left)
    )
    return len(targets)
