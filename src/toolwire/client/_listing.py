"""Reading lists from a server (every page, within a bound) and choosing tools from them."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .params import ToolFilterContext

if TYPE_CHECKING:
    from ..context import RunContextWrapper
    from ._shape import RemoteServer

__all__ = [
    "all_pages",
    "all_prompt_pages",
    "check_required",
    "filtered",
    "required_arguments",
]

logger = logging.getLogger("toolwire.client")

# Without max_list_pages a listing still stops somewhere: a server that hands out cursors
# forever would otherwise hold the caller for good.
_PAGE_CEILING = 10_000


async def all_pages(
    fetch: Callable[..., Awaitable[Any]], field: str, limit: int | None, server_name: str
) -> list[Any]:
    """Every item of a paginated list (`field` of each page), following cursors."""
    items: list[Any] = []
    cursor: str | None = None
    bound = limit if limit is not None else _PAGE_CEILING
    for _ in range(bound):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return items
    raise UserError(
        f"MCP server '{server_name}' has more than {bound} page(s) of {field} "
        "(max_list_pages); nothing was returned or cached"
    )


async def all_prompt_pages(client: Any, limit: int | None, server_name: str) -> Any:
    """A `ListPromptsResult` holding every page's prompts."""
    pages: list[Any] = []

    async def fetch(cursor: str | None) -> Any:
        pages.append(await client.list_prompts(cursor=cursor))
        return pages[-1]

    prompts = await all_pages(fetch, "prompts", limit, server_name)
    return pages[0].model_copy(update={"prompts": prompts, "next_cursor": None})


async def _keeps(
    server: RemoteServer, tool: Any, context: ToolFilterContext | None, decide: Any
) -> bool:
    try:
        verdict = decide(context, tool)
        if inspect.isawaitable(verdict):
            verdict = await verdict
    except Exception as error:  # the SDK leaves a tool out when its filter fails
        logger.error(
            "MCP server %r: the tool filter failed on %r: %r", server.name, tool.name, error
        )
        return False
    return bool(verdict)


async def filtered(
    server: RemoteServer,
    tools: list[Any],
    run_context: RunContextWrapper[Any] | None,
    agent: Any,
) -> list[Any]:
    """The tools the server's `tool_filter` keeps (static: allowed first, then blocked)."""
    chooser = server.tool_filter
    if chooser is None:
        return tools
    if isinstance(chooser, dict):
        allowed = chooser.get("allowed_tool_names")
        blocked = chooser.get("blocked_tool_names")
        if allowed is not None:
            tools = [tool for tool in tools if tool.name in allowed]
        if blocked is not None:
            tools = [tool for tool in tools if tool.name not in blocked]
        return tools
    if run_context is None or agent is None:
        raise UserError("run_context and agent are required for dynamic tool filtering")
    context = ToolFilterContext(run_context=run_context, agent=agent, server_name=server.name)
    return [tool for tool in tools if await _keeps(server, tool, context, chooser)]


def required_arguments(tools: list[Any]) -> dict[str, tuple[str, ...]]:
    """Each listed tool's required argument names (tools requiring none are left out)."""
    index: dict[str, tuple[str, ...]] = {}
    for tool in tools:
        schema = getattr(tool, "input_schema", None)
        required = schema.get("required") if isinstance(schema, dict) else None
        if isinstance(required, list):
            names = tuple(key for key in required if isinstance(key, str))
            if names:
                index.setdefault(tool.name, names)
    return index


def check_required(
    server: RemoteServer,
    tool_name: str,
    required: dict[str, tuple[str, ...]],
    arguments: dict[str, Any] | None,
) -> None:
    """Refuse a call that leaves out arguments the last listing says are required."""
    names = required.get(tool_name)
    if not names:
        return
    given = arguments or {}
    missing = [key for key in names if key not in given]
    if missing:
        raise UserError(
            f"Failed to call tool '{tool_name}' on MCP server '{server.name}': "
            f"missing required parameters: {', '.join(missing)}"
        )
