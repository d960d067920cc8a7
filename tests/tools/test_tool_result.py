"""`ToolResult` in the tools layer: what it accepts, the declared-output check of its structured
part (the Agents SDK's messages), and what the model reads in a real Agents SDK run."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

import toolwire
from toolwire import (
    EmbeddedResource,
    ResourceLink,
    ToolContext,
    ToolOutputImage,
    ToolOutputText,
    ToolResult,
)
from toolwire.errors import UserError
from toolwire.tools.tool_result import check_output

IMAGE = "data:image/png;base64,AA"


class Point(BaseModel):
    x: int
    y: int = 0


def run_with(tool: Any, arguments: str) -> Any:
    """One scripted turn calling `tool`: what the model was given back as its output."""
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    model = ScriptedModel(
        [[function_call(tool.name, arguments, call_id="c1")], [assistant_message("done")]]
    )
    agent = Agent(name="a", model=model, tools=[tool])
    result = asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "done"
    model.assert_complete()
    return model.last_call.input[-1]["output"]


def _ctx(name: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name=name, tool_call_id="c1", tool_arguments="{}")


# --- what a ToolResult accepts ---------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        None,
        "text",
        "",
        ToolOutputText(text="t"),
        {"type": "image", "image_url": IMAGE},
        ResourceLink(uri="file:///a"),
        EmbeddedResource(uri="file:///b", text="b"),
        [ToolOutputText(text="t"), ToolOutputImage(image_url=IMAGE)],
        ({"type": "text", "text": "t"},),
        [],
    ],
    ids=[
        "none",
        "str",
        "empty-str",
        "output",
        "dict",
        "link",
        "embedded",
        "list",
        "tuple",
        "empty",
    ],
)
def test_accepted_content(content: Any) -> None:
    result = ToolResult({"a": 1}, content=content)
    assert result.content is content
    assert result.structured == {"a": 1}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            42,
            "ToolResult content must be a ToolOutputText, ToolOutputImage, ToolOutputFileContent, "
            "ResourceLink or EmbeddedResource, not int",
        ),
        (
            ["a", ToolOutputText(text="b")],
            "ToolResult content[0] must be a ToolOutputText, ToolOutputImage, "
            "ToolOutputFileContent, ResourceLink or EmbeddedResource, not str (a str is "
            "accepted as the whole content only)",
        ),
        (
            {"type": "input_text", "text": "x"},
            "ToolResult content is a dict whose 'type' is 'input_text'; a tool output's dict "
            "form has 'type' 'text', 'image' or 'file'",
        ),
        ({"text": "x"}, "ToolResult content is a dict whose 'type' is None"),
        ([{"type": "text"}], "ToolResult content[0] is not a valid ToolOutputText: "),
    ],
    ids=["int", "str-in-list", "unknown-type", "no-type", "invalid-dict"],
)
def test_refused_content_names_the_item(content: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        ToolResult({"a": 1}, content=content)
    assert str(caught.value).startswith(message)


def test_a_tool_result_cannot_hold_another() -> None:
    with pytest.raises(TypeError, match="ToolResult structured cannot itself be a ToolResult"):
        ToolResult(ToolResult({"a": 1}), content="x")


def test_the_structured_type_is_read_from_the_annotation() -> None:
    from toolwire.tools.tool_result import structured_annotation

    assert structured_annotation(ToolResult[Point]) == (True, Point)
    assert structured_annotation(ToolResult) == (True, Any)
    assert structured_annotation(Point) == (False, Point)


# --- the declared output check ---------------------------------------------------------------


def test_check_output_validates_the_structured_part_only() -> None:
    from pydantic import TypeAdapter

    checked = check_output("t", ToolResult({"x": "3"}, content="three"), TypeAdapter(Point))
    assert checked == ToolResult(Point(x=3, y=0), content="three")


@pytest.mark.parametrize("log_data", ["0", "1"])
def test_a_mismatch_fails_as_a_plain_return_fails_in_the_sdk(
    log_data: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same exception class and message as `agents.function_tool` returning the bad value."""
    import agents
    import agents._debug
    from agents.tool_context import ToolContext as SdkToolContext

    monkeypatch.setenv("TOOLWIRE_LOG_TOOL_DATA", log_data)
    monkeypatch.setattr(agents._debug, "DONT_LOG_TOOL_DATA", log_data == "0")

    def located(x: str) -> Any:
        return {"x": x}

    def tw_located(x: str) -> Any:
        return ToolResult({"x": x}, content=f"at {x}")

    sdk = agents.function_tool(located, output_type=Point, failure_error_function=None)
    ours = toolwire.function_tool(
        tw_located, name_override="located", output_type=Point, failure_error_function=None
    )
    with pytest.raises(agents.exceptions.UserError) as theirs:
        sdk_ctx = SdkToolContext(None, tool_name="located", tool_call_id="c1", tool_arguments="")
        asyncio.run(sdk.on_invoke_tool(sdk_ctx, '{"x": "far"}'))
    with pytest.raises(UserError) as mine:
        asyncio.run(ours.on_invoke_tool(_ctx("located"), '{"x": "far"}'))
    assert str(mine.value) == str(theirs.value)
    assert ("far" in str(mine.value)) is (log_data == "1")


def test_a_valid_structured_part_reaches_the_caller_validated() -> None:
    def located(x: str) -> Any:
        return ToolResult({"x": x}, content=f"at {x}")

    tool = toolwire.function_tool(located, output_type=Point)
    output = asyncio.run(tool.on_invoke_tool(_ctx("located"), '{"x": "7"}'))
    assert output == ToolResult(Point(x=7), content="at 7")


def test_a_return_annotation_declares_the_structured_type_for_programs() -> None:
    def located(x: int) -> ToolResult[Point]:
        return ToolResult(Point(x=x), content="here")

    tool = toolwire.function_tool(located, allowed_callers=["programmatic"])
    assert tool.output_json_schema is not None
    assert set(tool.output_json_schema["properties"]) == {"x", "y"}

    def words() -> ToolResult:
        return ToolResult(content="w")

    assert (
        toolwire.function_tool(words, allowed_callers=["programmatic"]).output_json_schema is None
    )


# --- inside an Agents SDK run ---------------------------------------------------------------------


def test_the_model_reads_the_content_through_to_agents() -> None:
    def locate(x: int) -> ToolResult[Point]:
        return ToolResult(Point(x=x), content=f"the point sits at x={x}")

    assert run_with(toolwire.function_tool(locate).to_agents(), '{"x": 4}') == (
        "the point sits at x=4"
    )


def test_content_blocks_reach_the_model_as_a_plain_return_of_them_would() -> None:
    def blocks() -> list[Any]:
        return [ToolOutputText(text="hello"), {"type": "image", "image_url": IMAGE}]

    def pictured() -> ToolResult[Point]:
        return ToolResult(Point(x=1), content=blocks())

    plain = run_with(toolwire.function_tool(blocks, name_override="pictured").to_agents(), "{}")
    got = run_with(toolwire.function_tool(pictured).to_agents(), "{}")
    assert (
        got
        == plain
        == [
            {"type": "input_text", "text": "hello"},
            {"type": "input_image", "image_url": IMAGE},
        ]
    )


def test_without_content_the_model_reads_what_a_plain_return_gives() -> None:
    import agents

    def located(x: int) -> Any:
        return {"x": x, "y": 0}

    def tw_located(x: int) -> ToolResult[Point]:
        return ToolResult({"x": x, "y": 0})

    sdk = agents.function_tool(located)
    ours = toolwire.function_tool(tw_located, name_override="located").to_agents()
    assert run_with(ours, '{"x": 2}') == run_with(sdk, '{"x": 2}')


def test_a_tool_declaring_its_output_to_the_sdk_shows_the_model_its_json() -> None:
    """The SDK renders a declared output as JSON for the model whatever else a tool says."""
    import agents

    def located(x: int) -> Any:
        return {"x": x}

    def tw_located(x: int) -> Any:
        return ToolResult({"x": x}, content="not what the SDK shows")

    sdk = agents.function_tool(located, output_type=Point)
    ours = toolwire.function_tool(tw_located, name_override="located", output_type=Point)
    got = run_with(ours.to_agents(), '{"x": 5}')
    assert got == run_with(sdk, '{"x": 5}')
    assert json.loads(got) == {"x": 5, "y": 0}


def test_a_structured_part_failing_its_output_type_fails_as_in_the_sdk() -> None:
    import agents

    def located(x: str) -> Any:
        return {"x": x}

    def tw_located(x: str) -> Any:
        return ToolResult({"x": x}, content=f"at {x}")

    sdk = agents.function_tool(located, output_type=Point)
    ours = toolwire.function_tool(tw_located, name_override="located", output_type=Point)
    expected = run_with(sdk, '{"x": "far"}')
    assert run_with(ours.to_agents(), '{"x": "far"}') == expected
    assert expected.startswith("An error occurred while running the tool.")


def test_an_empty_content_list_reaches_the_model_as_empty_text() -> None:
    def quiet() -> ToolResult[Point]:
        return ToolResult(Point(x=1), content=[])

    assert run_with(toolwire.function_tool(quiet).to_agents(), "{}") == ""


@pytest.mark.parametrize("caller", ["program", "direct", None])
def test_a_program_calling_through_the_sdk_gets_the_structured_part(caller: str | None) -> None:
    from agents.tool_context import ToolContext as SdkToolContext
    from openai.types.responses import ResponseFunctionToolCall

    def locate(x: int) -> ToolResult:
        return ToolResult({"x": x}, content=f"at {x}")

    tool = toolwire.function_tool(locate, allowed_callers=["direct", "programmatic"]).to_agents()
    call = ResponseFunctionToolCall(
        id="c1",
        call_id="c1",
        type="function_call",
        name="locate",
        arguments='{"x": 3}',
        caller={
            "program": {"type": "program", "caller_id": "p1"},
            "direct": {"type": "direct"},
            None: None,
        }[caller],
    )
    ctx = SdkToolContext(
        None, tool_name="locate", tool_call_id="c1", tool_arguments='{"x": 3}', tool_call=call
    )
    output = asyncio.run(tool.on_invoke_tool(ctx, '{"x": 3}'))
    assert output == ({"x": 3} if caller == "program" else "at 3")
