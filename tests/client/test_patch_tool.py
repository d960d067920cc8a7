"""`toolwire.client.apply_patch_tool`: the Agents SDK's `ApplyPatchTool` backed by the
toolwire-patch server over stdio, driven by `agents.testing.ScriptedModel` emitting
`apply_patch_call` items; approvals through the callback and through `RunState`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import agents
import pytest
from agents import testing

from toolwire.client import MCPServerStdio, apply_patch_tool
from toolwire.client.approvals import MCPToolApprovalRequest
from toolwire.errors import UserError

RUN = agents.RunConfig(tracing_disabled=True)


def _server(root: Path, **options: Any) -> MCPServerStdio:
    return MCPServerStdio(
        {
            "command": sys.executable,
            "args": ["-m", "toolwire_patch", "--root", str(root)],
            "env": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        },
        name="patcher",
        client_session_timeout_seconds=30,
        **options,
    )


def _call(operation: dict[str, Any], call_id: str = "p1") -> dict[str, Any]:
    return {"type": "apply_patch_call", "call_id": call_id, "operation": operation}


UPDATE = {"type": "update_file", "path": "a.txt", "diff": "@@\n-alpha\n+ALPHA"}


def _model(*operations: dict[str, Any]) -> Any:
    return testing.ScriptedModel(
        [
            *[[_call(op, f"p{n}")] for n, op in enumerate(operations, 1)],
            [testing.assistant_message("done")],
        ]
    )


def _outputs(model: Any) -> list[dict[str, Any]]:
    return [
        item
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == "apply_patch_call_output"
    ]


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    return root


async def _run(root: Path, model: Any, **options: Any) -> Any:
    async with _server(root) as server:
        tool = apply_patch_tool(server, **options)
        agent = agents.Agent(name="editor", model=model, tools=[tool])
        return await agents.Runner.run(agent, "edit", run_config=RUN)


def test_an_approved_call_edits_and_the_sdk_result_reaches_the_model(tmp_path: Path) -> None:
    root = _root(tmp_path)
    asked: list[MCPToolApprovalRequest] = []

    def approve(request: MCPToolApprovalRequest) -> dict[str, Any]:
        asked.append(request)
        return {"approve": True}

    model = _model(UPDATE, {"type": "create_file", "path": "new/b.txt", "diff": "+bee\n+"})
    result = asyncio.run(_run(root, model, on_approval_request=approve))
    assert result.final_output == "done"
    assert (root / "a.txt").read_text() == "ALPHA\nbeta\n"
    assert (root / "new/b.txt").read_text() == "bee\n"
    outputs = _outputs(model)
    assert [(o["call_id"], o["status"], o["output"]) for o in outputs] == [
        ("p1", "completed", "Updated a.txt"),
        ("p2", "completed", "Created new/b.txt"),
    ]
    assert [request.data.name for request in asked] == ["apply_patch_operations"] * 2
    assert asked[0].data.server_label == "patcher"
    assert json.loads(asked[0].data.arguments) == {"operations": [UPDATE]}
    assert asked[0].data.id == "p1"


def test_the_servers_own_callback_is_asked_once_per_operation(tmp_path: Path) -> None:
    # One callback on the server: the SDK's approval of the operation uses it, and the
    # server's gate in call_tool does not ask about the same operation a second time.
    root = _root(tmp_path)
    asked: list[str] = []

    def approve(request: MCPToolApprovalRequest) -> dict[str, Any]:
        asked.append(request.data.id)
        return {"approve": True}

    async def go() -> Any:
        model = _model(UPDATE)
        async with _server(root, on_approval_request=approve) as server:
            agent = agents.Agent(name="editor", model=model, tools=[apply_patch_tool(server)])
            await agents.Runner.run(agent, "edit", run_config=RUN)
        return model

    model = asyncio.run(go())
    assert asked == ["p1"]
    assert (root / "a.txt").read_text() == "ALPHA\nbeta\n"
    assert [o["status"] for o in _outputs(model)] == ["completed"]


def test_a_denied_call_leaves_the_disk_unchanged(tmp_path: Path) -> None:
    root = _root(tmp_path)
    model = _model(UPDATE, {"type": "delete_file", "path": "a.txt"})

    async def deny(request: MCPToolApprovalRequest) -> dict[str, Any]:
        return {"approve": False, "reason": "not on Fridays"}

    result = asyncio.run(_run(root, model, on_approval_request=deny))
    assert result.final_output == "done"
    assert (root / "a.txt").read_text() == "alpha\nbeta\n"
    assert [(o["status"], o["output"]) for o in _outputs(model)] == [
        ("failed", "not on Fridays"),
        ("failed", "not on Fridays"),
    ]


def test_a_failed_patch_gives_the_model_the_servers_explanation(tmp_path: Path) -> None:
    root = _root(tmp_path)
    bad = {"type": "update_file", "path": "a.txt", "diff": "@@\n-gamma\n+GAMMA"}
    model = _model(bad)
    asyncio.run(_run(root, model, require_approval=False))
    [output] = _outputs(model)
    assert output["status"] == "failed"
    assert output["output"].startswith("Invalid Context 0\na.txt, hunk 1:")
    assert "Nothing was changed" in output["output"]
    assert (root / "a.txt").read_text() == "alpha\nbeta\n"


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_without_a_callback_the_run_pauses_for_a_person(tmp_path: Path, decision: str) -> None:
    root = _root(tmp_path)
    model = _model(UPDATE)

    async def main() -> tuple[Any, str]:
        async with _server(root) as server:
            tool = apply_patch_tool(server, require_approval=True)
            agent = agents.Agent(name="editor", model=model, tools=[tool])
            first = await agents.Runner.run(agent, "edit", run_config=RUN)
            [item] = first.interruptions
            on_disk = (root / "a.txt").read_text()
            state = first.to_state()
            getattr(state, decision)(item)
            await agents.Runner.run(agent, state, run_config=RUN)
            return item, on_disk

    item, on_disk = asyncio.run(main())
    assert isinstance(item, agents.ToolApprovalItem)
    assert on_disk == "alpha\nbeta\n"  # paused before the server was called
    [output] = _outputs(model)
    if decision == "approve":
        assert (output["status"], output["output"]) == ("completed", "Updated a.txt")
        assert (root / "a.txt").read_text() == "ALPHA\nbeta\n"
    else:
        assert (output["status"], output["output"]) == (
            "failed",
            "Tool execution was not approved.",
        )
        assert (root / "a.txt").read_text() == "alpha\nbeta\n"


def test_a_predicate_decides_per_operation(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "b.txt").write_text("b\n")
    model = _model(UPDATE, {"type": "delete_file", "path": "b.txt"})

    def only_deletes(_context: Any, operation: Any, _call_id: str) -> bool:
        return bool(operation.type == "delete_file")

    def deny(request: MCPToolApprovalRequest) -> dict[str, Any]:
        return {"approve": False}

    asyncio.run(_run(root, model, require_approval=only_deletes, on_approval_request=deny))
    assert (root / "a.txt").read_text() == "ALPHA\nbeta\n"
    assert (root / "b.txt").exists()
    assert [o["status"] for o in _outputs(model)] == ["completed", "failed"]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(UserError, match="require_approval must be a bool"):
        apply_patch_tool(_server(Path("/")), require_approval="always")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="on_approval_request must be callable"):
        apply_patch_tool(_server(Path("/")), on_approval_request="yes")  # type: ignore[arg-type]
    tool = apply_patch_tool(_server(Path("/")))
    assert isinstance(tool, agents.ApplyPatchTool) and tool.needs_approval is False


def test_over_streamable_http_with_the_sdks_own_mcp_client(tmp_path: Path) -> None:
    """The editor works with any client that has `name` and `call_tool`: here the Agents
    SDK's `MCPServerStreamableHttp` against `toolwire-patch --transport http`."""
    from agents.mcp import MCPServerStreamableHttp
    from tests._listening import free_port, listening

    root = _root(tmp_path)
    port = free_port()
    argv = [sys.executable, "-m", "toolwire_patch", "--root", str(root), "--transport", "http"]
    model = _model(UPDATE)

    async def main() -> Any:
        params = {"url": f"http://127.0.0.1:{port}/mcp"}
        async with MCPServerStreamableHttp(params, client_session_timeout_seconds=30) as server:
            tool = apply_patch_tool(server, on_approval_request=lambda _request: {"approve": True})
            agent = agents.Agent(name="editor", model=model, tools=[tool])
            return await agents.Runner.run(agent, "edit", run_config=RUN)

    with listening([*argv, "--port", str(port)], port, env=dict(os.environ)):
        result = asyncio.run(main())
    assert result.final_output == "done"
    assert [(o["status"], o["output"]) for o in _outputs(model)] == [("completed", "Updated a.txt")]
    assert (root / "a.txt").read_text() == "ALPHA\nbeta\n"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"server": None}, "server must be an MCP server with call_tool (toolwire's"),
        ({"tool_name": 5}, "tool_name must be a tool name (a non-empty string), got 5."),
        ({"name": ""}, "name must be a tool name (a non-empty string), got ''."),
    ],
)
def test_a_server_or_tool_name_of_the_wrong_kind_is_refused_when_made(
    options: dict[str, Any], message: str
) -> None:
    """Taken, each failed only at the model's first call."""
    arguments: dict[str, Any] = {"server": _server(Path("/")), **options}
    with pytest.raises(UserError) as caught:
        apply_patch_tool(**arguments)
    assert str(caught.value).startswith(message)
