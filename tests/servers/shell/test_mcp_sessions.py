"""An `exec_command` session should end with the MCP session that started it: over streamable
HTTP (uvicorn on 127.0.0.1, the official `mcp` client, which sends DELETE when it closes) a
`sleep 300` must be gone from /proc once its client's session ends, not ten minutes later.

toolwire's public API does not yet tell a tool which MCP session a call belongs to nor when
that session ends, so the server cannot do this: the test is a strict expected failure that
turns into a failure (to be made a plain test) once such a hook exists and is wired."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import anyio
from tests._listening import free_port, listening
from tests.servers.shell._harness import ROOT, env_for_server, wait_until

COMMAND = [sys.executable, "-m", "toolwire_shell"]


def _start_time(pid: int) -> str | None:
    """The start time of the live (non-zombie) process `pid`, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return None if fields[0] == "Z" else fields[19]


def test_exec_session_ends_with_its_mcp_session_over_http(tmp_path: Path) -> None:
    from mcp import Client

    port = free_port()
    pid_file = tmp_path / "pid"
    seen: dict[int, str] = {}

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
                started = await client.call_tool(
                    "exec_command",
                    {"cmd": f"echo $$ > {pid_file}; exec sleep 300", "yield_time_ms": 500},
                )
                assert started.is_error is False
                assert started.structured_content["session_id"] is not None
                assert wait_until(lambda: pid_file.exists() and pid_file.read_text().strip())
                pid = int(pid_file.read_text())
                start = _start_time(pid)
                assert start is not None
                seen[pid] = start
            # Leaving the client sent DELETE for its session.

    command = [*COMMAND, "--transport", "http", "--port", str(port)]
    with listening(command, port, env=env_for_server(), cwd=str(ROOT)) as process:
        try:
            anyio.run(main)
            [(pid, start)] = seen.items()
            assert wait_until(lambda: _start_time(pid) != start, 5), "sleep 300 still runs"
            assert process.poll() is None
        finally:
            for pid, start in seen.items():
                if _start_time(pid) == start:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
