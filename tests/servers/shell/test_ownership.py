"""A session belongs to the caller that started it: over authenticated HTTP, in the
2026-07-28 era (no protocol sessions: the id is the only handle) and the handshake era,
another caller is told it does not exist, cannot write to it, kill it or see it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests._listening import free_port, listening
from tests.servers.shell._harness import ROOT, env_for_server, no_tagged_processes_left, token_of

SERVER = Path(__file__).with_name("servers") / "authenticated.py"


@pytest.mark.parametrize("mode", ["modern", "handshake"])
def test_another_caller_cannot_use_a_session(mode: str) -> None:
    from toolwire.client import MCPServerStreamableHttp

    port = free_port()

    def client(token: str) -> Any:
        return MCPServerStreamableHttp(
            params={"url": f"http://127.0.0.1:{port}/mcp"},
            bearer_token=token,
            protocol_mode=mode,
            client_session_timeout_seconds=30,
        )

    async def main() -> str:
        with anyio.fail_after(60):
            async with client("alice-token") as alice, client("bob-token") as bob:
                started = await alice.call_tool("exec_command", {"cmd": "cat"})
                session = started.structured_content["session_id"]
                for tool, arguments in (
                    ("write_stdin", {"session_id": session, "chars": "rm -rf /\n"}),
                    ("kill_session", {"session_id": session}),
                ):
                    refused = await bob.call_tool(tool, arguments)
                    assert refused.is_error is True
                    assert f"session {session} does not exist" in refused.content[0].text
                listed = await bob.call_tool("list_sessions", {})
                assert listed.structured_content == {"sessions": []}
                mine = await alice.call_tool("list_sessions", {})
                assert [s["session_id"] for s in mine.structured_content["sessions"]] == [session]
                echoed = await alice.call_tool(
                    "write_stdin", {"session_id": session, "chars": "hi\n", "yield_time_ms": 1000}
                )
                assert echoed.structured_content["output"] == "hi\n"
                await alice.call_tool("kill_session", {"session_id": session})
                printed = await alice.call_tool(
                    "shell", {"commands": ["printenv TOOLWIRE_SHELL_TAG"]}
                )
                return token_of(printed)

    command = [sys.executable, str(SERVER), str(port)]
    with listening(command, port, env=env_for_server(), cwd=str(ROOT)):
        token = anyio.run(main)
    assert no_tagged_processes_left(token)
