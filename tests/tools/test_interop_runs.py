"""toolwire tools inside real Agents SDK runs (ScriptedModel + Runner.run), and back again.

Each run compares what the model received from a toolwire tool (through `to_agents()`) with
what it received from the same function decorated by `agents.function_tool`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import toolwire
from toolwire import FunctionTool, ToolContext, ToolOutputImage, ToolOutputText
from toolwire.tools.invoke import invoke_function_tool, invoke_tool

GENERIC = "An error occurred while running the tool. Please try again."


def run_with(tool: Any, arguments: str, run_config: Any = None, context: Any = None) -> Any:
    """Run one scripted turn that calls `tool`; return what the model got back as output."""
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    model = ScriptedModel(
        [[function_call(tool.name, arguments, call_id="c1")], [assistant_message("done")]]
    )
    agent = Agent(name="a", model=model, tools=[tool])
    result = asyncio.run(
        Runner.run(agent, "go", context=context, run_config=run_config or RunConfig())
    )
    assert result.final_output == "done"
    model.assert_complete()
    return model.last_call.input[-1]["output"]


def both(func: Callable[..., Any], **options: Any) -> tuple[Any, Any]:
    import agents

    return agents.function_tool(func, **options), toolwire.function_tool(
        func, **options
    ).to_agents()


def _outputs_text() -> Any:
    return [
        ToolOutputText(text="hello"),
        {"type": "image", "image_url": "data:image/png;base64,AA"},
    ]


@pytest.mark.parametrize(
    ("body", "arguments"),
    [
        (lambda a, m: a + 1, '{"a": 1}'),
        (lambda a, m: {"k": "v", "n": None, "a": a}, '{"a": 1}'),
        (lambda a, m: [a, "two"], '{"a": 1}'),
        (lambda a, m: None, '{"a": 1}'),
        (lambda a, m: m.ToolOutputImage(image_url="https://x/y.png", detail="low"), '{"a": 1}'),
        (lambda a, m: [m.ToolOutputText(text="t"), m.ToolOutputFileContent(file_id="f")], "{}"),
        (lambda a, m: {"type": "text", "text": f"from dict {a}"}, '{"a": 1}'),
        (lambda a, m: 1 / 0, '{"a": 1}'),
        (lambda a, m: a, "{not json"),
        (lambda a, m: a, '{"a": "x"}'),
    ],
    ids=[
        "int",
        "dict",
        "list",
        "none",
        "image",
        "outputs",
        "text-dict",
        "raises",
        "bad-json",
        "bad-type",
    ],
)
def test_model_receives_the_same_output(body: Callable[[int, Any], Any], arguments: str) -> None:
    """Each side returns its own library's ToolOutput* classes."""
    import agents

    def sdk_fn(a: int = 0) -> Any:
        return body(a, agents)

    def tw_fn(a: int = 0) -> Any:
        return body(a, toolwire)

    sdk = agents.function_tool(sdk_fn, name_override="tool_fn")
    ours = toolwire.function_tool(tw_fn, name_override="tool_fn").to_agents()
    assert run_with(ours, arguments) == run_with(sdk, arguments)


def test_structured_outputs_reach_the_model_as_input_items() -> None:
    def pictures() -> Any:
        return _outputs_text()

    ours = toolwire.function_tool(pictures).to_agents()
    received = run_with(ours, "{}")
    assert received == [
        {"type": "input_text", "text": "hello"},
        {"type": "input_image", "image_url": "data:image/png;base64,AA"},
    ]


def test_sdk_tool_outputs_come_back_as_toolwire_outputs() -> None:
    import agents

    def sdk_pictures() -> Any:
        return [agents.ToolOutputText(text="a"), agents.ToolOutputImage(file_id="f1"), "plain"]

    tool = FunctionTool.from_agents(agents.function_tool(sdk_pictures))
    ctx: ToolContext[Any] = ToolContext(None, tool_name="p", tool_call_id="c", tool_arguments="")
    output = asyncio.run(invoke_tool(tool, ctx, "{}")).output
    assert output == [ToolOutputText(text="a"), ToolOutputImage(file_id="f1"), "plain"]
    assert [type(item).__module__ for item in output[:2]] == ["toolwire.tools.outputs"] * 2


def test_run_config_error_formatter_applies_to_converted_tools() -> None:
    from agents import RunConfig

    def broken(a: int) -> int:
        raise RuntimeError("nope")

    def formatter(args: Any) -> str:
        return f"formatted {args.tool_name}: {type(args.error).__name__}"

    config = RunConfig(tool_error_formatter=formatter)
    sdk, ours = both(broken)
    assert run_with(ours, '{"a": 1}', config) == run_with(sdk, '{"a": 1}', config)
    assert run_with(ours, '{"a": 1}', config) == "formatted broken: RuntimeError"


def test_custom_failure_function_survives_conversion() -> None:
    async def explain(ctx: Any, error: Exception) -> str:
        return f"{ctx.tool_name} failed: {error}"

    def broken(a: int) -> int:
        raise ValueError("bad a")

    sdk, ours = both(broken, failure_error_function=explain)
    assert run_with(ours, '{"a": 1}') == run_with(sdk, '{"a": 1}') == "broken failed: bad a"


def test_toolwire_context_annotation_receives_the_sdk_context() -> None:
    @toolwire.function_tool
    async def who(ctx: ToolContext[dict[str, str]], x: int) -> str:
        """Who is calling."""
        return f"{ctx.context['user']} {ctx.tool_name} {ctx.tool_call_id} {ctx.tool_arguments} {x}"

    sdk_tool = who.to_agents()
    assert sdk_tool.params_json_schema == who.params_json_schema
    assert sdk_tool.__wrapped__ is who.__wrapped__
    assert run_with(sdk_tool, '{"x":1}', context={"user": "ada"}) == 'ada who c1 {"x":1} 1'


@pytest.mark.parametrize("kind", ["bool", "sync", "async"])
def test_is_enabled_is_evaluated_by_the_sdk(kind: str) -> None:
    from agents import Agent, RunContextWrapper

    async def async_off(ctx: Any, agent: Any) -> bool:
        return agent.name == "other"

    setting: Any = {
        "bool": False,
        "sync": lambda ctx, agent: agent.name == "other",
        "async": async_off,
    }[kind]

    @toolwire.function_tool(is_enabled=setting)
    def hidden() -> str:
        return "x"

    @toolwire.function_tool
    def shown() -> str:
        return "y"

    agent = Agent(name="a", tools=[hidden.to_agents(), shown.to_agents()])
    tools = asyncio.run(agent.get_all_tools(RunContextWrapper(None)))
    assert [tool.name for tool in tools] == ["shown"]
    if kind != "bool":
        other = Agent(name="other", tools=[hidden.to_agents()])
        assert [t.name for t in asyncio.run(other.get_all_tools(RunContextWrapper(None)))] == [
            "hidden"
        ]


def test_timeouts_in_a_run_match_the_sdk() -> None:
    async def slow(a: int) -> str:
        await asyncio.sleep(5)
        return "late"

    sdk, ours = both(slow, timeout=0.05)
    assert run_with(ours, '{"a": 1}') == run_with(sdk, '{"a": 1}')
    assert run_with(ours, '{"a": 1}') == "Tool 'slow' timed out after 0.05 seconds."


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_invoke_function_tool_timeout_error_function(kind: str) -> None:
    from agents.tool import invoke_function_tool as sdk_invoke
    from agents.tool_context import ToolContext as SdkToolContext

    def sync_text(ctx: Any, error: Exception) -> str:
        return f"{type(error).__name__}: {error}"

    async def async_text(ctx: Any, error: Exception) -> str:
        return sync_text(ctx, error)

    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    formatter = sync_text if kind == "sync" else async_text
    import agents

    sdk = agents.function_tool(slow, timeout=0.05, timeout_error_function=formatter)
    ours = toolwire.function_tool(slow, timeout=0.05, timeout_error_function=formatter)
    sdk_ctx = SdkToolContext(None, tool_name="slow", tool_call_id="c", tool_arguments="{}")
    theirs = asyncio.run(sdk_invoke(function_tool=sdk, context=sdk_ctx, arguments="{}"))
    ctx: ToolContext[Any] = ToolContext(None, tool_name="slow", tool_call_id="c", tool_arguments="")
    mine = asyncio.run(invoke_function_tool(ours, ctx, "{}"))
    assert mine == theirs == "ToolTimeoutError: Tool 'slow' timed out after 0.05 seconds."
    fast = toolwire.function_tool(lambda: "quick", name_override="quick")
    assert asyncio.run(invoke_function_tool(fast, ctx, "{}")) == "quick"


def test_agent_as_tool_through_from_agents_and_back() -> None:
    from agents import Agent
    from agents.testing import ScriptedModel, assistant_message

    inner = Agent(name="inner", model=ScriptedModel([[assistant_message("inner says hi")]]))
    sdk_tool = inner.as_tool(tool_name="ask_inner", tool_description="Ask the inner agent.")
    tool = FunctionTool.from_agents(sdk_tool)
    assert (tool.name, tool.description) == ("ask_inner", "Ask the inner agent.")
    assert tool.params_json_schema == sdk_tool.params_json_schema
    assert tool.to_agents() is sdk_tool
    ctx: ToolContext[Any] = ToolContext(
        None, tool_name="ask_inner", tool_call_id="c1", tool_arguments='{"input": "hello"}'
    )
    result = asyncio.run(invoke_tool(tool, ctx, '{"input": "hello"}'))
    assert (result.output, result.is_error) == ("inner says hi", False)


def test_from_agents_failures_are_error_outcomes() -> None:
    import agents

    def broken(a: int) -> int:
        raise RuntimeError("inner")

    tool = FunctionTool.from_agents(agents.function_tool(broken))
    ctx: ToolContext[Any] = ToolContext(
        {"k": 1}, tool_name="broken", tool_call_id="c1", tool_arguments=""
    )
    bad = asyncio.run(invoke_tool(tool, ctx, '{"a": 1}'))
    assert bad.output == GENERIC and bad.is_error
    ok_tool = FunctionTool.from_agents(
        agents.function_tool(lambda a: a * 2, name_override="double")
    )
    good = asyncio.run(invoke_tool(ok_tool, ctx, '{"a": 4}'))
    assert (good.output, good.error) == (8, None)
    with pytest.raises(TypeError, match=r"from_agents\(\) takes an agents\.FunctionTool"):
        FunctionTool.from_agents(object())


def test_to_agents_keeps_changes_made_after_from_agents() -> None:
    """A tool taken in with from_agents, then renamed, disabled or given a new handler, goes back
    to the SDK with those changes: the model is offered the new name and the new handler runs."""
    import dataclasses

    import agents

    def lookup(key: str) -> str:
        """Look a key up."""
        return f"sdk:{key}"

    sdk_tool = agents.function_tool(lookup)
    tool = FunctionTool.from_agents(sdk_tool)
    assert tool.to_agents() is sdk_tool  # unchanged: the SDK's own tool goes back

    renamed = dataclasses.replace(tool, name="find", description="Find a key.")
    back = renamed.to_agents()
    assert (back.name, back.description) == ("find", "Find a key.")
    assert (sdk_tool.name, sdk_tool.description) == ("lookup", "Look a key up.")
    assert run_with(back, '{"key": "k"}') == "sdk:k"

    tool.is_enabled = False
    assert tool.to_agents().is_enabled is False
    assert sdk_tool.is_enabled is True

    async def replaced(ctx: Any, arguments: str) -> str:
        return "new handler"

    swapped = dataclasses.replace(FunctionTool.from_agents(sdk_tool), on_invoke_tool=replaced)
    assert run_with(swapped.to_agents(), '{"key": "k"}') == "new handler"


def test_resource_outputs_reach_the_model_as_their_block_json() -> None:
    """Through to_agents(), a ResourceLink or EmbeddedResource (alone, in a list, or as a
    ToolResult's content) is read by the model as its MCP block's JSON, never a Python repr."""
    from toolwire import ToolResult
    from toolwire.tools.resource_outputs import EmbeddedResource, ResourceLink

    link = ResourceLink(uri="file:///srv/r%C3%A9sum%C3%A9.txt", size=12)
    link_json = (
        '{"type": "resource_link", "uri": "file:///srv/r%C3%A9sum%C3%A9.txt", '
        '"name": "résumé.txt", "size": 12}'
    )
    embedded = EmbeddedResource(uri="file:///b", blob=b"\x00\x01", mime_type="x/y")
    embedded_json = (
        '{"type": "resource", "resource": {"uri": "file:///b", "mimeType": "x/y", "blob": "AAE="}}'
    )

    def linked(a: int) -> Any:
        return link

    def mixed(a: int) -> Any:
        return ToolResult({"a": a}, content=[ToolOutputText(text="see"), embedded])

    assert run_with(toolwire.function_tool(linked).to_agents(), '{"a": 1}') == [
        {"type": "input_text", "text": link_json}
    ]
    assert run_with(toolwire.function_tool(mixed).to_agents(), '{"a": 1}') == [
        {"type": "input_text", "text": "see"},
        {"type": "input_text", "text": embedded_json},
    ]
