"""The Agents SDK's `ApplyPatchTool` whose edits an MCP server makes: each operation goes to the
server's `apply_patch_operations` tool (or any taking `{"operations": [...]}`), its text is the
output and `isError` a failed status. Approval goes through the SDK's own hooks, so a denied call
never reaches the server; `agents` is imported when the tool is built."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from .approvals import (
    MCPToolApprovalFunction,
    MCPToolApprovalFunctionResult,
    RemoteTool,
    field_of,
    text_of,
)

__all__ = ["apply_patch_tool"]

# (run context, operation, call id) -> does this call need approval? (the SDK's shape)
PatchApprovalPredicate = Callable[[Any, Any, str], "bool | Awaitable[bool]"]


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


@dataclass
class _RemoteEditor:
    """An `ApplyPatchEditor` that asks the server to make each edit."""

    remote: RemoteTool

    async def _send(self, operation: Any) -> Any:
        from agents import ApplyPatchResult

        arguments = {"operations": [operation_arguments(operation)]}
        result = await self.remote.call(arguments, field_of(operation, "ctx_wrapper"))
        failed = bool(field_of(result, "isError"))
        return ApplyPatchResult(status="failed" if failed else "completed", output=text_of(result))

    create_file = update_file = delete_file = _send


def apply_patch_tool(
    server: Any,
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
        UserError: `require_approval` is neither a bool, a callable nor None,
            `on_approval_request` is not callable, `server` cannot call tools, or a tool
            name is not a non-empty string.
    """
    from agents import ApplyPatchTool

    if require_approval is not None and not (
        isinstance(require_approval, bool) or callable(require_approval)
    ):
        raise UserError(
            "require_approval must be a bool, a (run_context, operation, call_id) -> bool "
            f"function or None, got {require_approval!r}."
        )
    remote = RemoteTool.checked(
        server, tool_name, on_approval_request, {"tool_name": tool_name, "name": name}
    )

    async def on_approval(run_context: Any, approval_item: Any) -> MCPToolApprovalFunctionResult:
        call = field_of(approval_item, "raw_item")
        operations = field_of(call, "operations")
        if operations is None:
            single = field_of(call, "operation")
            operations = [] if single is None else [single]
        return await remote.ask(
            run_context,
            {"operations": [operation_arguments(op) for op in operations]},
            str(field_of(call, "call_id") or field_of(call, "id") or ""),
        )

    return ApplyPatchTool(
        editor=_RemoteEditor(remote),
        name=name,
        needs_approval=remote.callback is not None
        if require_approval is None
        else require_approval,
        on_approval=None if remote.callback is None else on_approval,
    )
