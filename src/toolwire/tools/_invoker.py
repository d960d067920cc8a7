"""What `FunctionTool.on_invoke_tool` does for decorated functions: parse, validate, call,
and turn failures into the text the model sees.

The flow and the messages follow openai-agents 0.24.0 `agents/tool.py` (MIT). One addition:
`invoke_tool` (see invoke.py) needs to know whether the failure handler fired, so the handler
records the exception in a per-call slot when one is installed.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..errors import ModelBehaviorError
from .failure import default_tool_error_function, dont_log_tool_data
from .threads import run_sync

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ..context import ToolContext
    from ..schema.function_schema import FuncSchema
    from .function_tool import FunctionTool

logger = logging.getLogger("toolwire.tools")

InvokeImpl = Callable[["ToolContext[Any]", str], Awaitable[Any]]

# A list installed by invoke_tool for the duration of one call; the handler appends the
# exception it turned into text, so the caller can mark the result as an error.
handled_failure: ContextVar[list[BaseException] | None] = ContextVar(
    "toolwire_handled_failure", default=None
)


def parse_arguments(tool_name: str, input_json: str) -> dict[str, Any]:
    """Decode raw tool arguments as the SDK does: empty means {}, else it must be an object."""
    try:
        parsed = json.loads(input_json) if input_json else {}
    except Exception as exc:
        base_message = f"Invalid JSON input for tool {tool_name}"
        if dont_log_tool_data():
            error = ModelBehaviorError(base_message)
        else:
            raise ModelBehaviorError(f"{base_message}: {input_json}") from exc
    else:
        if not isinstance(parsed, dict):
            raise ModelBehaviorError(
                f"Invalid JSON input for tool {tool_name}: expected a JSON object"
            )
        return parsed
    # Raised outside the except block so the decode error (which holds the raw payload) is
    # not chained onto the redacted error.
    raise error


def make_invoke_impl(
    func: Callable[..., Any],
    schema: FuncSchema,
    is_sync: bool,
    output_adapter: TypeAdapter[Any] | None,
) -> InvokeImpl:
    """Build the undecorated invoker of one function: parse, validate, call, check output."""
    from ._output_type import validate_output

    model = schema.params_pydantic_model
    takes_context = schema.takes_context

    async def invoke(ctx: ToolContext[Any], input_json: str) -> Any:
        tool_name = ctx.tool_name
        data = parse_arguments(tool_name, input_json)
        try:
            parsed = model(**data) if data else model()
        except ValidationError as error:
            base_message = f"Invalid JSON input for tool {tool_name}"
            if not dont_log_tool_data():
                raise ModelBehaviorError(f"{base_message}: {error}") from error
            failed = True
        else:
            failed = False
        if failed:
            raise ModelBehaviorError(base_message)
        args, kwargs = schema.to_call_args(parsed)
        if takes_context:
            args = [ctx, *args]
        if is_sync:
            result = await run_sync(func, *args, **kwargs)
        else:
            result = await func(*args, **kwargs)
        return validate_output(tool_name, result, output_adapter)

    return invoke


class FailureHandlingInvoker:
    """`on_invoke_tool` of a decorated tool: failures become the failure function's text."""

    def __init__(
        self, impl: InvokeImpl, *, is_sync: bool, tool: FunctionTool | None = None
    ) -> None:
        self._impl = impl
        self.is_sync = is_sync
        self._tool = tool

    def bind(self, tool: FunctionTool) -> FailureHandlingInvoker:
        """A copy resolving the failure policy against `tool` (copies of a tool rebind)."""
        if self._tool is tool:
            return self
        return FailureHandlingInvoker(self._impl, is_sync=self.is_sync, tool=tool)

    async def __call__(self, ctx: ToolContext[Any], input_json: str) -> Any:
        try:
            return await self._impl(ctx, input_json)
        except Exception as error:
            tool = self._tool
            assert tool is not None, "FailureHandlingInvoker used before binding to its tool"
            formatter = (
                default_tool_error_function
                if tool._use_default_failure_error_function
                else tool._failure_error_function
            )
            if formatter is None:
                raise
            text = formatter(ctx, error)
            if inspect.isawaitable(text):
                text = await text
            if text is None:  # a formatter may decline, as in the SDK: the error propagates
                raise
            logger.info("Tool %s failed (the model gets the failure text): %r", tool.name, error)
            slot = handled_failure.get()
            if slot is not None:
                slot.append(error)
            return text
