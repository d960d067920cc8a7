"""Crossing over to the Agents SDK's own `FunctionTool` and back.

`agents` is imported only inside these functions: toolwire never pays for it otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..context import ToolContext

if TYPE_CHECKING:
    from .function_tool import FunctionTool


def to_agents(tool: FunctionTool) -> Any:
    """An `agents.FunctionTool` that runs `tool`; the SDK's context reaches the function as is."""
    import agents as agents_module

    agents: Any = agents_module

    async def on_invoke_tool(ctx: Any, arguments: str) -> Any:
        return await tool.on_invoke_tool(ctx, arguments)

    kwargs: dict[str, Any] = {}
    if not tool._use_default_failure_error_function:
        kwargs["_failure_error_function"] = tool._failure_error_function
        kwargs["_use_default_failure_error_function"] = False
    converted = agents.FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.params_json_schema,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=tool.strict_json_schema,
        is_enabled=tool.is_enabled,
        tool_input_guardrails=tool.tool_input_guardrails,
        tool_output_guardrails=tool.tool_output_guardrails,
        needs_approval=tool.needs_approval,
        timeout_seconds=tool.timeout_seconds,
        timeout_behavior=tool.timeout_behavior,
        timeout_error_function=tool.timeout_error_function,
        defer_loading=tool.defer_loading,
        custom_data_extractor=tool.custom_data_extractor,
        allowed_callers=tool.allowed_callers,
        output_json_schema=tool.output_json_schema,
        **kwargs,
    )
    return converted


def _agents_context(ctx: Any) -> Any:
    """An SDK ToolContext carrying what toolwire's context holds."""
    from agents.tool_context import ToolContext as AgentsToolContext

    if isinstance(ctx, AgentsToolContext):
        return ctx
    return AgentsToolContext(
        context=getattr(ctx, "context", None),
        tool_name=ctx.tool_name,
        tool_call_id=ctx.tool_call_id,
        tool_arguments=ctx.tool_arguments,
    )


def from_agents(agents_tool: Any) -> FunctionTool:
    """A toolwire `FunctionTool` running an SDK `FunctionTool` (also `agent.as_tool()`)."""
    from .function_tool import FunctionTool

    if not hasattr(agents_tool, "on_invoke_tool") or not hasattr(agents_tool, "params_json_schema"):
        raise TypeError(
            f"from_agents() takes an agents.FunctionTool, not {type(agents_tool).__name__}"
        )

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        return await agents_tool.on_invoke_tool(_agents_context(ctx), arguments)

    return FunctionTool(
        name=agents_tool.name,
        description=agents_tool.description,
        params_json_schema=dict(agents_tool.params_json_schema),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=agents_tool.strict_json_schema,
        is_enabled=agents_tool.is_enabled,
        tool_input_guardrails=agents_tool.tool_input_guardrails,
        tool_output_guardrails=agents_tool.tool_output_guardrails,
        needs_approval=agents_tool.needs_approval,
        timeout_seconds=agents_tool.timeout_seconds,
        timeout_behavior=agents_tool.timeout_behavior,
        timeout_error_function=agents_tool.timeout_error_function,
        defer_loading=agents_tool.defer_loading,
        allowed_callers=agents_tool.allowed_callers,
        output_json_schema=agents_tool.output_json_schema,
        _agents_tool=agents_tool,
    )
