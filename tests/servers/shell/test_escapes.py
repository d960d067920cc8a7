"""Processes that scrub their environment (`env -i`) lose toolwire-shell's tag: they are still
found through their session id (or, when they also left the session, through the server's
record of them), both when their command ends and after the server is SIGKILLed."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.servers.shell._harness import ShellServer, wait_until


def _start_time(pid: int) -> str | None:
    """The start time of the live (non-zombie) process `pid`, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return None if fields[0] == "Z" else fields[19]


def _alive(seen: dict[int, str]) -> list[int]:
    """Which of the processes seen (pid -> start time) still live (pids are not reused)."""
    return [pid for pid, start in seen.items() if _start_time(pid) == start]


def _clean_env(pids: Path, name: str, *, leave_session: bool = False, let_go: bool = False) -> str:
    """A command starting `sleep` with an empty environment in the background; the sleeper
    writes its pid to `pids` (the same process then becomes sleep). With `let_go` it does not
    hold its command's output open."""
    launcher = "env -i setsid" if leave_session else "env -i"
    output = " >/dev/null 2>&1" if let_go else ""
    return f"{launcher} /bin/sh -c 'echo $$ >> {pids}; exec sleep {name}'{output} &"


def _wait_for(pids: Path, count: int) -> str:
    """Shell that waits until `count` sleepers wrote their pids."""
    return f'until [ "$(cat {pids} 2>/dev/null | wc -l)" -ge {count} ]; do sleep 0.02; done'


def _read_pids(pids: Path, count: int) -> dict[int, str]:
    assert wait_until(lambda: pids.exists() and len(pids.read_text().split()) >= count)
    seen: dict[int, str] = {}
    for word in pids.read_text().split():
        start = _start_time(int(word))
        assert start is not None, f"{word} is not running"
        assert b"TOOLWIRE_SHELL_TAG" not in Path(f"/proc/{word}/environ").read_bytes()
        seen[int(word)] = start
    return seen


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    """Where the sleepers write their pids; any still alive afterwards are killed (a failed
    test must not leave them running for minutes)."""
    path = tmp_path / "pids"
    yield path
    if path.exists():
        for word in path.read_text().split():
            with contextlib.suppress(OSError):
                # Only a sleeper of this test: the pid of a dead one may have been reused.
                if Path(f"/proc/{word}/cmdline").read_bytes().startswith(b"sleep\x0031"):
                    os.kill(int(word), signal.SIGKILL)


def test_an_untagged_child_ends_with_its_command(pids: Path) -> None:
    with ShellServer() as server:
        script = f"{_clean_env(pids, '311')} {_wait_for(pids, 1)}; echo done"
        result = server.call("shell", {"commands": [script]}, timeout=30)
        assert result["structuredContent"]["output"][0]["stdout"] == "done\n"
        # Its pid was written before the command ended; the process must be gone already.
        [word] = pids.read_text().split()
        assert _start_time(int(word)) is None
        assert server.proc.poll() is None


def test_untagged_processes_die_with_a_sigkilled_server(pids: Path) -> None:
    server = ShellServer()
    try:
        # A running session with an untagged child in its session and one outside it.
        inside, outside = _clean_env(pids, "313"), _clean_env(pids, "314", leave_session=True)
        session = server.call(
            "exec_command",
            {"cmd": f"{inside} {outside} {_wait_for(pids, 2)}; sleep 1000", "yield_time_ms": 250},
        )
        assert session["structuredContent"]["session_id"] is not None
        _read_pids(pids, 2)
        # A command that leaves one outside its session, not holding its output (which would
        # make it the command's): when a command ends the server records every untagged
        # process outside its commands' sessions (314 too).
        leaver = _clean_env(pids, "312", leave_session=True, let_go=True)
        left = server.call("shell", {"commands": [f"{leaver} {_wait_for(pids, 3)}"]}, timeout=30)
        assert left["isError"] is False
        seen = _read_pids(pids, 3)
        assert len(seen) == 3
        watchdogs = _watchdogs(server.proc.pid)
        assert len(watchdogs) == 1
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(15)
        assert wait_until(lambda: not _alive(seen), 15), _alive(seen)
        # The watchdog did its work and left.
        assert wait_until(lambda: not _alive(watchdogs), 15)
    finally:
        server.close()


def _watchdogs(parent: int) -> dict[int, str]:
    """The watchdog processes (`_watchdog.py`) of the server `parent`: pid -> start time."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[1]) == parent and any(arg.endswith(b"_watchdog.py") for arg in argv):
            found[int(entry.name)] = fields[19]
    return found


def _in_session(session: int) -> list[int]:
    """Live processes whose session id is `session`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[3]) == session:
            found.append(int(entry.name))
    return found


def test_a_fork_loop_outside_any_command_is_ended(pids: Path) -> None:
    loop = "while :; do sleep 316 & done"
    with ShellServer("--max-processes", "20") as server:
        result = server.call(
            "shell",
            {
                "commands": [
                    f"env -i setsid /bin/sh -c 'echo $$ >> {pids}; {loop}' & {_wait_for(pids, 1)}"
                ]
            },
            timeout=30,
        )
        assert result["isError"] is False
        [word] = pids.read_text().split()
        # The loop leads a session of its own, untagged: it belongs to no command, and past
        # the process limit every such process is stopped and killed.
        assert wait_until(lambda: _in_session(int(word)) == [], 20), len(_in_session(int(word)))
        assert server.proc.poll() is None
        ran = server.call("shell", {"commands": ["echo alive"]})
        assert ran["structuredContent"]["output"][0]["stdout"] == "alive\n"


def test_a_child_holding_the_commands_pipes_ends_with_it(pids: Path) -> None:
    # Out of the session and without the tag, it still holds the command's stdout and
    # stderr: it belongs to the command, and the call must not wait for it.
    with ShellServer() as server:
        script = f"{_clean_env(pids, '313', leave_session=True)} {_wait_for(pids, 1)}; echo done"
        result = server.call("shell", {"commands": [script]}, timeout=30)
        assert result["structuredContent"]["output"][0]["stdout"] == "done\n"
        [word] = pids.read_text().split()
        assert _start_time(int(word)) is None
        pids.unlink()
        started = server.call("exec_command", {"cmd": script}, timeout=30)["structuredContent"]
        assert (started["exit_code"], started["session_id"]) == (0, None), started
        assert started["output"] == "done\n"
        [word] = pids.read_text().split()
        assert _start_time(int(word)) is None


def test_a_server_spawned_by_a_thread_that_ends_keeps_serving() -> None:
    """The kernel's parent-death signal fires when the spawning *thread* exits: a client that
    starts the server from a short-lived thread must not lose it then (only the parent
    process's exit ends it)."""
    made: list[ShellServer] = []
    spawner = threading.Thread(target=lambda: made.append(ShellServer()))
    spawner.start()
    spawner.join()
    with made[0] as server:
        time.sleep(0.5)  # the death signal, if any, has arrived
        result = server.call("shell", {"commands": ["echo alive"]}, timeout=30)
        assert result["structuredContent"]["output"][0]["stdout"] == "alive\n"
        assert server.proc.poll() is None
