"""`ToolResult` read back by client adapters inside Agents SDK runs: the model reads the content
a tool named, or the structured content's JSON with `use_structured_content=True`.

The same scripted run goes through the Agents SDK's own `MCPServerStdio`, toolwire's
`MCPServerStdio` (both on tests/client/servers/results.py) and `MCPServerInMemory`.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from tests.client._support import bounded, run_config, script_params

import toolwire
from toolwire.client import MCPServerInMemory

CALLS = [("locate", {"x": 4}), ("pictured", {"x": 2}), ("mirrored", {"x": 3}), ("count", {"n": 5})]
PIXEL = "data:image/png;base64,iVBORw0KGgo="

READ_AS_CONTENT = [
    [{"type": "input_text", "text": "the point sits at x=4"}],
    [{"type": "input_text", "text": "x=2"}, {"type": "input_image", "image_url": PIXEL}],
    [{"type": "input_text", "text": '{"x":3,"y":0}'}],
    [{"type": "input_text", "text": "5 items"}],
]
READ_AS_STRUCTURED = ['{"x": 4, "y": 0}', '{"x": 2, "y": 0}', '{"x": 3, "y": 0}', '{"result": 5}']


def _results_server() -> Any:
    spec = importlib.util.spec_from_file_location(
        "results_server", script_params("results")["args"][0]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.server


async def _outputs(server: Any) -> list[Any]:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    model = ScriptedModel(
        [
            [function_call(name, args, call_id=f"c{i}") for i, (name, args) in enumerate(CALLS)],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="a", model=model, mcp_servers=[server])
    result = await Runner.run(agent, "go", run_config=run_config())
    assert result.final_output == "done"
    assert model.last_call is not None
    items = model.last_call.input
    return [item["output"] for item in items if item.get("type") == "function_call_output"]


@pytest.mark.parametrize("structured", [False, True])
def test_the_model_reads_the_content_unless_structured_content_is_asked_for(
    structured: bool,
) -> None:
    import agents.mcp

    options = {"client_session_timeout_seconds": 30, "use_structured_content": structured}

    async def main() -> list[list[Any]]:
        seen = []
        async with agents.mcp.MCPServerStdio(params=script_params("results"), **options) as sdk:
            seen.append(await _outputs(sdk))
        async with toolwire.MCPServerStdio(params=script_params("results"), **options) as ours:
            seen.append(await _outputs(ours))
        async with MCPServerInMemory(_results_server(), **options) as memory:
            seen.append(await _outputs(memory))
        return seen

    sdk, stdio, memory = bounded(main, 120)
    expected = READ_AS_STRUCTURED if structured else READ_AS_CONTENT
    assert sdk == expected
    assert stdio == expected
    assert memory == expected


def test_call_tool_returns_both_parts() -> None:
    async def main() -> Any:
        async with MCPServerInMemory(_results_server()) as client:
            return await client.call_tool("locate", {"x": 9})

    result = bounded(main, 60)
    assert [block.model_dump(exclude_none=True) for block in result.content] == [
        {"type": "text", "text": "the point sits at x=9"}
    ]
    assert result.structured_content == {"x": 9, "y": 0}
    assert result.is_error is False
