"""A tool that forks without exec (multiprocessing's default start method on Linux before
3.14) and terminates its child: the SIGTERM ends the child, not the server."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from tests.transports._proc import INIT, call, frame, read_message, send, spawn, toolwire_run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork")

SERVER = textwrap.dedent(
    '''
    import multiprocessing, time
    from toolwire import Server

    server = Server("forker", version="1")

    def _sleep():
        time.sleep(60)

    def _square(n):
        return n * n

    @server.tool
    def terminate_a_child() -> str:
        """Fork a child, then terminate it."""
        child = multiprocessing.get_context("fork").Process(target=_sleep)
        child.start()
        time.sleep(0.2)
        child.terminate()
        child.join(20)
        return f"exitcode={child.exitcode}"

    @server.tool
    def pool_squares() -> list[int]:
        """Square with a fork pool (its `with` block terminates the workers)."""
        with multiprocessing.get_context("fork").Pool(2) as pool:
            return pool.map(_square, range(5))

    @server.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"
    '''
)


def test_terminating_a_forked_child_leaves_the_server_serving(tmp_path: Path) -> None:
    script = tmp_path / "forker.py"
    script.write_text(SERVER, encoding="utf-8")
    err = tmp_path / "server.err"
    proc = spawn(toolwire_run(script), stderr=err.open("wb"), TOOLWIRE_LOG_LEVEL="INFO")
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(proc, call(2, "terminate_a_child"))
    assert read_message(proc)["result"]["content"][0]["text"] == "exitcode=-15"
    send(proc, call(3, "pool_squares"))
    assert read_message(proc)["result"]["structuredContent"] == {"result": [0, 1, 4, 9, 16]}
    send(proc, call(4, "ping"))
    assert read_message(proc)["result"]["content"][0]["text"] == "pong"
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert "received SIGTERM" not in err.read_text()
