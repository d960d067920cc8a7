"""The Agents SDK's own MCP client runs a toolwire server; a scripted model calls its tools.

`agents.mcp.MCPServerStdio` spawns the kitchen server (by `server.run()` and by
`python -m toolwire run`), `Runner.run` drives `agents.testing.ScriptedModel`, and the
assertions are on what the model received back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import pytest
from tests.interop._support import ADD_INPUT_SCHEMA, DEFAULT_FAILURE, ROOT, command

T = TypeVar("T")


def _params(launcher: str = "script") -> dict[str, Any]:
    executable, args = command(launcher)
    return {"command": executable, "args": args, "cwd": str(ROOT)}


def _bounded(main: Callable[[], Awaitable[T]], seconds: float) -> T:
    async def run() -> T:
        with anyio.fail_after(seconds):
            return await main()

    return anyio.run(run)


def _run_config() -> Any:
    from agents import RunConfig

    return RunConfig(tracing_disabled=True)


@pytest.mark.parametrize("launcher", ["script", "cli"])
def test_runner_calls_a_toolwire_tool(launcher: str) -> None:
    from agents import Agent, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> tuple[Any, Any, Any, Any]:
        async with MCPServerStdio(
            params=_params(launcher), client_session_timeout_seconds=30
        ) as server:
            model = ScriptedModel(
                [
                    [function_call("add", {"a": 2, "b": 40}, call_id="c1")],
                    [function_call("echo", {"text": "ünïcode"}, call_id="c2")],
                    [assistant_message("the answer is 42")],
                ]
            )
            agent = Agent(name="calc", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "add them", run_config=_run_config())
            model.assert_complete()
            assert model.last_call is not None
            tools = {tool.name: tool for tool in model.last_call.tools}
            return result.final_output, model.last_call.input, tools, result

    final, model_input, tools, _ = _bounded(main, 90)
    assert final == "the answer is 42"
    outputs = {item["call_id"]: item["output"] for item in model_input if "output" in item}
    assert outputs["c1"] == [{"type": "input_text", "text": "42"}]
    assert outputs["c2"] == [{"type": "input_text", "text": "ünïcode"}]
    assert model_input[-1]["output"] == [{"type": "input_text", "text": "ünïcode"}]
    # The model saw the MCP tools with toolwire's schemas (already strict: unchanged).
    assert "add" in tools and "wipe" in tools
    assert tools["add"].params_json_schema == ADD_INPUT_SCHEMA
    assert tools["add"].description == "Add two integers."


def test_structured_content_reaches_the_model_when_asked() -> None:
    from agents import Agent, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> Any:
        async with MCPServerStdio(
            params=_params(), client_session_timeout_seconds=30, use_structured_content=True
        ) as server:
            model = ScriptedModel(
                [
                    [
                        function_call(
                            "profile", {"name": "Ada", "age": 36, "tags": []}, call_id="c1"
                        )
                    ],
                    [assistant_message("ok")],
                ]
            )
            agent = Agent(name="p", model=model, mcp_servers=[server])
            await Runner.run(agent, "profile", run_config=_run_config())
            assert model.last_call is not None
            return model.last_call.input[-1]["output"]

    output = _bounded(main, 90)
    import json

    assert json.loads(output) == {"name": "Ada", "age": 36, "tags": []}


def test_failing_tool_gives_the_model_the_failure_text() -> None:
    from agents import Agent, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> Any:
        async with MCPServerStdio(params=_params(), client_session_timeout_seconds=30) as server:
            model = ScriptedModel(
                [
                    [function_call("boom", {"reason": "x"}, call_id="c1")],
                    [function_call("boom_loud", {"reason": "disk full"}, call_id="c2")],
                    [assistant_message("sorry")],
                ]
            )
            agent = Agent(name="b", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "fail", run_config=_run_config())
            assert model.last_call is not None
            return result.final_output, model.last_call.input

    final, model_input = _bounded(main, 90)
    assert final == "sorry"
    outputs = {item["call_id"]: item["output"] for item in model_input if "output" in item}
    assert outputs["c1"] == [{"type": "input_text", "text": DEFAULT_FAILURE}]
    assert outputs["c2"] == [{"type": "input_text", "text": "boom_loud failed: disk full"}]


def test_require_approval_interrupts_the_destructive_tool_then_runs_it() -> None:
    from agents import Agent, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> tuple[list[str], Any, Any]:
        async with MCPServerStdio(
            params=_params(),
            client_session_timeout_seconds=30,
            require_approval={"wipe": "always"},
        ) as server:
            model = ScriptedModel(
                [
                    [function_call("wipe", {"target": "/tmp/x"}, call_id="c1")],
                    [assistant_message("wiped")],
                ]
            )
            agent = Agent(name="w", model=model, mcp_servers=[server])
            first = await Runner.run(agent, "wipe it", run_config=_run_config())
            names = [item.tool_name for item in first.interruptions]
            # Nothing ran yet: the model was asked once, the tool not at all.
            assert len(model.calls) == 1
            state = first.to_state()
            state.approve(first.interruptions[0])
            second = await Runner.run(agent, state, run_config=_run_config())
            assert model.last_call is not None
            return names, second.final_output, model.last_call.input[-1]["output"]

    names, final, output = _bounded(main, 90)
    assert names == ["wipe"]
    assert final == "wiped"
    assert output == [{"type": "input_text", "text": "wiped /tmp/x"}]


def test_list_tools_through_mcp_server_stdio_sees_annotations() -> None:
    from agents.mcp import MCPServerStdio

    async def main() -> dict[str, Any]:
        async with MCPServerStdio(params=_params(), client_session_timeout_seconds=30) as server:
            return {tool.name: tool for tool in await server.list_tools()}

    tools = _bounded(main, 60)
    assert tools["wipe"].annotations.destructive_hint is True
    assert tools["add"].annotations.read_only_hint is True
