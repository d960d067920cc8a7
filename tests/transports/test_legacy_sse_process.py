"""`toolwire run TARGET --transport sse` as a process: quiet when all is well, one clear
traceback and status 1 when the server's lifespan fails, status 0 on SIGTERM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
from tests.interop._served_http import free_port, served_http
from tests.interop._support import ROOT

FAILING = """
import contextlib
from toolwire import Server


@contextlib.asynccontextmanager
async def lifespan(server):
    raise RuntimeError("no database")
    yield


server = Server("broken", lifespan=lifespan)
"""


def test_a_failing_lifespan_exits_1_with_one_traceback(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(FAILING)
    command = [sys.executable, "-m", "toolwire", "run", str(path), "--transport", "sse"]
    done = subprocess.run(
        [*command, "--port", str(free_port())],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "server 'broken' did not start: its lifespan failed: RuntimeError: no database" in (
        done.stderr
    )
    assert done.stderr.count("Traceback") == 1, done.stderr


def test_serving_and_stopping_print_nothing() -> None:
    async def one_call(url: str) -> str:
        from mcp import ClientSession
        from mcp.client.sse import sse_client

        with anyio.fail_after(30):
            async with sse_client(url) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                reply = await session.call_tool("add", {"a": 1, "b": 2})
                return str(reply.content[0].text)

    with served_http("sse", "cli") as server:
        assert anyio.run(one_call, server.base + "/sse") == "3"
        assert server.stop() == 0
        assert server.stderr() == ""  # no banner, no access log, nothing about the stop
