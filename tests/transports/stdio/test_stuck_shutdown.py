"""A tool that will not stop (an async tool swallowing its cancellation, an async tool blocking
the event loop) cannot keep a stdio server alive: after stdin EOF, SIGTERM or its parent's
death the process still exits 0, and the processes its tools started go with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.transports._proc import (
    INIT,
    ROOT,
    call,
    child_env,
    frame,
    pid_gone,
    read_message,
    send,
    spawn,
    wait_for_file,
    wait_gone,
)

from toolwire.transports.stdio._deadline import EXIT_SECONDS

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="descendants are found through /proc (Linux)"
)

SERVER = textwrap.dedent(
    '''
    import asyncio, os, subprocess, sys, time
    from toolwire import Server

    server = Server("stuck", version="1")
    PIDS = os.environ["PIDS_DIR"]

    def _child(name):
        child = subprocess.Popen(["sleep", "300"])
        with open(os.path.join(PIDS, name), "w") as f:
            f.write(str(child.pid))

    @server.tool
    async def deaf() -> str:
        """Start a child, then ignore every cancellation."""
        _child("deaf")
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass

    @server.tool
    async def blocking() -> str:
        """Start a child, then block the event loop."""
        _child("blocking")
        time.sleep(3600)
        return "never"

    @server.tool
    def waiting() -> str:
        """Start a child and wait for it (in a worker thread)."""
        child = subprocess.Popen(["sleep", "300"])
        with open(os.path.join(PIDS, "waiting"), "w") as f:
            f.write(str(child.pid))
        child.wait()
        return "never"

    if __name__ == "__main__":
        server.run(shutdown_grace=0.2)
    '''
)


def _start(tmp_path: Path, tool: str) -> tuple[subprocess.Popen[bytes], int, Path]:
    script = tmp_path / "stuck.py"
    script.write_text(SERVER, encoding="utf-8")
    pids = tmp_path / "pids"
    pids.mkdir()
    err = tmp_path / "server.err"
    proc = spawn([sys.executable, str(script)], stderr=err.open("wb"), PIDS_DIR=str(pids))
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(proc, call(2, tool))
    child = int(wait_for_file(pids / tool))
    assert not pid_gone(child)
    return proc, child, err


@pytest.mark.parametrize(
    ("tool", "ending"),
    [("deaf", "eof"), ("deaf", "sigterm"), ("blocking", "sigterm"), ("blocking", "sigint")],
)
def test_a_tool_that_will_not_stop_cannot_keep_the_server_alive(
    tmp_path: Path, tool: str, ending: str
) -> None:
    proc, child, err = _start(tmp_path, tool)
    if ending == "eof":
        assert proc.stdin is not None
        proc.stdin.close()
    else:
        proc.send_signal(signal.SIGTERM if ending == "sigterm" else signal.SIGINT)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        os.kill(child, signal.SIGKILL)
        raise AssertionError(f"the server outlived its {tool!r} tool after {ending}") from None
    assert code == 0
    assert wait_gone(child, 10) is not None, "the tool's child outlived the server"
    assert proc.stdout is not None
    assert proc.stdout.read() == b""  # nothing half-written on the wire
    log = err.read_text()
    assert "Traceback" not in log
    assert "did not finish in time" in log


@pytest.mark.parametrize("tool", ["blocking", "waiting"])
def test_an_orphan_exits_with_its_tools_children(tmp_path: Path, tool: str) -> None:
    """The parent is SIGKILLed while stdin stays open (the test holds it). With the loop
    blocked only the death signal's handler, which runs all the same, can end the server."""
    script = tmp_path / "stuck.py"
    script.write_text(SERVER, encoding="utf-8")
    pids = tmp_path / "pids"
    pids.mkdir()
    read_fd, write_fd = os.pipe()
    out_read, out_write = os.pipe()
    middle = textwrap.dedent(
        f"""
        import subprocess, sys, time
        server = subprocess.Popen([sys.executable, {str(script)!r}])
        open({str(pids / "server")!r}, "w").write(str(server.pid))
        time.sleep(300)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", middle],
        stdin=read_fd,
        stdout=out_write,
        stderr=(tmp_path / "server.err").open("wb"),
        env=child_env(PIDS_DIR=str(pids)),
        cwd=ROOT,
    )
    os.close(read_fd)
    os.close(out_write)
    server = int(wait_for_file(pids / "server"))
    try:
        os.write(write_fd, frame(INIT))
        with os.fdopen(out_read, "rb") as out:
            assert json.loads(out.readline())["id"] == 1
            os.write(write_fd, call(2, tool))
            child = int(wait_for_file(pids / tool))
            parent.kill()
            parent.wait(timeout=10)
            assert wait_gone(server, 30) is not None, "the orphan outlived its parent"
            assert wait_gone(child, 10) is not None, "the tool's child outlived the server"
            assert out.read() == b""
    finally:
        os.close(write_fd)
    log = (tmp_path / "server.err").read_text()
    assert "Traceback" not in log
    assert ("did not finish in time" in log) == (tool == "blocking")


TWICE = textwrap.dedent(
    '''
    import asyncio, sys
    from toolwire import Server

    server = Server("twice", version="1")

    @server.tool
    async def nap(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "rested"

    server.run()
    print("first run over", file=sys.stderr, flush=True)
    server.run()
    print("second run over", file=sys.stderr, flush=True)
    '''
)


def test_a_second_run_is_not_cut_short_by_the_first_runs_deadline(tmp_path: Path) -> None:
    script = tmp_path / "twice.py"
    script.write_text(TWICE, encoding="utf-8")
    err = tmp_path / "server.err"
    proc = spawn([sys.executable, str(script)], stderr=err.open("wb"))
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    proc.send_signal(signal.SIGTERM)  # ends the first run; stdin stays open for the second
    for _ in range(3000):
        if "first run over" in err.read_text():
            break
        time.sleep(0.01)
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    # Longer than the exit deadline the first run's SIGTERM started.
    send(proc, call(2, "nap", {"seconds": EXIT_SECONDS + 1}))
    assert read_message(proc)["result"]["content"][0]["text"] == "rested"
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert err.read_text().endswith("second run over\n")
