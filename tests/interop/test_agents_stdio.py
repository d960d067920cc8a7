"""The Agents SDK's own MCP client runs a toolwire server; a scripted model calls a tool."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[2]


def test_agents_runner_calls_a_toolwire_tool_over_stdio() -> None:
    from agents import Agent, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> tuple[str, object]:
        params = {"command": sys.executable, "args": ["-m", "servers.demo"], "cwd": str(ROOT)}
        async with MCPServerStdio(params=params, client_session_timeout_seconds=30) as server:
            model = ScriptedModel(
                [
                    [function_call("shout", {"text": "hi there"}, call_id="c1")],
                    [assistant_message("done")],
                ]
            )
            agent = Agent(name="demo", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "shout it")
            model.assert_complete()
            return result.final_output, model.last_call.input[-1]["output"]

    final, output = anyio.run(main)
    assert final == "done"
    assert output == [{"type": "input_text", "text": "HI THERE"}]


def test_require_approval_interrupts_the_destructive_tool() -> None:
    from agents import Agent, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, function_call

    async def main() -> list[str]:
        params = {"command": sys.executable, "args": ["-m", "servers.demo"], "cwd": str(ROOT)}
        async with MCPServerStdio(
            params=params,
            client_session_timeout_seconds=30,
            require_approval={"delete_note": "always"},
        ) as server:
            model = ScriptedModel(
                [[function_call("delete_note", {"title": "welcome"}, call_id="c1")]]
            )
            agent = Agent(name="demo", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "delete it")
            return [item.tool_name for item in result.interruptions]

    assert anyio.run(main) == ["delete_note"]
