"""`Agent(mcp_servers=[toolwire server])` runs as with the Agents SDK's own server classes.

The same scripted model runs once with `agents.mcp.MCPServerStdio` and once with
`toolwire.MCPServerStdio`, both on the same toolwire kitchen server; the model must have
been offered the same tools and have read the same tool outputs.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.client._support import bounded, kitchen_params, run_config

import toolwire

CALLS = [
    ("add", {"a": 2, "b": 40}),
    ("echo", {"text": "ünïcode"}),
    ("pixel", {}),
    ("profile", {"name": "Ada", "age": 36, "tags": ["x"]}),
    ("boom", {"reason": "r"}),
    ("add", {"a": "not a number", "b": 1}),
]


async def _run(server: Any, mcp_config: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    steps: list[Any] = [
        [function_call(name, args, call_id=f"c{i}") for i, (name, args) in enumerate(CALLS)],
        [assistant_message("done")],
    ]
    model = ScriptedModel(steps)
    agent = Agent(name="a", model=model, mcp_servers=[server], mcp_config=mcp_config)
    result = await Runner.run(agent, "go", run_config=run_config())
    assert result.final_output == "done"
    assert model.last_call is not None
    outputs = [item for item in model.last_call.input if item.get("type") == "function_call_output"]
    tools = [
        (tool.name, tool.description, tool.params_json_schema, tool.strict_json_schema)
        for tool in model.last_call.tools
    ]
    return tools, outputs


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("structured", [False, True])
def test_same_tools_and_outputs_as_the_sdks_own_client(strict: bool, structured: bool) -> None:
    import agents.mcp

    config = {"convert_schemas_to_strict": strict}

    async def main() -> tuple[Any, Any]:
        kwargs = {"client_session_timeout_seconds": 30, "use_structured_content": structured}
        async with agents.mcp.MCPServerStdio(params=kitchen_params(), **kwargs) as theirs:
            expected = await _run(theirs, config)
        async with toolwire.MCPServerStdio(params=kitchen_params(), **kwargs) as ours:
            got = await _run(ours, config)
        return expected, got

    expected, got = bounded(main, 120)
    assert got[0] == expected[0]
    assert got[1] == expected[1]


def test_require_approval_interrupts_and_resumes_natively() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> tuple[Any, Any]:
        async with toolwire.MCPServerStdio(
            params=kitchen_params(),
            client_session_timeout_seconds=30,
            require_approval={"wipe": "always"},
        ) as server:
            model = ScriptedModel(
                [
                    [
                        function_call("wipe", {"target": "/"}, call_id="w"),
                        function_call("add", {"a": 1, "b": 1}, call_id="a"),
                    ],
                    [assistant_message("ok")],
                ]
            )
            agent = Agent(name="a", model=model, mcp_servers=[server])
            first = await Runner.run(agent, "go", run_config=run_config())
            names = [item.tool_name for item in first.interruptions]
            state = first.to_state()
            state.reject(first.interruptions[0], rejection_message="not today")
            second = await Runner.run(agent, state, run_config=run_config())
            assert model.last_call is not None
            outputs = {
                item["call_id"]: item["output"]
                for item in model.last_call.input
                if item.get("type") == "function_call_output"
            }
            return (names, second.final_output), outputs

    (names, final), outputs = bounded(main, 90)
    assert names == ["wipe"]
    assert final == "ok"
    assert outputs["w"] == "not today"
    assert outputs["a"] == [{"type": "input_text", "text": "2"}]


def test_tool_filter_and_server_prefix_in_a_run() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def only_add(context: Any, tool: Any) -> bool:
        assert context.server_name == "kit"
        return bool(tool.name == "add")

    async def main() -> tuple[list[str], Any]:
        async with toolwire.MCPServerStdio(
            params=kitchen_params(), name="kit", client_session_timeout_seconds=30,
            tool_filter=only_add,
        ) as server:  # fmt: skip
            model = ScriptedModel(
                [
                    [function_call("mcp_kit__add", {"a": 1, "b": 2}, call_id="c")],
                    [assistant_message("3")],
                ]
            )
            agent = Agent(
                name="a", model=model, mcp_servers=[server],
                mcp_config={"include_server_in_tool_names": True},
            )  # fmt: skip
            await Runner.run(agent, "go", run_config=run_config())
            assert model.last_call is not None
            return [tool.name for tool in model.last_call.tools], model.last_call.input[-1]

    names, last = bounded(main, 90)
    assert names == ["mcp_kit__add"]
    assert last["output"] == [{"type": "input_text", "text": "3"}]
