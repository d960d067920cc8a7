"""Approvals inside real Agents SDK runs, with a real toolwire server behind each tool.

The tools come from toolwire's adapter (`MCPServerStdio.function_tools()`, which gates each
one with `gate_tool`); the model is `agents.testing.ScriptedModel`; the server writes down
every call it receives, so "a denied call never reaches the server" is read from the
server's own record.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from toolwire.client.approvals import MCPApprovalRequestData, MCPToolApprovalRequest

from ._bridge import fixture_server, read_log

agents = pytest.importorskip("agents")
testing = pytest.importorskip("agents.testing")


def _model(tool: str, path: str = "/tmp/x") -> Any:
    return testing.ScriptedModel(
        [
            testing.ModelStep(output=[testing.function_call(tool, {"path": path}, call_id="c1")]),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )


def _tool_output(model: Any) -> Any:
    """What the model was told the tool returned (the last function_call_output it saw)."""
    outputs = [
        item
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    return outputs[-1]["output"]


async def _run_with_interruption(log: Path, decision: str) -> tuple[Any, Any, list[Any]]:
    async with fixture_server(log, require_approval="always") as server:
        tools = {tool.name: tool for tool in await server.function_tools()}
        gated = tools["delete_file"]
        model = _model("delete_file")
        agent = agents.Agent(name="a", model=model, tools=[gated.to_agents()])
        first = await agents.Runner.run(agent, "delete it")
        before = read_log(log)
        [item] = first.interruptions
        assert isinstance(item, agents.ToolApprovalItem) and item.name == "delete_file"
        state = first.to_state()
        if decision == "approve":
            state.approve(item)
        else:
            state.reject(item)
        second = await agents.Runner.run(agent, state)
        return second, model, before


def test_no_callback_interrupts_and_runs_after_approve(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    result, model, before = asyncio.run(_run_with_interruption(log, "approve"))
    assert before == []  # paused before the remote call
    assert read_log(log) == [{"tool": "delete_file", "args": {"path": "/tmp/x"}}]
    assert _tool_output(model) == "deleted /tmp/x"
    assert result.final_output == "done"


def test_no_callback_interrupts_and_reject_never_reaches_the_server(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    result, model, before = asyncio.run(_run_with_interruption(log, "reject"))
    assert before == [] and read_log(log) == []
    assert _tool_output(model) == "Tool execution was not approved."
    assert result.final_output == "done"


async def _run_with_callback(log: Path, tool: str, callback: Any, setting: Any = None) -> Any:
    async with fixture_server(log, require_approval=setting) as server:
        tools = {tool.name: tool for tool in await server.function_tools(callback)}
        gated = tools[tool]
        assert gated.needs_approval is False  # decided at once, no interruption
        model = _model(tool)
        agent = agents.Agent(name="a", model=model, tools=[gated.to_agents()])
        result = await agents.Runner.run(agent, "go")
        assert result.interruptions == []
        return result, model


def test_sync_callback_denial_never_reaches_the_server(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    asked: list[MCPToolApprovalRequest] = []

    def deny(request: MCPToolApprovalRequest) -> Any:
        asked.append(request)
        return {"approve": False, "reason": "production files are off limits"}

    result, model = asyncio.run(_run_with_callback(log, "delete_file", deny))
    assert read_log(log) == []
    told = _tool_output(model)
    assert "delete_file" in told and "production files are off limits" in told
    assert "files" in told
    [request] = asked
    assert isinstance(request.data, MCPApprovalRequestData)
    assert request.data.name == "delete_file" and request.data.server_label == "files"
    assert json.loads(request.data.arguments) == {"path": "/tmp/x"}
    assert request.data.id == "c1"
    assert result.final_output == "done"


def test_async_callback_approval_reaches_the_server(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"

    async def allow(request: MCPToolApprovalRequest) -> Any:
        await asyncio.sleep(0)
        return {"approve": True}

    _result, model = asyncio.run(_run_with_callback(log, "delete_file", allow))
    assert read_log(log) == [{"tool": "delete_file", "args": {"path": "/tmp/x"}}]
    assert _tool_output(model) == "deleted /tmp/x"


@pytest.mark.parametrize(
    ("tool", "asked"), [("read_file", False), ("delete_file", True), ("touch", True)]
)
def test_annotations_policy_is_the_default_with_a_callback(
    tmp_path: Path, tool: str, asked: bool
) -> None:
    log = tmp_path / "calls.jsonl"
    seen: list[str] = []

    def deny(request: MCPToolApprovalRequest) -> Any:
        seen.append(request.data.name)
        return {"approve": False}

    _result, model = asyncio.run(_run_with_callback(log, tool, deny))
    assert seen == ([tool] if asked else [])
    assert (read_log(log) == []) is asked
    if asked:
        assert "no reason given" in _tool_output(model)


@pytest.mark.parametrize(("tool", "asked"), [("read_file", True), ("touch", False)])
def test_an_explicit_policy_beats_the_annotations(tmp_path: Path, tool: str, asked: bool) -> None:
    log = tmp_path / "calls.jsonl"
    seen: list[str] = []

    def deny(request: MCPToolApprovalRequest) -> Any:
        seen.append(request.data.name)
        return {"approve": False, "reason": "not today"}

    setting = {"always": {"tool_names": ["read_file"]}}
    _result, model = asyncio.run(_run_with_callback(log, tool, deny, setting))
    assert seen == ([tool] if asked else [])
    assert (read_log(log) == []) is asked
    told = _tool_output(model)
    assert ("not today" in told) is asked


def test_a_predicate_policy_sees_the_running_agent_and_the_remote_tool(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    consulted: list[tuple[Any, str]] = []

    def only_deletes(_ctx: Any, agent: Any, remote: Any) -> bool:
        consulted.append((agent, remote.name))
        return bool(remote.name == "delete_file")

    def deny(request: MCPToolApprovalRequest) -> Any:
        return {"approve": False, "reason": "predicate said ask"}

    _result, model = asyncio.run(_run_with_callback(log, "delete_file", deny, only_deletes))
    [(agent, name)] = consulted
    assert isinstance(agent, agents.Agent) and name == "delete_file"
    assert read_log(log) == [] and "predicate said ask" in _tool_output(model)


# -- the server's own callback: every path a call can take -------------------------------


def _deny_and_record(seen: list[MCPToolApprovalRequest]) -> Any:
    def deny(request: MCPToolApprovalRequest) -> Any:
        seen.append(request)
        return {"approve": False, "reason": "not on a Friday"}

    return deny


@pytest.mark.parametrize("tool", ["delete_file", "touch"])
def test_agent_mcp_servers_asks_the_servers_callback_and_a_denial_never_runs(
    tmp_path: Path, tool: str
) -> None:
    # The SDK converts the server's tools itself and calls `server.call_tool`: the gate there
    # asks, shown the run's own context (its tool call id), and the run never pauses.
    log = tmp_path / "calls.jsonl"
    seen: list[MCPToolApprovalRequest] = []

    async def go() -> tuple[Any, Any]:
        async with fixture_server(log, on_approval_request=_deny_and_record(seen)) as server:
            model = _model(tool)
            agent = agents.Agent(name="a", model=model, mcp_servers=[server])
            result = await agents.Runner.run(agent, "go")
            return result, model

    result, model = asyncio.run(go())
    assert result.interruptions == []
    assert read_log(log) == []  # the server never saw the call
    [request] = seen
    assert request.data.name == tool and request.data.id == "c1"
    assert json.loads(request.data.arguments) == {"path": "/tmp/x"}
    assert getattr(request.ctx_wrapper, "tool_call_id", None) == "c1"
    # The SDK hands MCP content to the model as input_text items.
    [told] = _tool_output(model)
    assert told["type"] == "input_text"
    assert told["text"] == (
        f"Tool call rejected: the call to '{tool}' on MCP server 'files' was not approved "
        "(not on a Friday). The tool did not run."
    )
    assert result.final_output == "done"


def test_agent_mcp_servers_runs_an_approved_call_and_skips_read_only_tools(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    asked: list[str] = []

    def allow(request: MCPToolApprovalRequest) -> Any:
        asked.append(request.data.name)
        return {"approve": True}

    async def go(tool: str) -> Any:
        async with fixture_server(log, on_approval_request=allow) as server:
            model = _model(tool)
            agent = agents.Agent(name="a", model=model, mcp_servers=[server])
            await agents.Runner.run(agent, "go")
            return model

    read_model = asyncio.run(go("read_file"))
    delete_model = asyncio.run(go("delete_file"))
    assert asked == ["delete_file"]  # read_file is annotated read-only
    assert [entry["tool"] for entry in read_log(log)] == ["read_file", "delete_file"]
    assert _tool_output(read_model)[0]["text"] == "contents of /tmp/x"
    assert _tool_output(delete_model)[0]["text"] == "deleted /tmp/x"


def test_call_tool_and_function_tools_use_the_servers_callback(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    seen: list[MCPToolApprovalRequest] = []

    async def go() -> tuple[Any, Any]:
        async with fixture_server(log, on_approval_request=_deny_and_record(seen)) as server:
            direct = await server.call_tool("delete_file", {"path": "/a"})
            tools = {tool.name: tool for tool in await server.function_tools()}
            assert tools["delete_file"].needs_approval is False
            model = _model("delete_file", "/b")
            agent = agents.Agent(name="a", model=model, tools=[tools["delete_file"].to_agents()])
            await agents.Runner.run(agent, "go")
            return direct, model

    direct, model = asyncio.run(go())
    assert read_log(log) == []
    assert [json.loads(request.data.arguments) for request in seen] == [
        {"path": "/a"},
        {"path": "/b"},
    ]
    assert direct.is_error is True and "not on a Friday" in direct.content[0].text
    assert "not on a Friday" in _tool_output(model)


def test_a_meta_resolver_that_edits_its_arguments_does_not_cost_the_callback_its_run(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    seen: list[MCPToolApprovalRequest] = []

    def careless(context: Any) -> None:  # edits the arguments it was shown
        context.arguments["path"] = "/elsewhere"

    async def go() -> None:
        async with fixture_server(
            log, on_approval_request=_deny_and_record(seen), tool_meta_resolver=careless
        ) as server:
            agent = agents.Agent(name="a", model=_model("delete_file"), mcp_servers=[server])
            await agents.Runner.run(agent, "go", context={"user": "ada"})

    asyncio.run(go())
    [request] = seen
    assert read_log(log) == []
    # Asked as the run's call: its context, its tool call id, the arguments the model gave.
    assert request.ctx_wrapper.context == {"user": "ada"}
    assert request.data.id == "c1"
    assert json.loads(request.data.arguments) == {"path": "/tmp/x"}
