"""OpenAI-hosted MCP tools (Responses API `mcp` tools) behind toolwire's approval callback.

The model provider calls a hosted MCP server itself; what is left to the application is
answering the provider's `mcp_approval_request` items, which the callback that gates local
adapters (`client.approvals`) does here too, so one function decides every remote call.
`agents` and `openai` are imported only by `HostedMCPTool.to_agents()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..context import RunContextWrapper
from ..errors import UserError
from .approvals import (
    MCPToolApprovalFunction,
    MCPToolApprovalFunctionResult,
    ask_for_approval,
    field_of,
)

__all__ = ["HostedMCPTool", "answer_approval_request"]

_REQUEST_FIELDS = ("id", "name", "arguments", "server_label")


def _checked_request(item: Any) -> Any:
    """The item itself, once it is known to be an `mcp_approval_request` with its fields."""
    kind = field_of(item, "type")
    if kind != "mcp_approval_request":
        raise UserError(f"Expected an 'mcp_approval_request' item, got type {kind!r}.")
    for key in _REQUEST_FIELDS:
        value = field_of(item, key)
        if not isinstance(value, str):
            raise UserError(f"The mcp_approval_request item has no string '{key}' (got {value!r}).")
    return item


class _RequestView:
    """Attribute access over a dict-shaped request item, so callbacks read `data.name` alike."""

    def __init__(self, item: Mapping[str, Any]) -> None:
        self._item = item

    def __getattr__(self, key: str) -> Any:
        try:
            return self._item[key]
        except KeyError:
            raise AttributeError(key) from None

    def __repr__(self) -> str:
        return f"McpApprovalRequest({json.dumps(dict(self._item), sort_keys=True)})"


async def answer_approval_request(
    item: Any,
    on_approval_request: MCPToolApprovalFunction,
    *,
    context: RunContextWrapper[Any] | None = None,
) -> dict[str, Any]:
    """Answer one Responses API `mcp_approval_request` item with the approval callback.

    Args:
        item: The `mcp_approval_request` output item, as the `openai` model or as a dict.
        on_approval_request: The callback (sync or async) that decides.
        context: The run context handed to the callback (an empty one when None).

    Returns:
        The `mcp_approval_response` input item to send back: `approval_request_id`,
        `approve`, `type` and, when the callback gave one, `reason`.

    Raises:
        UserError: The item is not an approval request, or the callback's answer is malformed.
    """
    _checked_request(item)
    data = _RequestView(item) if isinstance(item, Mapping) else item
    ctx = context if context is not None else RunContextWrapper(context=None)
    answer = await ask_for_approval(on_approval_request, ctx, data)
    return {"approval_request_id": field_of(item, "id"), "type": "mcp_approval_response", **answer}


@dataclass
class HostedMCPTool:
    """An MCP server the model provider calls for you (OpenAI Responses `mcp` tool).

    Attributes:
        tool_config: The Responses `mcp` tool definition (`type`, `server_label`,
            `server_url` or `connector_id`, `require_approval`, ...), sent as is.
        on_approval_request: Decides the provider's approval requests at once; without it
            an Agents SDK run pauses with an approval interruption instead.
    """

    tool_config: Mapping[str, Any]
    on_approval_request: MCPToolApprovalFunction | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.tool_config, Mapping):
            raise UserError(
                "HostedMCPTool.tool_config must be a Responses API 'mcp' tool definition "
                f"(a dict), got {type(self.tool_config).__name__}."
            )
        if self.tool_config.get("type") != "mcp":
            raise UserError(
                "HostedMCPTool.tool_config must have type 'mcp', "
                f"got {self.tool_config.get('type')!r}."
            )
        if self.on_approval_request is not None and not callable(self.on_approval_request):
            raise UserError(
                "HostedMCPTool.on_approval_request must be callable, "
                f"got {type(self.on_approval_request).__name__}."
            )

    @property
    def name(self) -> str:
        """The tool's name, as the Agents SDK names hosted MCP tools."""
        return "hosted_mcp"

    async def answer(
        self, item: Any, *, context: RunContextWrapper[Any] | None = None
    ) -> dict[str, Any]:
        """The `mcp_approval_response` item for an `mcp_approval_request` item.

        Raises:
            UserError: No `on_approval_request` was given, or the item or answer is malformed.
        """
        if self.on_approval_request is None:
            raise UserError(
                "HostedMCPTool has no on_approval_request: approval requests for "
                f"'{self.tool_config.get('server_label')}' must be answered by a person."
            )
        return await answer_approval_request(item, self.on_approval_request, context=context)

    def to_agents(self) -> Any:
        """The Agents SDK's `HostedMCPTool`, wired to the same callback."""
        from agents import HostedMCPTool as AgentsHostedMCPTool

        callback = self.on_approval_request
        if callback is None:
            return AgentsHostedMCPTool(tool_config=dict(self.tool_config))  # type: ignore[arg-type]

        async def relay(request: Any) -> MCPToolApprovalFunctionResult:
            # The SDK hands its own request object; ours has the same two fields.
            return await ask_for_approval(callback, request.ctx_wrapper, request.data)

        return AgentsHostedMCPTool(
            tool_config=dict(self.tool_config),  # type: ignore[arg-type]
            on_approval_request=relay,
        )
