"""`ApprovalPolicy` beyond the SDK ("annotations"), and what `gate_tool` does to a tool."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import ToolContext, function_tool
from toolwire.client.approvals import ApprovalPolicy, gate_tool
from toolwire.errors import UserError


@function_tool
def erase(path: str) -> str:
    """Erase a file.

    Args:
        path: The file.
    """
    return f"erased {path}"


@pytest.mark.parametrize(
    ("annotations", "asks"),
    [
        (None, True),
        ({}, True),
        ({"readOnlyHint": True}, False),
        ({"readOnlyHint": False}, True),
        ({"destructiveHint": True}, True),
        ({"destructiveHint": False}, False),
        ({"readOnlyHint": True, "destructiveHint": True}, True),
        ({"readOnlyHint": False, "destructiveHint": False}, False),
        ({"idempotentHint": True, "openWorldHint": False}, True),
    ],
)
def test_annotations_policy(annotations: Any, asks: bool) -> None:
    for has_callback, setting in ((True, None), (False, "annotations"), (True, "annotations")):
        policy = ApprovalPolicy.resolve(setting, has_callback=has_callback)
        assert policy.requires("erase", annotations) is asks


def test_annotations_policy_reads_the_mcp_model_too() -> None:
    mcp_types = pytest.importorskip("mcp.types")
    policy = ApprovalPolicy.resolve("annotations", has_callback=False)
    assert policy.requires("t", mcp_types.ToolAnnotations(readOnlyHint=True)) is False
    assert policy.requires("t", mcp_types.ToolAnnotations(destructiveHint=True)) is True


def test_no_setting_and_no_callback_asks_for_nothing() -> None:
    assert ApprovalPolicy.resolve(None, has_callback=False).requires("t", None) is False


def _ctx(arguments: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name="erase", tool_call_id="call_9", tool_arguments=arguments)


async def _call(tool: Any, ctx: ToolContext[Any], arguments: str) -> Any:
    return await tool.on_invoke_tool(ctx, arguments)


def test_gate_leaves_the_original_alone_and_names_nothing_new() -> None:
    gated = gate_tool(
        erase,
        policy=ApprovalPolicy.resolve("always", has_callback=False),
        annotations=None,
        on_approval_request=None,
        server_label="fs",
    )
    assert gated is not erase and gated.needs_approval is True and erase.needs_approval is False
    assert (gated.name, gated.params_json_schema) == (erase.name, erase.params_json_schema)


def test_callback_not_asked_when_the_policy_says_never() -> None:
    def never_called(_request: Any) -> Any:
        raise AssertionError("asked")

    gated = gate_tool(
        erase,
        policy=ApprovalPolicy.resolve("never", has_callback=True),
        annotations=None,
        on_approval_request=never_called,
        server_label="fs",
    )
    assert asyncio.run(_call(gated, _ctx('{"path": "a"}'), '{"path": "a"}')) == "erased a"


def test_a_prefixed_tool_is_asked_about_by_its_remote_name() -> None:
    seen: list[str] = []

    def deny(request: Any) -> Any:
        seen.append(request.data.name)
        return {"approve": False, "reason": "read-only day"}

    gated = gate_tool(
        erase,
        policy=ApprovalPolicy.resolve({"rm": "always"}, has_callback=True),
        annotations=None,
        on_approval_request=deny,
        server_label="fs",
        remote_name="rm",
    )
    text = asyncio.run(_call(gated, _ctx('{"path": "a"}'), '{"path": "a"}'))
    assert seen == ["rm"]
    assert text == (
        "Tool call rejected: the call to 'rm' on MCP server 'fs' was not approved "
        "(read-only day). The tool did not run."
    )


def test_a_malformed_answer_is_an_error_and_does_not_call() -> None:
    gated = gate_tool(
        erase,
        policy=ApprovalPolicy.resolve("always", has_callback=True),
        annotations=None,
        on_approval_request=lambda _request: "sure",  # type: ignore[arg-type,return-value]
        server_label="fs",
    )
    with pytest.raises(UserError, match="on_approval_request must return"):
        asyncio.run(_call(gated, _ctx("{}"), '{"path": "a"}'))
