"""FunctionTool behaviour beyond the schema: outputs, outcomes, timeouts, bad input, interop."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from toolwire import (
    FunctionTool,
    ModelBehaviorError,
    ToolContext,
    ToolOutputImage,
    ToolOutputText,
    ToolTimeoutError,
    function_tool,
)
from toolwire.tools.invoke import invoke_function_tool, invoke_tool

GENERIC = "An error occurred while running the tool. Please try again."


def _ctx(name: str, args: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name=name, tool_call_id="c1", tool_arguments=args)


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


@function_tool
def add(a: int, b: int = 2) -> int:
    """Add two integers."""
    return a + b


@pytest.mark.parametrize(
    ("args", "output", "failed"),
    [
        ('{"a": 1}', 3, False),
        ('{"a": "3"}', 5, False),
        ('{"a": 1, "zzz": 2}', 3, False),
        ("", GENERIC, True),
        ("{not json", GENERIC, True),
        ("[1, 2]", GENERIC, True),
        ('{"a": "x"}', GENERIC, True),
    ],
)
def test_invoke_tool_tells_failures_from_results(args: str, output: Any, failed: bool) -> None:
    outcome = _run(invoke_tool(add, _ctx("add", args), args))
    assert outcome.output == output
    assert outcome.is_error is failed
    if failed:
        assert isinstance(outcome.error, ModelBehaviorError)


def test_a_string_result_equal_to_the_failure_text_is_not_an_error() -> None:
    @function_tool
    def liar() -> str:
        return GENERIC

    outcome = _run(invoke_tool(liar, _ctx("liar", "{}"), "{}"))
    assert outcome.output == GENERIC and outcome.is_error is False


def test_hand_built_tool_exceptions_become_error_outcomes() -> None:
    async def explode(ctx: Any, args: str) -> str:
        raise RuntimeError("secret")

    tool = FunctionTool("boom", "", {"type": "object", "properties": {}}, explode)
    assert tool.params_json_schema["additionalProperties"] is False  # strict rewrite
    outcome = _run(invoke_tool(tool, _ctx("boom", "{}"), "{}"))
    assert outcome.output == GENERIC
    assert isinstance(outcome.error, RuntimeError)


def test_structured_outputs_pass_through() -> None:
    @function_tool
    def pictures() -> list[Any]:
        return [ToolOutputText(text="hi"), ToolOutputImage(image_url="data:image/png;base64,AA==")]

    output = _run(pictures.on_invoke_tool(_ctx("pictures", "{}"), "{}"))
    assert [type(item).__name__ for item in output] == ["ToolOutputText", "ToolOutputImage"]


def test_sdk_timeouts_error_as_result_and_raise() -> None:
    @function_tool(timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    assert _run(invoke_function_tool(slow, _ctx("slow", "{}"), "{}")) == (
        "Tool 'slow' timed out after 0.05 seconds."
    )

    @function_tool(timeout=0.05, timeout_behavior="raise_exception")
    async def slower() -> str:
        await asyncio.sleep(5)
        return "late"

    with pytest.raises(ToolTimeoutError, match=r"timed out after 0\.05 seconds"):
        _run(invoke_function_tool(slower, _ctx("slower", "{}"), "{}"))

    with pytest.raises(ValueError, match="only supported for async"):
        function_tool(lambda: 1, timeout=1)


def test_ten_megabyte_arguments_fail_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_LOG_TOOL_DATA", "1")

    @function_tool(failure_error_function=None)
    def count(n: int) -> int:
        return n

    big = json.dumps({"n": "x" * (10 * 1024 * 1024)})
    with pytest.raises(ModelBehaviorError) as raised:
        _run(count.on_invoke_tool(_ctx("count", big), big))
    assert "Invalid JSON input for tool count" in str(raised.value)
    assert "\nn\n" in str(raised.value)  # pydantic names the parameter
    ok = _run(count.on_invoke_tool(_ctx("count", '{"n": 4}'), '{"n": 4}'))
    assert ok == 4


def test_sync_tools_run_off_the_event_loop() -> None:
    @function_tool
    def blocking() -> str:
        time.sleep(0.2)
        return "done"

    async def both() -> tuple[Any, float]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        result = await blocking.on_invoke_tool(_ctx("blocking", "{}"), "{}")
        task.cancel()
        return result, ticks

    result, ticks = _run(both())
    assert result == "done" and ticks > 3


def test_to_agents_runs_in_an_agents_run_and_from_agents_comes_back() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    @function_tool
    def greet(ctx: ToolContext[dict[str, str]], greeting: str) -> str:
        """Greet the user."""
        return f"{greeting}, {ctx.context['user']} ({ctx.tool_name}/{ctx.tool_call_id})"

    sdk_tool = greet.to_agents()
    assert type(sdk_tool).__module__.startswith("agents")
    model = ScriptedModel(
        [[function_call("greet", {"greeting": "hi"}, call_id="c9")], [assistant_message("ok")]]
    )
    agent = Agent(name="a", model=model, tools=[sdk_tool])
    result = asyncio.run(Runner.run(agent, "go", context={"user": "ada"}))
    assert result.final_output == "ok"
    assert model.last_call.input[-1]["output"] == "hi, ada (greet/c9)"

    back = FunctionTool.from_agents(sdk_tool)
    assert back.params_json_schema == greet.params_json_schema
    ctx: ToolContext[Any] = ToolContext(
        {"user": "bob"}, tool_name="greet", tool_call_id="c2", tool_arguments='{"greeting":"yo"}'
    )
    assert asyncio.run(back.on_invoke_tool(ctx, '{"greeting":"yo"}')) == "yo, bob (greet/c2)"


def test_agent_as_tool_comes_into_toolwire() -> None:
    from agents import Agent
    from agents.testing import ScriptedModel, assistant_message

    inner = Agent(name="inner", model=ScriptedModel([[assistant_message("inner says hi")]]))
    tool = FunctionTool.from_agents(inner.as_tool(tool_name="ask_inner", tool_description="Ask."))
    assert tool.name == "ask_inner"
    outcome = asyncio.run(
        invoke_tool(tool, _ctx("ask_inner", '{"input": "hello"}'), '{"input": "hello"}')
    )
    assert outcome.is_error is False
    assert outcome.output == "inner says hi"


def test_is_enabled_passes_through_to_the_sdk() -> None:
    from agents import Agent, RunContextWrapper
    from agents.tool import FunctionTool as SdkFunctionTool

    @function_tool(is_enabled=lambda ctx, agent: False)
    def hidden() -> str:
        return "x"

    sdk = hidden.to_agents()
    assert isinstance(sdk, SdkFunctionTool)
    agent = Agent(name="a", tools=[sdk])
    tools = asyncio.run(agent.get_all_tools(RunContextWrapper(None)))
    assert tools == []
