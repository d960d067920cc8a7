"""The process table of the commands this server runs: who belongs to which command, and how a
command's whole tree is ended.

Every command runs in a new session (its leader's pid is the session id, which the kernel does
not hand out again while any process of the session lives) and carries a tag in its
environment, `TOOLWIRE_SHELL_TAG=<server token>.<run number>`, which its descendants inherit. A
process belongs to a command when it carries the command's tag, sits in the command's session,
or holds one of the command's pipes, so scrubbing the environment (`env -i`) does not take a
process out of its command, nor does leaving the session as well while holding its output.
On Linux the server makes itself a child subreaper, so whatever a command leaves behind
(`cmd &`, `setsid`, `nohup`, a double fork) is re-parented to the server rather than to init
and stays findable by walking the server's descendants through `/proc`; ending a command kills
its group and then, round after round until none is left, every descendant belonging to it,
and reaps the orphans the server adopted. A separate watchdog process reads a pipe only the
server writes to: the server tells it each command's session and every descendant that
belongs to no command (it left the session and lost the tag); when the pipe closes without a
goodbye (SIGKILL, a crash) the watchdog kills every process carrying the server's token, in
one of its live sessions, or recorded, with their descendants. Elsewhere than Linux only the
process group is ended.
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
from pathlib import Path

__all__ = [
    "TAG_VARIABLE",
    "ProcessTable",
    "become_subreaper",
]

logger = logging.getLogger("toolwire.shell")

TAG_VARIABLE = "TOOLWIRE_SHELL_TAG"
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


def pipes_of(pid: int) -> set[int]:
    """The inode numbers of the pipes `pid` holds open (empty if gone or unreadable)."""
    found: set[int] = set()
    directory = _PROC / str(pid) / "fd"
    try:
        names = os.listdir(directory)
    except OSError:
        return found
    for name in names:
        try:
            link = os.readlink(directory / name)
        except OSError:
            continue
        if link.startswith("pipe:[") and link.endswith("]"):
            found.add(int(link[6:-1]))
    return found


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


class _Stat:
    """The fields of `/proc/PID/stat` this module reads."""

    __slots__ = ("parent", "session", "start", "state")

    def __init__(self, text: str) -> None:
        # The command name may hold spaces and parentheses: the fields after the last ')' count.
        fields = text[text.rfind(")") + 2 :].split()
        self.state = fields[0]
        self.parent = int(fields[1])
        self.session = int(fields[3])
        self.start = int(fields[19])  # clock ticks after boot: a pid and this name a process


def _stat(pid: int) -> _Stat | None:
    try:
        return _Stat((_PROC / str(pid) / "stat").read_text())
    except (OSError, ValueError, IndexError):
        return None


def _parent_of(pid: int) -> int | None:
    stat = _stat(pid)
    return stat.parent if stat is not None else None


def _is_zombie(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat.state == "Z"


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


class _Member:
    """A live descendant of the server, as one walk of `/proc` saw it."""

    __slots__ = ("pid", "session", "start", "tag")

    def __init__(self, pid: int, tag: str | None, stat: _Stat) -> None:
        self.pid, self.tag, self.session, self.start = pid, tag, stat.session, stat.start


class ProcessTable:
    """The commands of one server: their tags, sessions and leaders, and how they are ended.

    Args:
        token: The server's random token (a fresh one when None); tags start with it.
    """

    def __init__(self, token: str | None = None) -> None:
        self.token = token or secrets.token_hex(8)
        self._runs = 0
        self._leaders: set[int] = set()
        self._sessions: dict[str, int] = {}  # tag -> its command's session id
        self._tags: dict[int, str] = {}  # session id -> tag
        self._pipes: dict[int, str] = {}  # inode of a command's stdin/stdout/stderr -> tag
        self._strays: set[tuple[int, int]] = set()  # (pid, start) told to the watchdog
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._watch_fd: int | None = None
        self.linux = sys.platform.startswith("linux") and _PROC.is_dir()

    def new_tag(self) -> str:
        """A tag for the next command."""
        self._runs += 1
        return f"{self.token}.{self._runs}"

    def started(self, pid: int, tag: str, pipes: tuple[int, ...] = ()) -> None:
        """A command leader was spawned in a new session (asyncio reaps it; this table must
        not); its session, and whoever holds one of its `pipes` (inode numbers of its stdin,
        stdout and stderr), now belong to `tag`."""
        self._leaders.add(pid)
        for inode in pipes:
            self._pipes[inode] = tag
        self._ensure_watchdog()
        if not self.linux:
            return
        self._sessions[tag] = pid
        self._tags[pid] = tag
        stat = _stat(pid)
        self._tell(f"s {pid} {stat.start if stat is not None else 0}")

    def finished(self, pid: int) -> None:
        """A command leader was reaped by asyncio."""
        self._leaders.discard(pid)

    def _walk(self) -> list[_Member]:
        """Every live descendant but the watchdog."""
        skip = self._watchdog.pid if self._watchdog is not None else -1
        found = []
        for pid in descendants(os.getpid()):
            stat = _stat(pid)
            if pid != skip and stat is not None and stat.state != "Z":
                found.append(_Member(pid, tag_of(pid), stat))
        return found

    def _owner(self, member: _Member) -> str | None:
        """The tag of the command `member` belongs to: its session's, else its own, else that
        of a command whose pipes it holds (it left the session and scrubbed its environment
        but kept the command's stdout: it would hold the command's output open)."""
        owner = self._tags.get(member.session) or member.tag
        if (owner is None or not owner.startswith(self.token + ".")) and self._pipes:
            for inode in pipes_of(member.pid):
                if inode in self._pipes:
                    return self._pipes[inode]
        return owner

    def members(self, tag: str) -> list[int]:
        """The live processes of the command `tag` among this server's descendants."""
        if not self.linux:
            return []
        return [member.pid for member in self._walk() if self._owner(member) == tag]

    def survey(self) -> tuple[dict[str, int], list[tuple[int, int]]]:
        """How many live processes each command has among this server's descendants, and
        the (pid, start time) of those that belong to no command (safe in a thread)."""
        tally: dict[str, int] = {}
        strays: list[tuple[int, int]] = []
        if not self.linux:
            return tally, strays
        prefix = self.token + "."
        for member in self._walk():
            owner = self._owner(member)
            if owner is not None and owner.startswith(prefix):
                tally[owner] = tally.get(owner, 0) + 1
            if member.session not in self._tags and not (member.tag or "").startswith(prefix):
                strays.append((member.pid, member.start))
        return tally, strays

    def record_strays(self, strays: list[tuple[int, int]]) -> None:
        """Tell the watchdog of processes that belong to no command (they left their session
        and lost their tag), so that it can find them if the server is SIGKILLed, and of the
        recorded ones that are gone (`strays` is a whole survey's list)."""
        live = set(strays)
        for pid, start in self._strays - live:
            stat = _stat(pid)
            if stat is not None and stat.start == start and stat.state != "Z":
                live.add((pid, start))  # a survey older than the record: still there
            else:
                self._tell(f"q {pid} {start}")
        for pid, start in live - self._strays:
            self._tell(f"p {pid} {start}")
        self._strays = live

    def end_strays(self) -> int:
        """Kill every descendant that belongs to no command; how many were killed."""
        killed = 0
        for _ in range(_KILL_ROUNDS):
            strays = [pid for pid, _start in self.survey()[1]]
            if not strays:
                break
            for pid in strays:
                _signal(pid, signal.SIGSTOP)
            for pid in strays:
                _signal(pid, signal.SIGKILL)
            killed += len(strays)
            self.reap()
            time.sleep(0.002)
        self.reap()
        return killed

    def end(self, tag: str, leader: int | None) -> int:
        """Kill the command's group and every descendant belonging to it; how many were
        killed.

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
        self.record_strays(self.survey()[1])
        for _ in range(_KILL_ROUNDS):
            members = self.members(tag)
            if not members:
                self._forget(tag)
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

    def _forget(self, tag: str) -> None:
        """The command `tag` has no process left: its session id may be reused."""
        for inode in [inode for inode, owner in self._pipes.items() if owner == tag]:
            del self._pipes[inode]
        session = self._sessions.pop(tag, None)
        if session is not None and session not in self._leaders:
            self._tags.pop(session, None)
            self._tell(f"e {session}")
        elif session is not None:
            self._sessions[tag] = session  # its leader is not reaped yet: keep the record

    def end_all(self) -> None:
        """Kill every descendant but the watchdog (the server is going away)."""
        if not self.linux:
            return
        for _ in range(_KILL_ROUNDS):
            live = [member.pid for member in self._walk()]
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

    def _tell(self, line: str) -> None:
        """Send one line to the watchdog (dropped, with a warning, if its pipe is full)."""
        if self._watch_fd is None:
            return
        try:
            os.write(self._watch_fd, line.encode("ascii") + b"\n")
        except BlockingIOError:
            logger.warning("toolwire-shell: the watchdog is behind; it missed %r", line)
        except OSError:
            pass

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
            os.set_blocking(write_end, False)  # a slow watchdog never blocks the event loop
            self._watch_fd = write_end
        finally:
            os.close(read_end)

    def close(self) -> None:
        """End every command and let the watchdog go (it sees the pipe close and exits)."""
        self.end_all()
        if self._watch_fd is not None:
            self._tell("x")  # a clean exit: the watchdog need not sweep
            os.close(self._watch_fd)
            self._watch_fd = None
        if self._watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._watchdog.wait(timeout=2)
            self._watchdog = None
