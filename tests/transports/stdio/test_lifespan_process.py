"""A server's lifespan on a real stdio subprocess: entered before the first call is answered,
exited on every way serving ends, its resource visible to tools, its failures reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.transports._proc import (
    INIT,
    ROOT,
    call,
    child_env,
    exchange,
    frame,
    read_message,
    send,
    signal_and_collect,
    spawn,
    toolwire_run,
    wait_for_file,
    wait_gone,
)

SERVER = ROOT / "tests" / "interop" / "servers" / "lifespan.py"
INITIALIZED = frame({"jsonrpc": "2.0", "method": "notifications/initialized"})
LAUNCHERS = {"script": [sys.executable, str(SERVER)], "cli": toolwire_run(SERVER)}


def _markers(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _start(launcher: str, markers: Path, **env: str) -> subprocess.Popen[bytes]:
    return spawn(LAUNCHERS[launcher], LIFESPAN_MARKERS=str(markers), **env)


def _text(reply: dict[str, object]) -> str:
    result = reply["result"]
    assert isinstance(result, dict), reply
    assert result["isError"] is False, result
    return str(result["content"][0]["text"])


@pytest.mark.parametrize("launcher", ["script", "cli"])
def test_entered_before_the_first_call_and_exited_after_eof(launcher: str, tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    proc = _start(launcher, markers)
    try:
        send(proc, frame(INIT), INITIALIZED, call(2, "pool_size"))
        assert read_message(proc)["id"] == 1
        reply = read_message(proc)
        assert reply["id"] == 2
        assert _text(reply) == "3"  # the pool the lifespan made, seen through ctx.context
        # Answered: the lifespan was entered before, and is still open.
        assert _markers(markers) == ["enter", "ready", "call"]
        send(proc, call(3, "pool_owner"))
        assert _text(read_message(proc)) == "pooled"  # a sync tool sees it too
    finally:
        messages, err, code = exchange(proc, [])  # EOF
    assert messages == []
    assert code == 0, err
    assert _markers(markers) == ["enter", "ready", "call", "call", "exit"]
    assert "Traceback" not in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_exited_after_a_signal(signum: int, tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    proc = _start("script", markers)
    try:
        send(proc, frame(INIT), INITIALIZED, call(2, "pool_size"))
        assert read_message(proc)["id"] == 1
        assert _text(read_message(proc)) == "3"
        assert _markers(markers) == ["enter", "ready", "call"]
    except BaseException:
        proc.kill()
        raise
    out, err = signal_and_collect(proc, signum)  # stdin still open: the signal ends it
    assert proc.returncode == 0, err
    assert out == b""
    assert _markers(markers) == ["enter", "ready", "call", "exit"]
    assert b"Traceback" not in err


def test_a_signal_during_a_slow_entry_cancels_it_and_exits_zero(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    proc = _start("script", markers, LIFESPAN_SLOW_ENTRY="1")
    try:
        deadline = time.monotonic() + 30
        while "waiting" not in _markers(markers):  # the entry now waits in the event loop
            assert time.monotonic() < deadline, _markers(markers)
            time.sleep(0.01)
    except BaseException:
        proc.kill()
        raise
    out, err = signal_and_collect(proc, signal.SIGTERM)
    assert proc.returncode == 0, err
    assert out == b""
    assert _markers(markers) == ["enter", "waiting", "entry cancelled"]
    assert b"Traceback" not in err


@pytest.mark.parametrize("launcher", ["script", "cli"])
def test_a_lifespan_failing_on_entry_stops_start_up_with_a_log_line(
    launcher: str, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    proc = _start(launcher, markers, LIFESPAN_FAIL="enter")
    messages, err, code = exchange(proc, [frame(INIT), call(2, "pool_size")])
    assert code == 1, err
    assert messages == []  # nothing was served, not even the handshake
    assert _markers(markers) == ["enter"]
    first = err.splitlines()[0]
    assert first == (
        "ERROR toolwire: server 'pooled' did not start: its lifespan failed: "
        "RuntimeError: database unreachable"
    )
    assert 'raise RuntimeError("database unreachable")' in err  # the traceback follows


def test_a_failed_start_up_exits_one_even_when_a_thread_is_left_behind(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    proc = _start("script", markers, LIFESPAN_FAIL="enter-leaving-a-thread")
    messages, err, code = exchange(proc, [frame(INIT)], timeout=30)
    assert code == 1, err
    assert messages == []
    assert "did not start: its lifespan failed: RuntimeError: database unreachable" in err


def test_a_lifespan_failing_on_exit_is_logged(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    proc = _start("script", markers, LIFESPAN_FAIL="exit")
    messages, err, code = exchange(proc, [frame(INIT), INITIALIZED, call(2, "pool_size")])
    assert [m["id"] for m in messages] == [1, 2]
    assert _text(messages[1]) == "3"
    assert code == 0, err
    assert _markers(markers) == ["enter", "ready", "call", "exit"]
    assert (
        "ERROR toolwire: server 'pooled': its lifespan failed on shutdown: "
        "RuntimeError: pool would not close"
    ) in err.splitlines()
    assert 'raise RuntimeError("pool would not close")' in err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process semantics")
def test_exited_when_the_parent_dies(tmp_path: Path) -> None:
    """stdin stays open (we hold it): only the parent watch can end serving."""
    markers = tmp_path / "markers"
    pid_file = tmp_path / "server.pid"
    parent_code = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen({LAUNCHERS['cli']!r}, stdout=subprocess.DEVNULL)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(120)\n"
    )
    read_fd, write_fd = os.pipe()
    try:
        parent = subprocess.Popen(
            [sys.executable, "-c", parent_code],
            stdin=read_fd,
            stderr=(tmp_path / "server.err").open("wb"),
            env=child_env(LIFESPAN_MARKERS=str(markers), TOOLWIRE_LOG_LEVEL="INFO"),
            cwd=ROOT,
        )
        server_pid = int(wait_for_file(pid_file))
        deadline = time.monotonic() + 30
        while "ready" not in _markers(markers):
            assert time.monotonic() < deadline, _markers(markers)
            time.sleep(0.01)
        parent.kill()
        parent.wait(timeout=10)
        assert wait_gone(server_pid, timeout=10) is not None, "the server outlived its parent"
    finally:
        os.close(read_fd)
        os.close(write_fd)
    assert _markers(markers) == ["enter", "ready", "exit"], (tmp_path / "server.err").read_text()
