"""OpenAI-hosted MCP tools (Responses API `mcp` tools) behind toolwire's approval callback: the
provider calls the server itself, and the callback that gates local adapters answers its
`mcp_approval_request` items, so one function decides every remote call. `agents` is imported
only by `HostedMCPTool.to_agents()`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..context import RunContextWrapper
from ..errors import UserError
from .approvals import (
    MCPToolApprovalFunction,
    MCPToolApprovalFunctionResult,
    ask_for_approval,
    field_of,
)

__all__ = ["HostedMCPTool"]


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
        """Answer one `mcp_approval_request` item with `on_approval_request`.

        Args:
            item: The `mcp_approval_request` output item, as the `openai` model or as a dict.
            context: The run context handed to the callback (an empty one when None).

        Returns:
            The `mcp_approval_response` input item to send back: `approval_request_id`,
            `approve`, `type` and, when the callback gave one, `reason`.

        Raises:
            UserError: No `on_approval_request` was given, or the item or answer is malformed.
        """
        if self.on_approval_request is None:
            raise UserError(
                "HostedMCPTool has no on_approval_request: approval requests for "
                f"'{self.tool_config.get('server_label')}' must be answered by a person."
            )
        kind = field_of(item, "type")
        if kind != "mcp_approval_request":
            raise UserError(f"Expected an 'mcp_approval_request' item, got type {kind!r}.")
        for key in ("id", "name", "arguments", "server_label"):
            value = field_of(item, key)
            if not isinstance(value, str):
                raise UserError(
                    f"The mcp_approval_request item has no string '{key}' (got {value!r})."
                )
        # A dict item is read by attribute too, as the model item is.
        data = SimpleNamespace(**item) if isinstance(item, Mapping) else item
        ctx = context if context is not None else RunContextWrapper(context=None)
        answer = await ask_for_approval(self.on_approval_request, ctx, data)
        return {
            "approval_request_id": field_of(item, "id"),
            "type": "mcp_approval_response",
            **answer,
        }

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
