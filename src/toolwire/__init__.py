"""toolwire: plain Python functions as tools, served over the Model Context Protocol.

The public API is re-exported here and loaded on first use, so `import toolwire` stays cheap
(the stdio start-up path pays only for what it touches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._lazy_exports import lazy_exports

__version__ = "0.1.0.dev0"

if TYPE_CHECKING:
    from .client.approvals import (
        HostedMCPTool,
        MCPToolApprovalFunction,
        MCPToolApprovalFunctionResult,
        MCPToolApprovalRequest,
    )
    from .client.errors import MCPCallError
    from .client.manager import MCPServerManager
    from .client.params import ToolFilterContext, create_static_tool_filter
    from .client.servers import (
        MCPServerInMemory,
        MCPServerSse,
        MCPServerStdio,
        MCPServerStreamableHttp,
    )
    from .context import ElicitResult, RunContextWrapper, SampleResult, ToolContext, Usage
    from .errors import (
        ClientCapabilityError,
        ClientRequestError,
        ClientResponseError,
        ClientTimeoutError,
        ModelBehaviorError,
        NoBackChannelError,
        ToolAbortedError,
        ToolTimeoutError,
        UserError,
    )
    from .lifespan import LifespanError
    from .protocol.auth.bearer import BearerAuth
    from .protocol.auth.identity import Identity
    from .protocol.features.prompt_messages import PromptMessage
    from .protocol.session.call_context import CallInfo
    from .protocol.wire.icons import Icon
    from .schema.problems import schema_problems
    from .schema.strict import ensure_strict_json_schema
    from .server import Server
    from .tools.failure import default_tool_error_function
    from .tools.function_tool import FunctionTool, function_tool
    from .tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText
    from .tools.resource_outputs import EmbeddedResource, ResourceLink
    from .tools.tool_result import ToolResult

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "MCPToolApprovalFunction": ".client.approvals",
    "MCPToolApprovalFunctionResult": ".client.approvals",
    "MCPToolApprovalRequest": ".client.approvals",
    "HostedMCPTool": ".client.approvals",
    "MCPCallError": ".client.errors",
    "MCPServerManager": ".client.manager",
    "ToolFilterContext": ".client.params",
    "create_static_tool_filter": ".client.params",
    "MCPServerSse": ".client.servers",
    "MCPServerInMemory": ".client.servers",
    "MCPServerStdio": ".client.servers",
    "MCPServerStreamableHttp": ".client.servers",
    "ElicitResult": ".context",
    "RunContextWrapper": ".context",
    "SampleResult": ".context",
    "ToolContext": ".context",
    "Usage": ".context",
    "ClientCapabilityError": ".errors",
    "ClientRequestError": ".errors",
    "ClientResponseError": ".errors",
    "ClientTimeoutError": ".errors",
    "ModelBehaviorError": ".errors",
    "NoBackChannelError": ".errors",
    "ToolAbortedError": ".errors",
    "ToolTimeoutError": ".errors",
    "UserError": ".errors",
    "LifespanError": ".lifespan",
    "BearerAuth": ".protocol.auth.bearer",
    "CallInfo": ".protocol.session.call_context",
    "Icon": ".protocol.wire.icons",
    "Identity": ".protocol.auth.identity",
    "PromptMessage": ".protocol.features.prompt_messages",
    "schema_problems": ".schema.problems",
    "ensure_strict_json_schema": ".schema.strict",
    "Server": ".server",
    "default_tool_error_function": ".tools.failure",
    "FunctionTool": ".tools.function_tool",
    "function_tool": ".tools.function_tool",
    "ToolOutputFileContent": ".tools.outputs",
    "ToolOutputImage": ".tools.outputs",
    "ToolOutputText": ".tools.outputs",
    "EmbeddedResource": ".tools.resource_outputs",
    "ResourceLink": ".tools.resource_outputs",
    "ToolResult": ".tools.tool_result",
}

__all__ = [
    "BearerAuth",
    "CallInfo",
    "ClientCapabilityError",
    "ClientRequestError",
    "ClientResponseError",
    "ClientTimeoutError",
    "ElicitResult",
    "EmbeddedResource",
    "FunctionTool",
    "HostedMCPTool",
    "Icon",
    "Identity",
    "LifespanError",
    "MCPCallError",
    "MCPServerInMemory",
    "MCPServerManager",
    "MCPServerSse",
    "MCPServerStdio",
    "MCPServerStreamableHttp",
    "MCPToolApprovalFunction",
    "MCPToolApprovalFunctionResult",
    "MCPToolApprovalRequest",
    "ModelBehaviorError",
    "NoBackChannelError",
    "PromptMessage",
    "ResourceLink",
    "RunContextWrapper",
    "SampleResult",
    "Server",
    "ToolAbortedError",
    "ToolContext",
    "ToolFilterContext",
    "ToolOutputFileContent",
    "ToolOutputImage",
    "ToolOutputText",
    "ToolResult",
    "ToolTimeoutError",
    "Usage",
    "UserError",
    "create_static_tool_filter",
    "default_tool_error_function",
    "ensure_strict_json_schema",
    "function_tool",
    "schema_problems",
]


# public names that moved -> where they are now (getting one raises an AttributeError saying so)
_MOVED: dict[str, str] = {"RedisBackplane": "toolwire.redis.RedisBackplane"}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), moved=_MOVED)
