"""Remote tools as toolwire `FunctionTool`s. A converted tool sends the model's arguments as
they are (the server validates them) and returns what a local tool would have, as in the Agents
SDK: one text block as a `str`, other blocks as `ToolOutput*` values, `structuredContent` as its
JSON when the server is set to use it, an `isError` result as its text; a failure goes through
the tool's failure function, so the run goes on."""

from __future__ import annotations

import copy
import inspect
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import ModelBehaviorError, UserError
from ..protocol.wire.content import content_to_outputs
from ..schema.strict import ensure_strict_json_schema
from ..tools.failure import default_tool_error_function, dont_log_tool_data
from ..tools.function_tool import FunctionTool
from .approvals import CallScope, note_call
from .naming import prefixed_name

if TYPE_CHECKING:
    from ..context import RunContextWrapper, ToolContext
    from ._shape import RemoteServer

__all__ = ["MCPToolMetaContext", "convert_tools"]

logger = logging.getLogger("toolwire.client")


class MCPToolMetaContext(NamedTuple):
    """What a `tool_meta_resolver` is told about a call it may add `_meta` to.

    Args:
        run_context: The run's context wrapper.
        server_name: The server the tool lives on.
        tool_name: The tool's name on the server.
        arguments: The arguments about to be sent.
    """

    run_context: RunContextWrapper[Any]
    server_name: str
    tool_name: str
    arguments: dict[str, Any] | None


def _arguments(tool_name: str, input_json: str) -> dict[str, Any]:
    try:
        decoded = json.loads(input_json) if input_json else {}
    except ValueError as error:
        detail = "" if dont_log_tool_data() else f": {input_json}"
        raise ModelBehaviorError(f"Invalid JSON input for tool {tool_name}{detail}") from error
    if not isinstance(decoded, dict):
        raise ModelBehaviorError(f"Invalid JSON input for tool {tool_name}: expected a JSON object")
    return decoded


def _result_output(result: Any, use_structured_content: bool) -> Any:
    """What the model gets from a `CallToolResult` (see the module docstring)."""
    structured = getattr(result, "structured_content", None)
    if use_structured_content and structured and not getattr(result, "is_error", False):
        return json.dumps(structured)
    blocks = [
        block.model_dump(by_alias=True, exclude_none=True, mode="json") for block in result.content
    ]
    if len(blocks) == 1 and blocks[0].get("type") == "text":
        return str(blocks[0].get("text", ""))
    outputs = content_to_outputs(blocks)
    if not outputs:
        return ""
    return outputs[0] if len(outputs) == 1 else outputs


def _schema(server_name: str, tool: Any, strict: bool) -> tuple[dict[str, Any], bool]:
    schema: dict[str, Any] = copy.deepcopy(tool.input_schema or {})
    schema.setdefault("properties", {})
    if not strict:
        return schema, False
    try:
        made = ensure_strict_json_schema(
            copy.deepcopy(schema), _reject_open_objects=bool(tool.input_schema)
        )
    except Exception as error:
        if _already_strict(schema):
            # The SDK's conversion refuses some schemas that are strict as served (one that
            # reaches its objects through `$ref`s, as toolwire's servers send): kept as is.
            return schema, True
        logger.info(
            "MCP server %r: tool %r keeps its non-strict schema: %s", server_name, tool.name, error
        )
        return schema, False
    return made, True


def _already_strict(schema: dict[str, Any]) -> bool:
    """Whether strict conversion would leave `schema` as it is (it is strict already)."""
    try:
        return ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    except Exception:
        return False


async def _resolve_meta(
    server: RemoteServer, ctx: Any, tool_name: str, arguments: dict[str, Any]
) -> dict[str, Any] | None:
    resolver = server.tool_meta_resolver
    if resolver is None:
        return None
    meta = resolver(MCPToolMetaContext(ctx, server.name, tool_name, arguments))
    if inspect.isawaitable(meta):
        meta = await meta
    if meta is not None and not isinstance(meta, dict):
        raise UserError(f"tool_meta_resolver for MCP server '{server.name}' must return a dict")
    return meta


def _invoker(
    server: RemoteServer,
    remote_name: str,
    shown_name: str,
    callback: Callable[..., Any] | None,
    agent: Any,
) -> Callable[..., Any]:
    async def on_invoke_tool(ctx: ToolContext[Any], input_json: str) -> Any:
        try:
            arguments = _arguments(shown_name, input_json)
            meta = await _resolve_meta(server, ctx, remote_name, arguments)
            # The server's own gate asks the callback, shown this run's context.
            note_call(CallScope(server, remote_name, arguments, ctx, callback, agent))
            # The server checks the arguments itself; the SDK's required-keys check would
            # refuse calls that leave out a defaulted argument a strict schema lists.
            result = await server.call_tool_unchecked(remote_name, arguments, meta)
            return _result_output(result, server.use_structured_content)
        except Exception as error:
            answer = server._get_failure_error_function(default_tool_error_function)
            if answer is None:
                raise
            logger.warning("MCP tool %r on server %r failed: %s", remote_name, server.name, error)
            text = answer(ctx, error)
            return await text if inspect.isawaitable(text) else text

    return on_invoke_tool


def convert_tools(
    server: RemoteServer,
    listed: list[Any],
    *,
    strict: bool,
    on_approval_request: Callable[..., Any] | None,
    agent: Any = None,
) -> list[FunctionTool]:
    """One `FunctionTool` per listed tool. With an approval callback, the server's gate asks it
    at each call (the tool never pauses a run); without one, the tool carries `needs_approval`."""
    made: list[FunctionTool] = []
    for tool in listed:
        shown = prefixed_name(server.name, tool.name) if server.prefix_tool_names else tool.name
        schema, is_strict = _schema(server.name, tool, strict)
        needs_approval: Any = False
        if on_approval_request is None:
            needs_approval = server._get_needs_approval_for_tool(tool, agent)
        made.append(
            FunctionTool(
                name=shown,
                description=tool.description or getattr(tool, "title", None) or "",
                params_json_schema=schema,
                on_invoke_tool=_invoker(server, tool.name, shown, on_approval_request, agent),
                strict_json_schema=is_strict,
                tool_input_guardrails=server.tool_input_guardrails,
                tool_output_guardrails=server.tool_output_guardrails,
                custom_data_extractor=server.custom_data_extractor,
                needs_approval=needs_approval,
            )
        )
    return made
