"""`http_app()` and `sse_app()` of one server mounted side by side in a Starlette app, served
by a real uvicorn process: both transports answer the official clients, and the server's
lifespan is entered once and left once (the two apps share one serving), whether the parent
runs the apps' lifespans or the apps start on their first request (then, under uvicorn, the
lifespan is never left: nothing tells a mounted app of the shutdown)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from tests._listening import free_port

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
START_SECONDS = 60.0
STOP_SECONDS = 30.0

APP = """
import contextlib
import sys
import uuid

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from toolwire import Server, ToolContext

LOG = sys.argv[3]


def note(line):
    with open(LOG, "a") as log:
        log.write(line + "\\n")


@contextlib.asynccontextmanager
async def lifespan(server):
    serving = uuid.uuid4().hex
    note("enter " + serving)
    yield {"serving": serving}
    note("exit " + serving)


server = Server("both", lifespan=lifespan)


@server.tool
def which(ctx: ToolContext[dict]) -> str:
    '''The serving this call ran in.'''
    return ctx.context["serving"]


streamable = server.http_app()
legacy = server.sse_app()


@contextlib.asynccontextmanager
async def parent_lifespan(app):
    async with streamable.lifespan(), legacy.lifespan():
        yield


app = Starlette(
    routes=[Mount("/legacy", legacy), Mount("/", streamable)],
    lifespan=parent_lifespan if sys.argv[2] == "parent" else None,
)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _wait_until_serving(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited early: {process.stderr.read()!r}")  # type: ignore[union-attr]
        try:
            httpx2.get(f"http://127.0.0.1:{port}/nothing-here", timeout=1)
            return
        except httpx2.TransportError:
            time.sleep(0.05)
    raise AssertionError("uvicorn did not answer in time")


async def _call_both(port: int) -> tuple[str, str]:
    base = f"http://127.0.0.1:{port}"
    async with (
        streamable_http_client(f"{base}/mcp") as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        streamed = await session.call_tool("which", {})
    async with (
        sse_client(f"{base}/legacy/sse") as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        legacy = await session.call_tool("which", {})
    return streamed.content[0].text, legacy.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("started_by", ["parent", "first-request"])
def test_both_apps_share_one_lifespan(tmp_path: Path, started_by: str) -> None:
    script = tmp_path / "both.py"
    script.write_text(APP)
    log = tmp_path / "lifespan.log"
    log.write_text("")
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, str(script), str(port), started_by, str(log)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_until_serving(process, port)
        # Paths the apps do not serve fall through to Starlette's routing: 404, not a loop.
        missing = httpx2.get(f"http://127.0.0.1:{port}/nothing-here", timeout=10)
        assert missing.status_code == 404
        missing = httpx2.get(f"http://127.0.0.1:{port}/legacy/nothing-here", timeout=10)
        assert missing.status_code == 404
        streamed, legacy = asyncio.run(asyncio.wait_for(_call_both(port), 60))
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=STOP_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_SECONDS)
    lines = log.read_text().split()
    # The lifespan is entered once either way; it exits only when forwarded (nothing tells
    # an app started on its first request that uvicorn stops, and a warning says so).
    expected = ["enter", "exit"] if started_by == "parent" else ["enter"]
    warned = err.count(b"started serving on its first request")
    assert warned == (0 if started_by == "parent" else 2), err  # once per app
    assert lines[0::2] == expected, (lines, err)
    serving = lines[1]
    assert lines[1::2] == [serving] * len(expected)
    assert streamed == legacy == serving  # both transports' calls ran in that one serving
    assert b"Traceback" not in err, err
