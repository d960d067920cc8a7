"""`toolwire run TARGET --transport http --workers N`: N uvicorn worker processes on one port.
Both workers answer calls; SIGTERM to the parent stops everything with status 0; a parent
killed outright leaves no worker behind; misuse is refused or warned about."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.scale import _infra
from tests.scale._infra import ROOT, Backend, start_backend
from tests.scale._shared import toolwire_run

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TARGET = "tests.scale.servers.scale_server:server"
WAIT_SECONDS = _infra.STOP_SECONDS


def _pid_over_new_connection(backend: Backend, n: int) -> int:
    """One `whoami` call on a fresh connection (the kernel picks the worker per connection)."""
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "whoami", "arguments": {"n": n}},
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    response = httpx2.post(backend.url, headers=headers, content=json.dumps(message), timeout=20)
    text = response.json()["result"]["content"][0]["text"]
    pid, echoed = text.split(":")
    assert int(echoed) == n
    return int(pid)


async def _official_client_pid(url: str) -> int:
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("whoami", {"n": 7})
        return int(result.content[0].text.split(":")[0])  # type: ignore[union-attr]


def test_two_workers_serve_and_sigterm_stops_them_all_with_status_0() -> None:
    backend = start_backend(TARGET, args=("--stateless", "--json-response", "--workers", "2"))
    workers = {pid for pid, ppid, _ in _infra.group_members(backend.pid) if ppid == backend.pid}
    seen: set[int] = set()
    for n in range(200):  # bounded: stop as soon as both workers have answered
        seen.add(_pid_over_new_connection(backend, n))
        if len(seen) == 2:
            break
    assert len(seen) == 2, seen
    assert backend.pid not in seen  # the parent supervises, the workers serve
    assert seen <= workers, (seen, workers)
    assert asyncio.run(asyncio.wait_for(_official_client_pid(backend.url), 30)) in seen

    os.kill(backend.pid, signal.SIGTERM)
    status = backend.process.wait(timeout=WAIT_SECONDS)
    assert status == 0, backend.log_text()
    assert _infra.wait_until_group_gone(backend.pid) == []
    # One line says where; no access log, no traceback.
    serving = f"toolwire: serving MCP at {backend.url} (2 worker processes); press Ctrl+C to stop"
    assert backend.log_text() == serving + "\n"


def test_workers_outlive_no_parent_killed_outright() -> None:
    backend = start_backend(TARGET, args=("--stateless", "--workers", "2"))
    assert len([p for p in _infra.group_members(backend.pid) if p[1] == backend.pid]) >= 2
    os.kill(backend.pid, signal.SIGKILL)  # the parent alone: it cannot stop its workers
    backend.process.wait(timeout=WAIT_SECONDS)
    assert _infra.wait_until_group_gone(backend.pid) == []


def test_workers_with_sessions_warn_and_name_the_fix() -> None:
    backend = start_backend(TARGET, args=("--workers", "2"))
    assert backend.stop() == 0
    warning = backend.log_text()
    assert "--workers 2 without --stateless" in warning
    assert "Use --stateless" in warning and "(--redis URL)" in warning


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--workers", "2"), "--workers needs --transport http"),
        (("--transport", "sse", "--workers", "2"), "--workers needs --transport http"),
        (("--transport", "http", "--workers", "0"), "must be at least 1, not 0"),
        (("--transport", "http", "--workers", "two"), "not a whole number: 'two'"),
    ],
)
def test_bad_workers_usage_is_refused(args: tuple[str, ...], message: str) -> None:
    completed = toolwire_run(TARGET, *args)
    assert completed.returncode == 2, completed
    assert message in completed.stderr


def test_a_failing_lifespan_in_the_workers_exits_with_status_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import contextlib\n"
        "from toolwire import Server\n\n"
        "@contextlib.asynccontextmanager\n"
        "async def lifespan(server):\n"
        "    raise RuntimeError('no database')\n"
        "    yield\n\n"
        "server = Server('broken', lifespan=lifespan)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    command = [sys.executable, "-m", "toolwire", "run", str(broken), "--transport", "http"]
    process = subprocess.Popen(
        [*command, "--port", "0", "--stateless", "--workers", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, err = process.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 1, err
    assert "no database" in err
    assert _infra.wait_until_group_gone(process.pid) == []


def test_workers_whose_server_lacks_a_tool_the_parent_saw_refuse_to_start(tmp_path: Path) -> None:
    # As with Server.run(workers=N): what the parent serves single-process, workers serve too.
    split = tmp_path / "split.py"
    split.write_text(
        "import multiprocessing\n"
        "from toolwire import Server\n\n"
        "server = Server('split')\n"
        "if multiprocessing.parent_process() is None:\n"
        "    server.add_tool(lambda: 1, name='parent_only')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    command = [sys.executable, "-m", "toolwire", "run", str(split), "--transport", "http"]
    completed = subprocess.run(
        [*command, "--port", "0", "--stateless", "--workers", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 1, completed.stderr
    assert "without the tools parent_only" in completed.stderr
