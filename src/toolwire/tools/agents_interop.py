"""Crossing over to the Agents SDK's own `FunctionTool` and back (`agents` imported only here).

The SDK's private helpers (openai-agents 0.24.0) are looked up with `getattr`; without them a
plainer construction is used.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .failure import log_failed_call
from .invoke import FunctionInvoker, called_by_program, handled_failure
from .resource_outputs import EmbeddedResource, ResourceLink
from .tool_result import ToolResult

if TYPE_CHECKING:
    from ..context import ToolContext

# Set by the SDK's failure wrapper on its ToolContext when its default formatter answered.
_SDK_DEFAULT_FAILURE_ATTR = "_function_tool_default_failure_handled"

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

# Marks from_agents' handler with the SDK tool it runs: a tool whose handler was replaced since
# does not go back as that SDK tool.
_RUNS_AGENTS_TOOL = "toolwire_runs_agents_tool"

# toolwire's FunctionTool, handed in: this module must not import function_tool.py.
ToolT = TypeVar("ToolT")


def to_agents(tool: Any) -> Any:
    """An `agents.FunctionTool` that runs `tool` (one from `from_agents()` goes back as it was,
    with the fields changed since); a decorated tool's `failure_error_function` runs inside the
    SDK's own failure wrapper."""
    original = tool._agents_tool
    if original is not None and getattr(tool.on_invoke_tool, _RUNS_AGENTS_TOOL, None) is original:
        # the SDK tool itself, or a copy with the fields changed since it was taken in
        changed = {
            name: getattr(tool, name)
            for name in _SHARED_FIELDS
            if getattr(tool, name) != getattr(original, name)
        }
        return dataclasses.replace(tool._agents_tool, **changed) if changed else original
    import agents.tool as agents_tool_module

    module: Any = agents_tool_module
    common = {name: getattr(tool, name) for name in _SHARED_FIELDS}
    invoker = tool.on_invoke_tool
    declares_output = tool.output_json_schema is not None

    def for_sdk(call: Any) -> Any:
        async def run(ctx: Any, arguments: str) -> Any:
            output = _model_reads(await call(ctx, arguments), declares_output, ctx)
            return _swap_outputs(output, to_sdk=True)

        return run

    build = getattr(module, "_build_wrapped_function_tool", None)
    make_handler = getattr(module, "_build_handled_function_tool_error_handler", None)
    if isinstance(invoker, FunctionInvoker) and build and make_handler:
        invoke_raw = for_sdk(
            FunctionInvoker(invoker.plan, tool=invoker.tool, handle_failures=False)
        )
        failure: dict[str, Any] = {}
        if not tool._use_default_failure_error_function:
            failure["failure_error_function"] = tool._failure_error_function
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
    return module.FunctionTool(
        on_invoke_tool=for_sdk(invoker),
        _output_type_adapter=tool._output_type_adapter,
        _failure_error_function=None
        if tool._use_default_failure_error_function
        else tool._failure_error_function,
        _use_default_failure_error_function=False,
        **common,
    )


def _model_reads(output: Any, declares_output: bool, ctx: Any) -> Any:
    """What the SDK gets of a `ToolResult`: its content; its structured part when it has no
    content, a program made the call, or the tool declares its output (the SDK shows its JSON)."""
    if not isinstance(output, ToolResult):
        return output
    content = output.content
    if content is None or declares_output or called_by_program(ctx):
        return output.structured
    if isinstance(content, list | tuple):
        return list(content) if content else ""
    return content


_OUTPUT_NAMES = ("ToolOutputText", "ToolOutputImage", "ToolOutputFileContent")


def _swap_outputs(output: Any, *, to_sdk: bool) -> Any:
    """toolwire's ToolOutput* models as the SDK's, or the other way (a list item by item); a
    resource output goes to the SDK as the text of its MCP block."""
    if isinstance(output, list | tuple):
        swapped = [_swap_outputs(item, to_sdk=to_sdk) for item in output]
        return swapped if any(a is not b for a, b in zip(swapped, output, strict=True)) else output
    if to_sdk and isinstance(output, ResourceLink | EmbeddedResource):
        # The SDK has no resource output: the model reads the block's JSON, as the SDK shows
        # such a block from an MCP server (not the dataclass's repr).
        import agents.tool as sdk_outputs

        return sdk_outputs.ToolOutputText(text=json.dumps(output.block(), ensure_ascii=False))
    cls = type(output)
    target = "agents.tool" if to_sdk else "toolwire.tools.outputs"
    source = "toolwire.tools.outputs" if to_sdk else "agents.tool"
    if cls.__module__ != source or cls.__name__ not in _OUTPUT_NAMES:
        return output
    model = getattr(importlib.import_module(target), cls.__name__)
    return model.model_validate(output.model_dump(exclude_unset=True))


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
    """A toolwire `FunctionTool` running an SDK `FunctionTool` (also `agent.as_tool()`) with an
    SDK `ToolContext`; a failure the SDK's default formatter answered counts as an error."""
    if not hasattr(agents_tool, "on_invoke_tool") or not hasattr(agents_tool, "params_json_schema"):
        raise TypeError(
            f"from_agents() takes an agents.FunctionTool, not {type(agents_tool).__name__}"
        )

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        sdk_ctx = _agents_context(ctx)
        if hasattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR):
            setattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR, False)
        output = _swap_outputs(await agents_tool.on_invoke_tool(sdk_ctx, arguments), to_sdk=False)
        if getattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR, False):
            setattr(sdk_ctx, _SDK_DEFAULT_FAILURE_ATTR, False)
            failure = AgentsToolFailed(
                f"tool {agents_tool.name} failed inside the Agents SDK, which answered with "
                "its failure text (see the 'openai.agents' logger)"
            )
            log_failed_call(agents_tool.name, failure, arguments)
            slot = handled_failure.get()
            if slot is not None:
                slot.append(failure)
        return output

    setattr(on_invoke_tool, _RUNS_AGENTS_TOOL, agents_tool)
    shared = {name: getattr(agents_tool, name) for name in _SHARED_FIELDS}
    return tool_class(
        **{**shared, "params_json_schema": dict(agents_tool.params_json_schema)},
        on_invoke_tool=on_invoke_tool,
        _output_type_adapter=getattr(agents_tool, "_output_type_adapter", None),
        _failure_error_function=getattr(agents_tool, "_failure_error_function", None),
        _use_default_failure_error_function=getattr(
            agents_tool, "_use_default_failure_error_function", True
        ),
        _agents_tool=agents_tool,
    )
