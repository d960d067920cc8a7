"""Process life: quiet exits on SIGTERM and SIGINT, and no orphan when the parent dies (a
client killed may never close the pipe). `arm()` remembers the parent and installs quiet
handlers where the defaults are in place; the parent is watched by a death signal on Linux and
polled every `POLL_SECONDS`; `watch(on_gone)` tells the transport. See docs/decisions.md."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = [
    "POLL_SECONDS",
    "arm",
    "block_termination_signals",
    "install_quiet_handlers",
    "parent_alive",
    "quiet_exit",
    "remember_parent",
    "restore_quiet_handlers",
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
_DEATH_SIGNAL: signal.Signals | None = (
    _RTMIN + 7 if sys.platform.startswith("linux") and _RTMIN is not None else None
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
    """Leave now, without a traceback: flush what user code printed, then `os._exit`."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _on_termination(signum: int, frame: FrameType | None) -> None:
    del signum, frame
    quiet_exit(0)


def _on_death_signal(signum: int, frame: FrameType | None) -> None:
    del signum, frame
    if not parent_alive():
        quiet_exit(0)


def install_quiet_handlers() -> None:
    """SIGTERM/SIGINT exit 0 without a traceback; the death signal checks the parent (only
    default handlers are replaced)."""
    if sys.platform == "win32":
        return
    handlers: dict[int, Callable[[int, FrameType | None], None]] = {
        signal.SIGTERM: _on_termination,
        signal.SIGINT: _on_termination,
    }
    if _DEATH_SIGNAL is not None:
        handlers[_DEATH_SIGNAL] = _on_death_signal
    for signum, handler in handlers.items():
        try:
            current = signal.getsignal(signum)
            if current in (signal.SIG_DFL, signal.default_int_handler, None) or current in (
                _on_termination,
                _on_death_signal,
            ):
                signal.signal(signum, handler)
        except (OSError, ValueError):  # not the main thread, or an unsupported signal
            logger.debug("cannot handle signal %s here", signum)


def block_termination_signals() -> None:
    """Block SIGTERM/SIGINT (and the death signal) for the rest of the process's life: at
    interpreter exit, when finalization resets handlers to the defaults."""
    if sys.platform == "win32" or not hasattr(signal, "pthread_sigmask"):
        return
    signals = {signal.SIGTERM, signal.SIGINT}
    if _DEATH_SIGNAL is not None:
        signals.add(_DEATH_SIGNAL)
    with contextlib.suppress(OSError, ValueError):
        signal.pthread_sigmask(signal.SIG_BLOCK, signals)


def restore_quiet_handlers() -> None:
    """Take back a signal the event loop reset to its default (only once `arm()` ran)."""
    if _armed:
        install_quiet_handlers()


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
    install_quiet_handlers()
    if _armed:
        return
    _armed = True
    remember_parent()
    if _DEATH_SIGNAL is not None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, _DEATH_SIGNAL, 0, 0, 0) != 0:
                logger.debug("prctl(PR_SET_PDEATHSIG) failed: errno %s", ctypes.get_errno())
        except (OSError, AttributeError):  # no libc with prctl (musl without it, sandbox)
            logger.debug("prctl(PR_SET_PDEATHSIG) unavailable; polling the parent instead")
        # The parent may have died between our fork and the prctl call.
        if not parent_alive():
            quiet_exit(0)


async def watch(on_gone: Callable[[], None]) -> None:
    """Call `on_gone` once the parent is gone (death signal or poll), then return."""
    import anyio

    if _DEATH_SIGNAL is None:
        while parent_alive():
            await anyio.sleep(POLL_SECONDS)
    else:
        try:
            with anyio.open_signal_receiver(_DEATH_SIGNAL) as signals:
                while parent_alive():
                    with anyio.move_on_after(POLL_SECONDS):
                        async for _ in signals:
                            break
        finally:
            restore_quiet_handlers()
    logger.info("parent process exited; shutting down")
    on_gone()
