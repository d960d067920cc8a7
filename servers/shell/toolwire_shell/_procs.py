"""The process table of the commands this server runs: who belongs to which command, and how a
command's whole tree is ended.

Every command runs in a new session (so its own process group) and carries a tag in its
environment, `TOOLWIRE_SHELL_TAG=<server token>.<run number>`, which its descendants inherit.
On Linux the server makes itself a child subreaper, so whatever a command leaves behind
(`cmd &`, `setsid`, `nohup`, a double fork) is re-parented to the server rather than to init
and stays findable by walking the server's descendants through `/proc`; ending a command kills
its group and then, round after round until none is left, every descendant carrying its tag,
and reaps the orphans the server adopted. A separate watchdog process, holding the read end of
a pipe only the server writes to, wakes when the server is gone however it went (SIGKILL
included) and kills every process on the machine carrying the server's token. Elsewhere than
Linux only the process group is ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "TAG_VARIABLE",
    "ProcessTable",
    "become_subreaper",
    "die_with_parent",
]

logger = logging.getLogger("toolwire.shell")

TAG_VARIABLE = "TOOLWIRE_SHELL_TAG"
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_KILL_ROUNDS = 60
_WATCHDOG = Path(__file__).with_name("_watchdog.py")


def _prctl(option: int, value: int) -> bool:
    """Call libc's prctl; False where there is no such call or it failed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux); True when it is."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(signum: int = signal.SIGTERM) -> bool:
    """Ask the kernel to send `signum` to this process when its parent dies (Linux)."""
    return _prctl(_PR_SET_PDEATHSIG, int(signum))


def _children(pid: int) -> list[int]:
    """The direct children of `pid`, from every thread's `children` list."""
    found: list[int] = []
    try:
        tasks = os.listdir(_PROC / str(pid) / "task")
    except OSError:
        return found
    for task in tasks:
        try:
            text = (_PROC / str(pid) / "task" / task / "children").read_text()
        except OSError:
            continue
        found.extend(int(word) for word in text.split())
    return found


def descendants(root: int) -> list[int]:
    """Every live descendant of `root`, parents before children ([] without /proc)."""
    seen: list[int] = []
    queue = _children(root)
    while queue:
        pid = queue.pop()
        if pid in seen:
            continue
        seen.append(pid)
        queue.extend(_children(pid))
    return seen


def tag_of(pid: int) -> str | None:
    """The tag in `pid`'s environment, or None (no tag, gone, or unreadable)."""
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    key = TAG_VARIABLE.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(key):
            return entry[len(key) :].decode("ascii", "replace")
    return None


def _parent_of(pid: int) -> int | None:
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields after the last ')' count.
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def _is_zombie(pid: int) -> bool:
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].startswith("Z")


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


class ProcessTable:
    """The commands of one server: their tags, their leaders, and how they are ended.

    Args:
        token: The server's random token (a fresh one when None); tags start with it.
    """

    def __init__(self, token: str | None = None) -> None:
        self.token = token or secrets.token_hex(8)
        self._runs = 0
        self._leaders: set[int] = set()
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._watch_fd: int | None = None
        self.linux = sys.platform.startswith("linux") and _PROC.is_dir()

    def new_tag(self) -> str:
        """A tag for the next command."""
        self._runs += 1
        return f"{self.token}.{self._runs}"

    def started(self, pid: int) -> None:
        """A command leader was spawned (asyncio reaps it; this table must not)."""
        self._leaders.add(pid)
        self._ensure_watchdog()

    def finished(self, pid: int) -> None:
        """A command leader was reaped by asyncio."""
        self._leaders.discard(pid)

    def members(self, tag: str) -> list[int]:
        """The live processes carrying `tag` among this server's descendants."""
        if not self.linux:
            return []
        skip = self._watchdog.pid if self._watchdog is not None else -1
        return [
            pid
            for pid in descendants(os.getpid())
            if pid != skip and not _is_zombie(pid) and tag_of(pid) == tag
        ]

    def counts(self) -> dict[str, int]:
        """How many live processes each tag has among this server's descendants."""
        tally: dict[str, int] = {}
        if not self.linux:
            return tally
        for pid in descendants(os.getpid()):
            tag = tag_of(pid)
            if tag is not None and not _is_zombie(pid):
                tally[tag] = tally.get(tag, 0) + 1
        return tally

    def end(self, tag: str, leader: int | None) -> int:
        """Kill the command's group and every descendant carrying `tag`; how many were killed.

        Synchronous on purpose: it runs from `finally` blocks of cancelled calls too.
        """
        killed = 0
        if leader is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(leader) != os.getpgrp():
                    os.killpg(leader, signal.SIGKILL)
                    killed += 1
        if not self.linux:
            return killed
        for _ in range(_KILL_ROUNDS):
            members = self.members(tag)
            if not members:
                break
            # Stop first so a fork loop cannot replace what is killed, then kill.
            for pid in members:
                _signal(pid, signal.SIGSTOP)
            for pid in members:
                _signal(pid, signal.SIGKILL)
            killed += len(members)
            self.reap()
            time.sleep(0.002)
        self.reap()
        return killed

    def end_all(self) -> None:
        """Kill every descendant but the watchdog (the server is going away)."""
        if not self.linux:
            return
        skip = self._watchdog.pid if self._watchdog is not None else -1
        for _ in range(_KILL_ROUNDS):
            pids = [pid for pid in descendants(os.getpid()) if pid != skip]
            live = [pid for pid in pids if not _is_zombie(pid)]
            if not live:
                break
            for pid in live:
                _signal(pid, signal.SIGSTOP)
            for pid in live:
                _signal(pid, signal.SIGKILL)
            self.reap()
            time.sleep(0.002)
        self.reap()

    def reap(self) -> None:
        """Collect the exit status of orphans re-parented to this server (not of the
        leaders asyncio waits for), so no zombie stays in the process table."""
        if not self.linux:
            return
        me = os.getpid()
        skip = set(self._leaders)
        if self._watchdog is not None:
            skip.add(self._watchdog.pid)
        for pid in _children(me):
            if pid in skip or not _is_zombie(pid) or _parent_of(pid) != me:
                continue
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)

    def _ensure_watchdog(self) -> None:
        if not self.linux or self._watchdog is not None:
            return
        read_end, write_end = os.pipe()
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_WATCHDOG), str(read_end), self.token],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(read_end,),
                start_new_session=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            )
        except OSError as error:
            logger.warning("toolwire-shell: no watchdog (%s); a SIGKILLed server leaks", error)
            os.close(write_end)
        else:
            self._watch_fd = write_end
        finally:
            os.close(read_end)

    def close(self) -> None:
        """End every command and let the watchdog go (it sees the pipe close and exits)."""
        self.end_all()
        if self._watch_fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._watch_fd, b"x")  # a clean exit: the watchdog need not sweep
            os.close(self._watch_fd)
            self._watch_fd = None
        if self._watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._watchdog.wait(timeout=2)
            self._watchdog = None


def sweep(token: str, exclude: Iterable[int] = ()) -> int:
    """Kill every process on the machine whose tag starts with `token` (the watchdog's work,
    kept here for tests); how many were signalled."""
    skip = set(exclude) | {os.getpid()}
    prefix = token + "."
    total = 0
    for _ in range(_KILL_ROUNDS):
        found = []
        for entry in os.listdir(_PROC):
            if not entry.isdigit() or int(entry) in skip:
                continue
            tag = tag_of(int(entry))
            if tag is not None and tag.startswith(prefix) and not _is_zombie(int(entry)):
                found.append(int(entry))
        if not found:
            break
        for pid in found:
            _signal(pid, signal.SIGSTOP)
        for pid in found:
            _signal(pid, signal.SIGKILL)
        total += len(found)
        time.sleep(0.005)
    return total
