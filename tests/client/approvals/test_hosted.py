"""`toolwire.HostedMCPTool`: answering Responses `mcp_approval_request` items, in and out of a run.

The in-run test has `agents.testing.ScriptedModel` emit an `mcp_approval_request` output item,
as the Responses API does for a hosted MCP tool, and reads the `mcp_approval_response` the
SDK sent back on the next model call; it must equal what `HostedMCPTool.answer` returns.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.errors import UserError

agents = pytest.importorskip("agents")
testing = pytest.importorskip("agents.testing")
items = pytest.importorskip("openai.types.responses.response_output_item")

CONFIG = {
    "type": "mcp",
    "server_label": "gh",
    "server_url": "https://mcp.example.com/sse",
    "require_approval": "always",
}


def _request(name: str = "delete_repo") -> Any:
    return items.McpApprovalRequest(
        id="mcpr_1",
        arguments='{"repo": "x"}',
        name=name,
        server_label="gh",
        type="mcp_approval_request",
    )


def _policy(request: toolwire.MCPToolApprovalRequest) -> toolwire.MCPToolApprovalFunctionResult:
    if request.data.name.startswith("delete"):
        return {"approve": False, "reason": "deleting is not allowed"}
    return {"approve": True}


async def _async_policy(
    request: toolwire.MCPToolApprovalRequest,
) -> toolwire.MCPToolApprovalFunctionResult:
    await asyncio.sleep(0)
    return _policy(request)


async def _sent_back(tool: Any, name: str) -> tuple[Any, list[Any]]:
    model = testing.ScriptedModel(
        [
            testing.ModelStep(output=[_request(name)]),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )
    agent = agents.Agent(name="a", model=model, tools=[tool.to_agents()])
    result = await agents.Runner.run(agent, "go")
    responses = [
        item
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == "mcp_approval_response"
    ]
    return result, responses


@pytest.mark.parametrize("callback", [_policy, _async_policy], ids=["sync", "async"])
@pytest.mark.parametrize("name", ["delete_repo", "list_issues"])
def test_run_round_trip_matches_the_helper(callback: Any, name: str) -> None:
    seen: list[toolwire.MCPToolApprovalRequest] = []

    def recording(request: toolwire.MCPToolApprovalRequest) -> Any:
        seen.append(request)
        return callback(request)

    tool = toolwire.HostedMCPTool(CONFIG, recording)
    result, responses = asyncio.run(_sent_back(tool, name))
    assert result.interruptions == [] and result.final_output == "done"
    [request] = seen
    assert isinstance(request, toolwire.MCPToolApprovalRequest)
    assert request.data.name == name and request.data.server_label == "gh"
    expected = asyncio.run(toolwire.HostedMCPTool(CONFIG, callback).answer(_request(name)))
    assert responses == [expected]
    assert expected["approval_request_id"] == "mcpr_1"
    assert expected["approve"] is (name == "list_issues")
    if name == "delete_repo":
        assert expected["reason"] == "deleting is not allowed"
    else:
        assert "reason" not in expected


def test_without_a_callback_the_run_pauses_for_a_person() -> None:
    tool = toolwire.HostedMCPTool(CONFIG)
    result, _ = asyncio.run(_sent_back(tool, "delete_repo"))
    [item] = result.interruptions
    assert isinstance(item, agents.ToolApprovalItem) and item.name == "delete_repo"
    with pytest.raises(UserError, match="no on_approval_request"):
        asyncio.run(tool.answer(_request()))


def test_helper_takes_dict_items_and_answers_like_the_model_item() -> None:
    as_dict = _request().model_dump()
    from_dict = asyncio.run(toolwire.HostedMCPTool(CONFIG, _policy).answer(as_dict))
    from_model = asyncio.run(toolwire.HostedMCPTool(CONFIG, _policy).answer(_request()))
    assert (
        from_dict
        == from_model
        == {
            "approval_request_id": "mcpr_1",
            "approve": False,
            "type": "mcp_approval_response",
            "reason": "deleting is not allowed",
        }
    )


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"type": "function_call", "id": "x"}, "Expected an 'mcp_approval_request' item"),
        (
            {"type": "mcp_approval_request", "id": "x", "name": "t", "server_label": "s"},
            "'arguments'",
        ),
    ],
)
def test_helper_refuses_other_items(item: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message):
        asyncio.run(toolwire.HostedMCPTool(CONFIG, _policy).answer(item))


@pytest.mark.parametrize(
    "answer", [True, None, {"approve": "yes"}, {"reason": "x"}, {"approve": True, "reason": 3}]
)
def test_malformed_callback_answers_are_named(answer: Any) -> None:
    with pytest.raises(UserError, match="on_approval_request"):
        asyncio.run(toolwire.HostedMCPTool(CONFIG, lambda _request: answer).answer(_request()))


def test_bad_configs_are_named() -> None:
    with pytest.raises(UserError, match="type 'mcp'"):
        toolwire.HostedMCPTool({"type": "function"})
    with pytest.raises(UserError, match="must be callable"):
        toolwire.HostedMCPTool(CONFIG, "yes")  # type: ignore[arg-type]


def test_to_agents_is_the_sdk_class_with_the_same_config() -> None:
    converted = toolwire.HostedMCPTool(CONFIG, _policy).to_agents()
    assert isinstance(converted, agents.HostedMCPTool)
    assert converted.tool_config == CONFIG and converted.name == "hosted_mcp"
