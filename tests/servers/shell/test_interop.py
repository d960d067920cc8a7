"""toolwire-shell driven by real clients: the official `mcp` client over stdio and streamable
HTTP in both protocol eras (sessions used across calls by their id alone), and the MCP
Inspector CLI over stdio."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from tests._listening import free_port, listening
from tests.interop._inspector import first_json, inspector_or_skip, run_inspector
from tests.servers.shell._harness import ROOT, env_for_server, no_tagged_processes_left, token_of

COMMAND = [sys.executable, "-m", "toolwire_shell"]


async def exercise(client: Any) -> str:
    """What every client does: list, run, a session across two calls, errors; the server's
    tag prefix, to check afterwards that none of its processes is left."""
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"shell", "exec_command", "write_stdin", "kill_session", "list_sessions"}
    assert tools["shell"].annotations.destructive_hint is True
    ran = await client.call_tool("shell", {"commands": ["echo hi; exit 2"]})
    assert ran.is_error is False
    assert ran.structured_content["output"][0] == {
        "command": "echo hi; exit 2",
        "stdout": "hi\n",
        "stderr": "",
        "outcome": {"type": "exit", "exit_code": 2},
    }
    started = await client.call_tool("exec_command", {"cmd": "cat", "yield_time_ms": 250})
    session = started.structured_content["session_id"]
    assert isinstance(session, int)
    echoed = await client.call_tool(
        "write_stdin", {"session_id": session, "chars": "ping\n", "yield_time_ms": 1000}
    )
    assert echoed.structured_content["output"] == "ping\n"
    killed = await client.call_tool("kill_session", {"session_id": session})
    assert killed.structured_content["session_id"] == session
    again = await client.call_tool("write_stdin", {"session_id": session, "chars": "x"})
    assert again.is_error is True and "does not exist" in again.content[0].text
    return token_of(await client.call_tool("shell", {"commands": ["printenv TOOLWIRE_SHELL_TAG"]}))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_official_client_over_stdio(mode: str) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=COMMAND[0], args=COMMAND[1:], env=env_for_server(), cwd=str(ROOT)
    )

    async def main() -> str:
        with anyio.fail_after(60):
            async with Client(params, mode=mode) as client:
                return await exercise(client)

    assert no_tagged_processes_left(anyio.run(main))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_official_client_over_http(mode: str) -> None:
    from mcp import Client

    port = free_port()
    command = [*COMMAND, "--transport", "http", "--port", str(port)]

    async def main() -> str:
        with anyio.fail_after(60):
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                return await exercise(client)

    with listening(command, port, env=env_for_server(), cwd=str(ROOT)) as process:
        token = anyio.run(main)
        assert process.poll() is None
    assert no_tagged_processes_left(token)


def test_inspector_cli_calls_shell() -> None:
    inspector = inspector_or_skip()
    # The Inspector starts the server with its own environment: pass the source paths on.
    pythonpath = env_for_server()["PYTHONPATH"]
    done = run_inspector(
        inspector,
        ["/usr/bin/env", f"PYTHONPATH={pythonpath}", *COMMAND],
        "--method",
        "tools/call",
        "--tool-name",
        "shell",
        "--tool-arg",
        'commands=["echo from-inspector"]',
    )
    payload = first_json(done)
    result = payload.get("result", payload)
    assert result["structuredContent"]["output"][0]["stdout"] == "from-inspector\n"
    assert result["content"] == [{"type": "text", "text": "$ echo from-inspector\nfrom-inspector"}]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_agents_sdk_runs_it(transport: str) -> None:
    agents = pytest.importorskip("agents")
    testing = pytest.importorskip("agents.testing")
    from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

    model = testing.ScriptedModel(
        [
            testing.ModelStep(
                output=[
                    testing.function_call(
                        "shell", {"commands": ["echo via-agents; exit 4"]}, call_id="c1"
                    ),
                    testing.function_call(
                        "shell", {"commands": ["printenv TOOLWIRE_SHELL_TAG"]}, call_id="c2"
                    ),
                ]
            ),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )

    async def run(server: Any) -> Any:
        async with server:
            agent = agents.Agent(name="a", model=model, mcp_servers=[server])
            return await agents.Runner.run(agent, "go")

    if transport == "stdio":
        params = {"command": COMMAND[0], "args": COMMAND[1:], "env": env_for_server()}
        result = anyio.run(run, MCPServerStdio(params, client_session_timeout_seconds=30))
    else:
        port = free_port()
        command = [*COMMAND, "--transport", "http", "--port", str(port)]
        with listening(command, port, env=env_for_server(), cwd=str(ROOT)):
            server = MCPServerStreamableHttp(
                {"url": f"http://127.0.0.1:{port}/mcp"}, client_session_timeout_seconds=30
            )
            result = anyio.run(run, server)
    assert result.final_output == "done"
    [seen, printed] = [
        item
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    # The SDK hands the model the MCP text block: the SDK's own rendering of shell output.
    assert seen["output"] == [
        {"type": "input_text", "text": "$ echo via-agents; exit 4\nvia-agents\nexit code: 4"}
    ]
    [text] = printed["output"]
    assert text["text"].startswith("$ printenv TOOLWIRE_SHELL_TAG\n")
    assert no_tagged_processes_left(text["text"].splitlines()[1].split(".")[0] + ".")


def test_toolwire_install_writes_an_entry_that_serves(tmp_path: Any) -> None:
    import os
    import subprocess

    from mcp import Client, StdioServerParameters

    path = env_for_server()["PYTHONPATH"]
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "install", "mcp-json", "toolwire_shell.app", "--env",
         f"TOOLWIRE_SHELL_ARGS=--root '{tmp_path}' --allow echo --allow printenv"],
        capture_output=True, text=True, timeout=60, check=True,
        env={**os.environ, "PYTHONPATH": path}, cwd=str(ROOT),
    )  # fmt: skip
    [entry] = json.loads(done.stdout)["mcpServers"].values()
    assert entry["args"][:4] == ["-m", "toolwire", "run", "toolwire_shell.app"]
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**entry["env"], "PYTHONPATH": path}
    )

    async def main() -> str:
        with anyio.fail_after(60):
            async with Client(params, mode="legacy") as client:
                ran = await client.call_tool("shell", {"commands": ["echo ok"]})
                assert ran.structured_content["output"][0]["stdout"] == "ok\n"
                refused = await client.call_tool("shell", {"commands": ["ls"]})
                assert refused.is_error is True and "'ls' is not an allowed command" in (
                    refused.content[0].text
                )
                printed = await client.call_tool(
                    "shell", {"commands": ["printenv TOOLWIRE_SHELL_TAG"]}
                )
                return token_of(printed)

    assert no_tagged_processes_left(anyio.run(main))
