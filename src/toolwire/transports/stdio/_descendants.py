"""Ending the processes a server's tools started, when the server ends: SIGTERM to every
descendant (found through /proc, Linux only), `grace` seconds together, then SIGKILL. A process
that left the tree on purpose (a double fork, `setsid`) is left alone."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time

__all__ = ["end_descendants", "find_descendants"]

logger = logging.getLogger("toolwire.stdio")

_PROC = "/proc"


def _parent_and_state(pid: int) -> tuple[int, str] | None:
    """(parent pid, state letter) of `pid` from /proc/PID/stat, or None if it is gone."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as stat:
            raw = stat.read()
    except OSError:
        return None
    # The command name sits in parentheses and may hold spaces or ')': split after the last.
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 2:
        return None
    return int(fields[1]), fields[0].decode("ascii", "replace")


def find_descendants(root: int) -> list[int]:
    """The live (not zombie) descendants of `root`, parents before their children; [] where
    there is no /proc."""
    try:
        names = os.listdir(_PROC)
    except OSError:
        return []
    children: dict[int, list[int]] = {}
    for name in names:
        if not name.isdigit():
            continue
        info = _parent_and_state(int(name))
        if info is not None and info[1] != "Z":
            children.setdefault(info[0], []).append(int(name))
    found: list[int] = []
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        for child in children.get(pid, ()):
            found.append(child)
            frontier.append(child)
    return found


def _alive(pid: int) -> bool:
    info = _parent_and_state(pid)
    return info is not None and info[1] != "Z"


def _reap_children() -> None:
    """Collect exit statuses of our own children, so none is left a zombie while we wait."""
    with contextlib.suppress(ChildProcessError, OSError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def end_descendants(grace: float = 0.5) -> int:
    """SIGTERM every descendant, wait up to `grace` seconds for them all, SIGKILL the rest;
    how many there were (0 off Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    targets = find_descendants(os.getpid())
    if not targets:
        return 0
    for pid in targets:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while True:
        _reap_children()
        left = [pid for pid in targets if _alive(pid)]
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.01)
    # A child of a killed descendant may have been started, or re-parented, meanwhile.
    left += [pid for pid in find_descendants(os.getpid()) if pid not in left]
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    _reap_children()
    logger.info(
        "stopped %d process(es) started by tools (%d needed SIGKILL)", len(targets), len(left)
    )
    return len(targets)
