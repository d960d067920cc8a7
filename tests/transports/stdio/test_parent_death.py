"""No orphans: a server whose parent dies exits even though its stdin never reaches EOF.

The test process holds the write end of the server's stdin, so EOF cannot be what ends the
server: only the parent watch can (PR_SET_PDEATHSIG on Linux, the getppid() poll anywhere).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.transports._proc import (
    INIT,
    ROOT,
    call,
    child_env,
    frame,
    pid_gone,
    wait_for_file,
    wait_gone,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process semantics")

SERVER = textwrap.dedent(
    '''
    import os, pathlib, sys, time
    from toolwire import Server

    server = Server("orphan-candidate")

    @server.tool
    def forever() -> str:
        """Never returns."""
        time.sleep(3600)
        return "never"

    marker = os.environ.get("TEST_MARKER")
    if marker:
        pathlib.Path(marker).write_text(str(os.getpid()))
    time.sleep(float(os.environ.get("TEST_IMPORT_SLEEP", "0")))
    '''
)

# Serves without `toolwire run` and without Server.run(): no PR_SET_PDEATHSIG, only the poll.
POLL_ONLY = textwrap.dedent(
    """
    import sys, anyio
    sys.path.insert(0, sys.argv[1])
    from orphan_server import server
    from toolwire.transports.stdio.stdio import serve_stdio
    anyio.run(serve_stdio, server)
    """
)


def _parent_code(
    command: list[str], pid_file: Path, marker: Path, *, from_thread: bool = False
) -> str:
    """An intermediate parent: spawns the server (inheriting our stdin), records its pid.

    With `from_thread`, a thread spawns the server and exits once the server has armed its
    death signal (the marker is written at import, after arming).
    """
    return textwrap.dedent(
        f"""
        import os, subprocess, sys, threading, time
        def start():
            child = subprocess.Popen({command!r}, stdout=subprocess.DEVNULL)
            open({str(pid_file)!r}, "w").write(str(child.pid))
            if {from_thread!r}:
                deadline = time.monotonic() + 30
                while not os.path.exists({str(marker)!r}) and time.monotonic() < deadline:
                    time.sleep(0.01)
        if {from_thread!r}:
            thread = threading.Thread(target=start)
            thread.start()
            thread.join()  # the spawning thread is gone; the parent process lives on
        else:
            start()
        time.sleep(120)
        """
    )


@pytest.fixture
def stdin_pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    try:
        yield read_fd, write_fd
    finally:
        for fd in (read_fd, write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def _start(
    tmp_path: Path, command: list[str], stdin_fd: int, *, from_thread: bool = False, **env: str
) -> tuple[subprocess.Popen[bytes], int]:
    (tmp_path / "orphan_server.py").write_text(SERVER, encoding="utf-8")
    pid_file = tmp_path / "server.pid"
    marker = tmp_path / "imported"
    code = _parent_code(command, pid_file, marker, from_thread=from_thread)
    parent = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=stdin_fd,
        stderr=(tmp_path / "server.err").open("wb"),
        env=child_env(TEST_MARKER=str(marker), **env),
        cwd=ROOT,
    )
    return parent, int(wait_for_file(pid_file))


def _ready(tmp_path: Path, write_fd: int, *, stuck_call: bool = True) -> None:
    wait_for_file(tmp_path / "imported")
    os.write(write_fd, frame(INIT))
    if stuck_call:  # a sync call that never ends is in flight
        os.write(write_fd, call(2, "forever"))
    time.sleep(0.5)


def _kill_parent_and_wait(parent: subprocess.Popen[bytes], server_pid: int) -> float:
    assert not pid_gone(server_pid), "the server died before its parent"
    parent.kill()
    parent.wait(timeout=10)
    elapsed = wait_gone(server_pid, timeout=10)
    assert elapsed is not None, "the server outlived its parent"
    print(f"server gone {elapsed * 1000:.0f} ms after its parent was killed")
    return elapsed


def test_toolwire_run_exits_when_its_parent_is_killed(
    tmp_path: Path, stdin_pipe: tuple[int, int]
) -> None:
    command = [sys.executable, "-m", "toolwire", "run", str(tmp_path / "orphan_server.py")]
    parent, server_pid = _start(tmp_path, command, stdin_pipe[0])
    _ready(tmp_path, stdin_pipe[1])
    _kill_parent_and_wait(parent, server_pid)
    assert b"Traceback" not in (tmp_path / "server.err").read_bytes()


def test_the_getppid_poll_alone_catches_a_dead_parent(
    tmp_path: Path, stdin_pipe: tuple[int, int]
) -> None:
    command = [sys.executable, "-c", POLL_ONLY, str(tmp_path)]
    parent, server_pid = _start(tmp_path, command, stdin_pipe[0])
    # serve_stdio alone leaves the process's exit to its caller: with a stuck sync thread
    # the interpreter would wait for it (Server.run and `toolwire run` do not; see above).
    _ready(tmp_path, stdin_pipe[1], stuck_call=False)
    _kill_parent_and_wait(parent, server_pid)


def test_a_parent_dying_during_the_import_is_noticed(
    tmp_path: Path, stdin_pipe: tuple[int, int]
) -> None:
    command = [sys.executable, "-m", "toolwire", "run", str(tmp_path / "orphan_server.py")]
    parent, server_pid = _start(tmp_path, command, stdin_pipe[0], TEST_IMPORT_SLEEP="30")
    wait_for_file(tmp_path / "imported")  # now sleeping inside the user's module
    _kill_parent_and_wait(parent, server_pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_spawning_thread_exiting_is_not_the_parent_dying(
    tmp_path: Path, stdin_pipe: tuple[int, int]
) -> None:
    command = [sys.executable, "-m", "toolwire", "run", str(tmp_path / "orphan_server.py")]
    parent, server_pid = _start(tmp_path, command, stdin_pipe[0], from_thread=True)
    _ready(tmp_path, stdin_pipe[1])
    time.sleep(1.0)
    assert not pid_gone(server_pid), "the server took its spawning thread's exit for death"
    _kill_parent_and_wait(parent, server_pid)
