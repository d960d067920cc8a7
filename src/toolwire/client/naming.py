"""Tool names across several servers: gathering their tools either prefixes every name with
its server's (`mcp_<server>__<tool>`, the Agents SDK's `include_server_in_tool_names` form) or
fails with the names that clash, so one server's tool never silently shadows another's."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:
    from ..tools.function_tool import FunctionTool
    from ._shape import RemoteServer

__all__ = ["all_function_tools", "prefixed_name"]

# OpenAI function names: letters, digits, '_' and '-', at most 64 characters.
_NAME_LIMIT = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def prefixed_name(server_name: str, tool_name: str) -> str:
    """`mcp_<server>__<tool>`, made safe for a function name and at most 64 characters (a
    shortened name ends with 8 hex digits of a hash of both names, so two stay apart).

    Args:
        server_name: The server's name.
        tool_name: The tool's name on that server.

    Returns:
        The prefixed name.
    """
    name = f"mcp_{_UNSAFE.sub('_', server_name)}__{_UNSAFE.sub('_', tool_name)}"
    if len(name) <= _NAME_LIMIT:
        return name
    digest = hashlib.sha1(f"{server_name}\x00{tool_name}".encode()).hexdigest()[:8]
    return f"{name[: _NAME_LIMIT - 9]}_{digest}"


async def all_function_tools(
    servers: Iterable[RemoteServer],
    on_approval_request: Callable[..., Any] | None = None,
    *,
    prefix_tool_names: bool | None = None,
    convert_schemas_to_strict: bool = False,
) -> list[FunctionTool]:
    """The tools of several connected servers, in order, with unique names.

    Args:
        servers: Connected servers.
        on_approval_request: The approval callback every tool gets (see `function_tools`).
        prefix_tool_names: Prefix every name with its server's; None leaves it to each
            server's own `prefix_tool_names`.
        convert_schemas_to_strict: Make the schemas strict where possible.

    Raises:
        UserError: Two tools would have the same name; the message names them and their
            servers.
    """
    tools: list[FunctionTool] = []
    owners: dict[str, list[str]] = {}
    for server in servers:
        saved = server.prefix_tool_names
        if prefix_tool_names is not None:
            server.prefix_tool_names = prefix_tool_names
        try:
            made = await server.function_tools(
                on_approval_request, convert_schemas_to_strict=convert_schemas_to_strict
            )
        finally:
            server.prefix_tool_names = saved
        for tool in made:
            owners.setdefault(tool.name, []).append(server.name)
        tools.extend(made)
    clashes = {name: where for name, where in owners.items() if len(where) > 1}
    if clashes:
        listed = "; ".join(
            f"'{name}' on {', '.join(repr(server) for server in where)}"
            for name, where in sorted(clashes.items())
        )
        raise UserError(
            f"Duplicate tool names across MCP servers: {listed}. Pass prefix_tool_names=True "
            "to prefix each tool with its server's name, or filter the tools (tool_filter)."
        )
    return tools
