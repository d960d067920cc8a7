"""Crossing over to the Agents SDK's own `FunctionTool` and back.

`agents` is imported only inside these functions: toolwire never pays for it otherwise. Some
helpers used here are private to openai-agents 0.24.0 (`agents.tool`); each is looked up with
`getattr` and, when missing in another release, a plainer construction is used instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .call_log import log_failed_call
from .invoke import FunctionInvoker, called_by_program, handled_failure
from .tool_result import ToolResult

if TYPE_CHECKING:
    from ..context import ToolContext

# Set by the SDK's failure wrapper on its ToolContext when the default formatter produced the
# output (agents/tool.py `_DEFAULT_FAILURE_HANDLED_ATTR`).
_SDK_DEFAULT_FAILURE_ATTR = "_function_tool_default_failure_handled"

# The fields both FunctionTool classes have, under the same names, copied across as they are.
_SHARED_FIELDS = (
    "name",
    "description",
    "params_json_schema",
    "strict_json_schema",
    "is_enabled",
    "tool_input_guardrails",
    "tool_output_guardrails",
    "needs_approval",
    "timeout_seconds",
    "timeout_behavior",
    "timeout_error_function",
    "defer_loading",
    "custom_data_extractor",
    "allowed_callers",
    "output_json_schema",
)

# The toolwire FunctionTool class, handed in by its own methods: this module sits above
# function_tool.py and must not import it back.
ToolT = TypeVar("ToolT")


def to_agents(tool: Any) -> Any:
    """An `agents.FunctionTool` that runs `tool`; the SDK's context reaches the function as is.

    A decorated tool is built the way `agents.function_tool` builds its own: the SDK's failure
    wrapper formats failures (so `RunConfig.tool_error_formatter`, tracing and the run's
    bookkeeping apply) with this tool's `failure_error_function`. A tool that came from
    `from_agents()` goes back as the original object. A `ToolResult` reaches the SDK as its
    content (see `_model_reads`).
    """
    if tool._agents_tool is not None:
        return tool._agents_tool
    import agents.tool as agents_tool_module

    module: Any = agents_tool_module
    common = {name: getattr(tool, name) for name in _SHARED_FIELDS}
    invoker = tool.on_invoke_tool
    declares_output = tool.output_json_schema is not None
    build = getattr(module, "_build_wrapped_function_tool", None)
    make_handler = getattr(module, "_build_handled_function_tool_error_handler", None)
    if isinstance(invoker, FunctionInvoker) and build and make_handler:
        raw = FunctionInvoker(invoker.plan, tool=invoker.tool, handle_failures=False)

        async def invoke_raw(ctx: Any, arguments: str) -> Any:
            output = await raw(ctx, arguments)
            return _to_sdk_outputs(_model_reads(output, declares_output, ctx))

        failure: dict[str, Any] = {}
        if not tool._use_default_failure_error_function:
            failure["failure_error_function"] = tool._failure_error_function
        # The SDK reads the wrapped callable from its invoker; keep `__wrapped__` working.
        marker = getattr(module, "_FUNCTION_TOOL_WRAPPED_CALLABLE_MARKER", None)
        if isinstance(marker, str):
            setattr(invoke_raw, marker, invoker.plan.wrapped)
        return build(
            invoke_tool_impl=invoke_raw,
            on_handled_error=make_handler(
                span_message="Error running tool (non-fatal)",
                span_message_for_json_decode_error="Error running tool",
                log_label="Tool",
            ),
            output_type_adapter=tool._output_type_adapter,
            sync_invoker=invoker.plan.is_sync,
            **failure,
            **common,
        )

    async def on_invoke_tool(ctx: Any, arguments: str) -> Any:
        output = await invoker(ctx, arguments)
        return _to_sdk_outputs(_model_reads(output, declares_output, ctx))

    converted = module.FunctionTool(
        on_invoke_tool=on_invoke_tool,
        _output_type_adapter=tool._output_type_adapter,
        **common,
    )
    if not tool._use_default_failure_error_function:
        converted._failure_error_function = tool._failure_error_function
    converted._use_default_failure_error_function = False
    return converted


def _model_reads(output: Any, declares_output: bool, ctx: Any) -> Any:
    """What the SDK gets of a `ToolResult`: its content, as a model reads it from an MCP server.
    Its structured part instead when it names no content, when a program made the call, or
    when the tool declares its output (the SDK then shows the model that output's JSON,
    whatever else the tool says)."""
    if not isinstance(output, ToolResult):
        return output
    content = output.content
    if content is None or declares_output or called_by_program(ctx):
        return output.structured
    if isinstance(content, list | tuple):
        return list(content) if content else ""
    return content


def _convert_outputs(output: Any, source_module: str, target: dict[str, Any]) -> Any:
    """Swap one library's ToolOutput* models for the other's (a list item by item)."""
    if isinstance(output, list | tuple):
        converted = [_convert_outputs(item, source_module, target) for item in output]
        return (
            converted if any(a is not b for a, b in zip(converted, output, strict=True)) else output
        )
    cls = type(output)
    if cls.__module__ == source_module and cls.__name__ in target:
        return target[cls.__name__].model_validate(output.model_dump(exclude_unset=True))
    return output


def _to_sdk_outputs(output: Any) -> Any:
    """toolwire's ToolOutput* become the SDK's, which its runner recognises (else str())."""
    import agents.tool as agents_tool_module

    target = {name: getattr(agents_tool_module, name) for name in _OUTPUT_NAMES}
    return _convert_outputs(output, "toolwire.tools.outputs", target)


def _from_sdk_outputs(output: Any) -> Any:
    """The SDK's ToolOutput* become toolwire's, which the MCP server turns into content."""
    from . import outputs

    target = {name: getattr(outputs, name) for name in _OUTPUT_NAMES}
    return _convert_outputs(output, "agents.tool", target)


_OUTPUT_NAMES = ("ToolOutputText", "ToolOutputImage", "ToolOutputFileContent")


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
        tool_call=getattr(ctx, "tool_call", None),
    )


class AgentsToolFailed(Exception):
    """Stands in for an exception the Agents SDK's failure wrapper turned into text."""


def from_agents(tool_class: Callable[..., ToolT], agents_tool: Any) -> ToolT:
    """A toolwire `FunctionTool` running an SDK `FunctionTool` (also `agent.as_tool()`).

    When toolwire invokes it, the SDK tool receives an SDK `ToolContext` built from toolwire's
    (same `context`, tool name, call id and arguments). A failure that the SDK's default
    formatter turned into text is reported to `invoke_tool` as an error.
    """
    if not hasattr(agents_tool, "on_invoke_tool") or not hasattr(agents_tool, "params_json_schema"):
        raise TypeError(
            f"from_agents() takes an agents.FunctionTool, not {type(agents_tool).__name__}"
        )

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        sdk_ctx = _agents_context(ctx)
        if hasattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR):
            setattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR, False)
        output = _from_sdk_outputs(await agents_tool.on_invoke_tool(sdk_ctx, arguments))
        if getattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR, False):
            setattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR, False)
            # The SDK kept the exception: its logger 'openai.agents' shows it with the
            # traceback when OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0, else one DEBUG line.
            failure = AgentsToolFailed(
                f"tool {agents_tool.name} failed inside the Agents SDK, which answered with "
                "its failure text (see the 'openai.agents' logger)"
            )
            log_failed_call(agents_tool.name, failure, arguments)
            slot = handled_failure.get()
            if slot is not None:
                slot.append(failure)
        return output

    shared = {name: getattr(agents_tool, name) for name in _SHARED_FIELDS}
    made = tool_class(
        **{**shared, "params_json_schema": dict(agents_tool.params_json_schema)},
        on_invoke_tool=on_invoke_tool,
        _output_type_adapter=getattr(agents_tool, "_output_type_adapter", None),
        _agents_tool=agents_tool,
    )
    converted: Any = made  # the private failure settings are not part of ToolT
    converted._use_default_failure_error_function = getattr(
        agents_tool, "_use_default_failure_error_function", True
    )
    converted._failure_error_function = getattr(agents_tool, "_failure_error_function", None)
    return made
