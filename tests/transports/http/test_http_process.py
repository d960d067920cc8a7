"""`toolwire run FILE --transport http` as a real process: served on the given port, answers
the official client, ends with status 0 on SIGTERM; a failing lifespan exits with 1."""

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
from mcp.client.streamable_http import streamable_http_client
from tests._listening import free_port

ROOT = Path(__file__).resolve().parents[3]
STARTUP_SECONDS = 20.0

SERVER = """
from toolwire import Server

server = Server("proc", version="2.0")


@server.tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b
"""

FAILING = Path(__file__).resolve().parents[1] / "servers" / "failing_lifespan.py"


def spawn(path: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.pop("TOOLWIRE_LOG_LEVEL", None)
    command = [sys.executable, "-m", "toolwire", "run", str(path), "--transport", "http"]
    process = subprocess.Popen(
        [*command, "--port", str(port), *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return process, port


def wait_until_serving(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited early: {process.stderr.read()!r}")  # type: ignore[union-attr]
        try:
            httpx2.get(f"http://127.0.0.1:{port}/", timeout=1)
            return
        except httpx2.TransportError:
            time.sleep(0.05)
    raise AssertionError("the server did not start listening")


async def add_over_http(url: str) -> tuple[str, str]:
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        result = await session.call_tool("add", {"a": 40, "b": 2})
        return init.server_info.name, str(result.content[0].text)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "flags", [(), ("--stateless", "--json-response")], ids=["sessions", "stateless-json"]
)
def test_toolwire_run_http_serves_and_stops_on_sigterm(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    process, port = spawn(path, *flags)
    try:
        wait_until_serving(process, port)
        seen = asyncio.run(asyncio.wait_for(add_over_http(f"http://127.0.0.1:{port}/mcp"), 30))
        assert seen == ("proc", "42")
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert out == b""
    # One line says where MCP is served; no access log, nothing about the stop.
    line = f"toolwire: serving MCP at http://127.0.0.1:{port}/mcp; press Ctrl+C to stop\n"
    assert err.decode() == line


def test_a_failing_lifespan_exits_with_status_1() -> None:
    process, _ = spawn(FAILING)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert b"no database" in err


def test_http_flags_need_the_http_transport(tmp_path: Path) -> None:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    result = subprocess.run(
        [sys.executable, "-m", "toolwire", "run", str(path), "--stateless"],
        capture_output=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == b"toolwire run: --stateless needs --transport http\n"


FORKER = Path(__file__).resolve().parents[1] / "servers" / "forker.py"


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
@pytest.mark.parametrize("workers", [(), ("--workers", "2")], ids=["one", "workers"])
def test_a_child_a_tool_forks_can_be_terminated(workers: tuple[str, ...]) -> None:
    """A child forked without exec used to keep the server's SIGTERM handler: it ignored the
    terminate() meant for it, and the tool waited for it until its join gave up."""
    process, port = spawn(FORKER, "--stateless", "--json-response", *workers)
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }

    def call(name: str) -> dict[str, object]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name}}
        reply = httpx2.post(f"http://127.0.0.1:{port}/mcp", json=body, headers=headers, timeout=60)
        result: dict[str, object] = reply.json()["result"]
        return result

    try:
        wait_until_serving(process, port)
        assert call("terminate_a_child")["content"] == [{"type": "text", "text": "exitcode=-15"}]
        slow = call("terminate_a_slow_starting_child")  # its SIGTERM comes before its reset
        assert slow["content"] == [{"type": "text", "text": "exitcode=-15"}]
        assert call("pool_squares")["structuredContent"] == {"result": [0, 1, 4, 9, 16]}
        assert call("ping")["content"] == [{"type": "text", "text": "pong"}]
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
