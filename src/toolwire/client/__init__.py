"""Remote MCP tools as local `FunctionTool`s: the client adapter (transport parameter dicts in
`toolwire.client.params`). Names load on first use, and the classes import `mcp` only when they
connect, so importing this package costs nothing until then."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .base import MCPToolMetaContext, prefixed_name
    from .errors import MCPCallError
    from .manager import MCPServerManager, all_function_tools
    from .params import (
        ToolFilter,
        ToolFilterCallable,
        ToolFilterContext,
        ToolFilterStatic,
        create_static_tool_filter,
    )
    from .patch_tool import apply_patch_tool
    from .servers import (
        MCPServerInMemory,
        MCPServerSse,
        MCPServerStdio,
        MCPServerStreamableHttp,
    )
    from .shell_tools import local_shell_tool, shell_tool

_EXPORTS: dict[str, str] = {
    "MCPToolMetaContext": ".base",
    "MCPCallError": ".errors",
    "MCPServerManager": ".manager",
    "all_function_tools": ".manager",
    "prefixed_name": ".base",
    "ToolFilter": ".params",
    "ToolFilterCallable": ".params",
    "ToolFilterContext": ".params",
    "ToolFilterStatic": ".params",
    "create_static_tool_filter": ".params",
    "apply_patch_tool": ".patch_tool",
    "MCPServerInMemory": ".servers",
    "MCPServerSse": ".servers",
    "MCPServerStdio": ".servers",
    "MCPServerStreamableHttp": ".servers",
    "local_shell_tool": ".shell_tools",
    "shell_tool": ".shell_tools",
}

__all__ = [
    "MCPCallError",
    "MCPServerInMemory",
    "MCPServerManager",
    "MCPServerSse",
    "MCPServerStdio",
    "MCPServerStreamableHttp",
    "MCPToolMetaContext",
    "ToolFilter",
    "ToolFilterCallable",
    "ToolFilterContext",
    "ToolFilterStatic",
    "all_function_tools",
    "apply_patch_tool",
    "create_static_tool_filter",
    "local_shell_tool",
    "prefixed_name",
    "shell_tool",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
