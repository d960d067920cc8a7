"""The Agents SDK's `ApplyPatchTool` whose edits are made by an MCP server: each operation goes
to the server's `apply_patch_operations` tool (or any tool taking `{"operations": [...]}`), whose
text is the output and `isError` a failed status. Approval goes through the SDK's own hooks
(`needs_approval`, and `on_approval` asking `on_approval_request`), so a denied call never
reaches the server. `agents` is imported when the tool is built."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..errors import UserError
from .approvals import (
    CallScope,
    MCPApprovalRequestData,
    MCPToolApprovalFunction,
    MCPToolApprovalFunctionResult,
    ask_for_approval,
    callback_for,
    field_of,
    note_call,
    text_of,
)

__all__ = ["PatchServer", "apply_patch_tool"]

# (run context, operation, call id) -> does this call need approval? (the SDK's shape)
PatchApprovalPredicate = Callable[[Any, Any, str], "bool | Awaitable[bool]"]


class PatchServer(Protocol):
    """A server with a name and `call_tool` (toolwire's client servers and the SDK's)."""

    @property
    def name(self) -> str: ...

    async def call_tool(self, tool_name: str, arguments: dict[str, Any] | None) -> Any: ...


def operation_arguments(operation: Any) -> dict[str, Any]:
    """An SDK `ApplyPatchOperation` (or a raw operation item) as the server's JSON object."""
    arguments: dict[str, Any] = {
        "type": field_of(operation, "type"),
        "path": field_of(operation, "path"),
    }
    for key in ("diff", "move_to"):
        value = field_of(operation, key)
        if value is not None:
            arguments[key] = value
    return arguments


class _RemoteEditor:
    """An `ApplyPatchEditor` that asks the server to make each edit."""

    def __init__(self, server: PatchServer, tool_name: str) -> None:
        self.server = server
        self.tool_name = tool_name

    async def _send(self, operation: Any) -> Any:
        from agents import ApplyPatchResult

        arguments = {"operations": [operation_arguments(operation)]}
        # Approval is settled by the SDK: the server's gate is not asked again.
        context = field_of(operation, "ctx_wrapper")
        note_call(CallScope(self.server, self.tool_name, arguments, context, approved=True))
        result = await self.server.call_tool(self.tool_name, arguments)
        failed = bool(field_of(result, "isError"))
        return ApplyPatchResult(status="failed" if failed else "completed", output=text_of(result))

    create_file = update_file = delete_file = _send


def _approval_relay(
    callback: MCPToolApprovalFunction, server: PatchServer, tool_name: str
) -> Callable[[Any, Any], Awaitable[MCPToolApprovalFunctionResult]]:
    async def on_approval(run_context: Any, approval_item: Any) -> MCPToolApprovalFunctionResult:
        call = field_of(approval_item, "raw_item")
        operations = field_of(call, "operations")
        if operations is None:
            single = field_of(call, "operation")
            operations = [] if single is None else [single]
        call_id = field_of(call, "call_id") or field_of(call, "id") or ""
        data = MCPApprovalRequestData(
            id=str(call_id),
            arguments=json.dumps(
                {"operations": [operation_arguments(op) for op in operations]},
                ensure_ascii=False,
            ),
            name=tool_name,
            server_label=server.name,
        )
        return await ask_for_approval(callback, run_context, data)

    return on_approval


def apply_patch_tool(
    server: PatchServer,
    *,
    tool_name: str = "apply_patch_operations",
    require_approval: bool | PatchApprovalPredicate | None = None,
    on_approval_request: MCPToolApprovalFunction | None = None,
    name: str = "apply_patch",
) -> Any:
    """The Agents SDK's `ApplyPatchTool`, editing files through an MCP server.

    Args:
        server: A connected MCP server (toolwire's `MCPServerStdio` / `MCPServerStreamableHttp`
            / `MCPServerSse`, or the SDK's) with an `apply_patch_operations`-shaped tool.
        tool_name: The server's tool that takes `{"operations": [{type, path, diff, move_to}]}`.
        require_approval: Whether a call must be approved: a bool, or the SDK's
            `(run_context, operation, call_id) -> bool` (sync or async). None: ask when
            there is a callback, otherwise never.
        on_approval_request: Answers approvals (its `data.arguments` holds the operations as
            JSON); default: the server's own. Without either, an approval pauses the run.
        name: The tool's name as the model sees it.

    Returns:
        An `agents.ApplyPatchTool`.

    Raises:
        UserError: `require_approval` is neither a bool, a callable nor None, or
            `on_approval_request` is not callable.
    """
    from agents import ApplyPatchTool

    if require_approval is not None and not (
        isinstance(require_approval, bool) or callable(require_approval)
    ):
        raise UserError(
            "require_approval must be a bool, a (run_context, operation, call_id) -> bool "
            f"function or None, got {require_approval!r}."
        )
    on_approval_request = callback_for(server, on_approval_request)
    needs: Any = require_approval
    if needs is None:
        needs = on_approval_request is not None
    on_approval = (
        None
        if on_approval_request is None
        else _approval_relay(on_approval_request, server, tool_name)
    )
    return ApplyPatchTool(
        editor=_RemoteEditor(server, tool_name),
        name=name,
        needs_approval=needs,
        on_approval=on_approval,
    )
