"""The watchdog of one toolwire-shell server, run as `python -I -S _watchdog.py FD TOKEN`.

It reads FD, a pipe whose write end only the server holds, one line at a time: `s SID START`
(a command's session, its leader's start time or 0), `e SID` (that session has no process
left), `p PID START` (a process that left its session and lost its tag), `q PID START` (that
process is gone), and `x` (the server ended its commands itself: exit). End of file without
`x` means the server died (SIGKILL, a crash): then every process whose `TOOLWIRE_SHELL_TAG`
starts with TOKEN, that sits in a live session of the server's, or that was recorded, is
stopped together with its descendants, then killed, round after round until none is left.
Standard library only, so that it starts fast and depends on nothing the server's environment
may lack.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

_KEY = b"TOOLWIRE_SHELL_TAG="
_FREEZE_ROUNDS = 50
_KILL_ROUNDS = 200


def _table() -> dict[int, tuple[str, int, int, int]]:
    """Every process: pid -> (state, parent, session, start time)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
            fields = stat[stat.rfind(")") + 2 :].split()
            found[int(entry)] = (fields[0], int(fields[1]), int(fields[3]), int(fields[19]))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _tagged(pid: int, prefix: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return False
    return any(
        item.startswith(_KEY) and item[len(_KEY) :].startswith(prefix)
        for item in environ.split(b"\0")
    )


def _ours(
    prefix: bytes,
    sessions: dict[int, int],
    strays: set[tuple[int, int]],
    held: set[int],
) -> set[int]:
    """The live processes to end: tagged, in a session of the server's, recorded, already
    stopped by this sweep, and every descendant of those."""
    table = _table()
    me = os.getpid()

    def session_is_ours(session: int) -> bool:
        start = sessions.get(session)
        if start is None:
            return False
        leader = table.get(session)
        # A session id is not handed out again while a process of the session lives; the
        # leader's start time tells a reused pid apart.
        return leader is None or start == 0 or leader[3] == start

    found = set()
    for pid, (state, _parent, session, start) in table.items():
        if pid == me or state == "Z":
            continue
        if (
            pid in held
            or (pid, start) in strays
            or session_is_ours(session)
            or _tagged(pid, prefix)
        ):
            found.add(pid)
    grown = True
    while grown:
        grown = False
        for pid, (state, parent, _session, _start) in table.items():
            if parent in found and pid not in found and pid != me and state != "Z":
                found.add(pid)
                grown = True
    return found


def _signal(pids: set[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)


def _listen(fd: int) -> tuple[bool, dict[int, int], set[tuple[int, int]]]:
    """Read the server's lines until the pipe closes: (said goodbye, sessions, strays)."""
    sessions: dict[int, int] = {}
    strays: set[tuple[int, int]] = set()
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            return False, sessions, strays
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            words = line.split()
            try:
                if words == [b"x"]:
                    return True, sessions, strays
                if len(words) == 3 and words[0] == b"s":
                    sessions[int(words[1])] = int(words[2])
                elif len(words) == 2 and words[0] == b"e":
                    sessions.pop(int(words[1]), None)
                elif len(words) == 3 and words[0] == b"p":
                    strays.add((int(words[1]), int(words[2])))
                elif len(words) == 3 and words[0] == b"q":
                    strays.discard((int(words[1]), int(words[2])))
            except ValueError:
                continue


def main() -> None:
    fd, token = int(sys.argv[1]), sys.argv[2]
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    goodbye, sessions, strays = _listen(fd)
    if goodbye:
        return
    prefix = token.encode() + b"."
    # Freeze the whole set first (a stopped process cannot fork), then kill it at once.
    held: set[int] = set()
    for _ in range(_FREEZE_ROUNDS):
        fresh = _ours(prefix, sessions, strays, held) - held
        if not fresh:
            break
        _signal(fresh, signal.SIGSTOP)
        held |= fresh
    _signal(held, signal.SIGKILL)
    for _ in range(_KILL_ROUNDS):
        time.sleep(0.01)
        left = _ours(prefix, sessions, strays, set())
        if not left:
            return
        _signal(left, signal.SIGSTOP)
        _signal(left, signal.SIGKILL)


if __name__ == "__main__":
    main()
