"""The requests of a client server object that are not about tools: prompts and resources.

They share the connection, the retry policy and the error wording of tool calls (the
server class's `_request`); what is here is only which request each method makes and how a
failure names its target. The results are the `mcp` client's own types, as the Agents SDK's
server classes return them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from . import _listing

__all__ = ["PromptsAndResources"]


class PromptsAndResources:
    """Prompt and resource requests; a base of `MCPClientServer`, which supplies the rest."""

    max_list_pages: int | None

    @property
    def name(self) -> str:
        raise NotImplementedError  # MCPClientServer's

    async def _request(self, target: str, send: Callable[[Any], Awaitable[Any]]) -> Any:
        raise NotImplementedError  # MCPClientServer's

    async def list_prompts(self) -> Any:
        """The server's prompts (`mcp.types.ListPromptsResult`, every page)."""
        return await self._request(
            "method:prompts/list",
            lambda client: _listing.all_prompt_pages(client, self.max_list_pages, self.name),
        )

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """One prompt, rendered with `arguments` (`mcp.types.GetPromptResult`)."""
        return await self._request(
            f"prompt:{name}", lambda client: client.get_prompt(name, arguments)
        )

    async def list_resources(self, cursor: str | None = None) -> Any:
        """One page of the server's resources (`mcp.types.ListResourcesResult`)."""
        return await self._request(
            "method:resources/list", lambda client: client.list_resources(cursor=cursor)
        )

    async def list_resource_templates(self, cursor: str | None = None) -> Any:
        """One page of the server's resource templates."""
        return await self._request(
            "method:resources/templates/list",
            lambda client: client.list_resource_templates(cursor=cursor),
        )

    async def read_resource(self, uri: str) -> Any:
        """A resource's contents (`mcp.types.ReadResourceResult`)."""
        return await self._request(f"resource:{uri}", lambda client: client.read_resource(uri))
