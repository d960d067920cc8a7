"""What `FunctionTool.on_invoke_tool` does for decorated functions: parse, validate, call,
and turn failures into the text the model sees.

The flow and the messages follow openai-agents 0.24.0 `agents/tool.py` (MIT). Two additions:
`invoke_tool` (see invoke.py) needs to know whether the failure handler fired, so the handler
records the exception in a per-call slot when one is installed; and the call plan (which
validated field goes to which argument) is worked out once per tool instead of per call.
"""

from __future__ import annotations

import inspect
import json
import logging
import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..errors import ModelBehaviorError
from ._output_type import validate_output
from .failure import default_tool_error_function, dont_log_tool_data
from .threads import run_sync

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ..context import ToolContext
    from ..schema.function_schema import FuncSchema
    from .failure import ToolErrorFunction
    from .function_tool import FunctionTool

logger = logging.getLogger("toolwire.tools")

# A list installed by invoke_tool for the duration of one call; the handler appends the
# exception it turned into text, so the caller can mark the result as an error.
handled_failure: ContextVar[list[BaseException] | None] = ContextVar(
    "toolwire_handled_failure", default=None
)

_resolving = threading.Lock()  # one lazy FuncSchema built at a time, each once

_decode = json.JSONDecoder().decode  # what json.loads(str) uses, minus its argument checks


def parse_arguments(tool_name: str, input_json: str) -> dict[str, Any]:
    """Decode raw tool arguments as the SDK does: empty means {}, else it must be an object."""
    try:
        if not input_json:
            parsed: Any = {}
        elif type(input_json) is str and input_json[0] != "\ufeff":
            parsed = _decode(input_json)
        else:
            parsed = json.loads(input_json)
    except Exception as exc:
        base_message = f"Invalid JSON input for tool {tool_name}"
        if dont_log_tool_data():
            logger.debug(base_message)
            error = ModelBehaviorError(base_message)
        else:
            logger.debug("%s: %s", base_message, input_json)
            raise ModelBehaviorError(f"{base_message}: {input_json}") from exc
    else:
        if type(parsed) is not dict:
            raise ModelBehaviorError(
                f"Invalid JSON input for tool {tool_name}: expected a JSON object"
            )
        return parsed
    # Raised outside the except block so the decode error (which holds the raw payload) is
    # not chained onto the redacted error.
    raise error


class CallPlan:
    """One decorated function and how to call it; shared by every copy of its tool.

    The `FuncSchema` may come later: a tool decorated through the fast schema path gets its
    pydantic model on the first call (see _fast_schema.py).
    """

    def __init__(
        self,
        func: Callable[..., Any],
        schema: FuncSchema | Callable[[], FuncSchema],
        *,
        is_sync: bool,
        output_adapter: TypeAdapter[Any] | None,
        wrapped: Any,
    ) -> None:
        self.func = func
        self.is_sync = is_sync
        self.output_adapter = output_adapter
        self.wrapped = wrapped
        self._schema_factory: Callable[[], FuncSchema] | None = None
        self.schema: FuncSchema | None = None
        self.validate: Callable[[Any], Any] = _unresolved
        # pydantic's ValidationError once resolved; read from the plan so that importing this
        # module (and decorating) does not load pydantic.
        self.validation_error: type[Exception] = _Unresolved
        self.takes_context = False
        # Field names passed positionally / by keyword; None when to_call_args must decide
        # (*args, **kwargs).
        self.positional: tuple[str, ...] | None = None
        self.keyword: tuple[str, ...] = ()
        if callable(schema) and not hasattr(schema, "params_pydantic_model"):
            self._schema_factory = schema
        else:
            self._resolve(schema)  # type: ignore[arg-type]

    def ensure_resolved(self) -> FuncSchema:
        """The function's `FuncSchema`, built now if the tool was decorated lazily.

        Safe to call from several threads (a server warms its tools up in the background).
        """
        if self.schema is None:
            with _resolving:
                if self.schema is None:
                    assert self._schema_factory is not None
                    self._resolve(self._schema_factory())
                    self._schema_factory = None
        assert self.schema is not None
        return self.schema

    def _resolve(self, schema: FuncSchema) -> None:
        from pydantic import ValidationError

        self.validation_error = ValidationError
        model = schema.params_pydantic_model
        # model(**data) is __init__ around exactly this call.
        self.validate = model.__pydantic_validator__.validate_python
        self.takes_context = schema.takes_context
        params = list(schema.signature.parameters.values())
        if schema.takes_context:
            params = params[1:]
        positional: list[str] = []
        keyword: list[str] = []
        simple = True
        for param in params:
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                simple = False
            elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                positional.append(param.name)
            else:
                keyword.append(param.name)
        self.positional = tuple(positional) if simple else None
        self.keyword = tuple(keyword)
        self.schema = schema

    def call_args(self, parsed: Any) -> tuple[list[Any], dict[str, Any]]:
        """The SDK's `to_call_args`, without walking the signature on every call."""
        if self.positional is not None:
            values = object.__getattribute__(parsed, "__dict__")
            try:
                return [values[name] for name in self.positional], {
                    name: values[name] for name in self.keyword
                }
            except KeyError:
                pass
        assert self.schema is not None
        return self.schema.to_call_args(parsed)


def _unresolved(data: Any) -> Any:
    raise AssertionError("CallPlan used before its schema was resolved")


class _Unresolved(Exception):
    """Stands for ValidationError until the plan is resolved (never raised)."""


class FunctionInvoker:
    """`on_invoke_tool` of a decorated tool: failures become the failure function's text.

    With `handle_failures=False` (what `to_agents()` hands to the SDK, whose own wrapper then
    formats failures) exceptions propagate.
    """

    __slots__ = ("_handle_failures", "_plan", "_tool")

    def __init__(
        self, plan: CallPlan, *, tool: FunctionTool | None = None, handle_failures: bool = True
    ) -> None:
        self._plan = plan
        self._tool = tool
        self._handle_failures = handle_failures

    @property
    def plan(self) -> CallPlan:
        """What this invoker calls."""
        return self._plan

    @property
    def is_sync(self) -> bool:
        """Whether the wrapped function is synchronous (such tools take no timeout)."""
        return self._plan.is_sync

    def bind(self, tool: FunctionTool) -> FunctionInvoker:
        """An invoker resolving the failure policy against `tool` (copies of a tool rebind)."""
        if self._tool is tool:
            return self
        return FunctionInvoker(self._plan, tool=tool, handle_failures=self._handle_failures)

    def without_failure_handling(self) -> FunctionInvoker:
        """The same call with failures raised, for a wrapper that formats them itself."""
        return FunctionInvoker(self._plan, tool=self._tool, handle_failures=False)

    async def __call__(self, ctx: ToolContext[Any], input_json: str) -> Any:
        output, _ = await self.call(ctx, input_json)
        return output

    async def call(
        self, ctx: ToolContext[Any], input_json: str, arguments: dict[str, Any] | None = None
    ) -> tuple[Any, Exception | None]:
        """The output, and the exception the failure function turned into it (else None).

        `arguments` may be passed when `input_json` is already decoded (it must be what
        `input_json` decodes to); a failure not handled here is raised.
        """
        plan = self._plan
        try:
            if plan.schema is None:
                plan.ensure_resolved()
            tool_name = ctx.tool_name
            data = parse_arguments(tool_name, input_json) if arguments is None else arguments
            try:
                parsed = plan.validate(data)
            except plan.validation_error as error:
                base_message = f"Invalid JSON input for tool {tool_name}"
                if not dont_log_tool_data():
                    raise ModelBehaviorError(f"{base_message}: {error}") from error
                failed = True
            else:
                failed = False
            if failed:  # outside the except block: the redacted error carries no payload
                raise ModelBehaviorError(base_message)
            args, kwargs = plan.call_args(parsed)
            if plan.takes_context:
                args.insert(0, ctx)
            if plan.is_sync:
                result = await run_sync(plan.func, *args, **kwargs)
            else:
                result = await plan.func(*args, **kwargs)
            if plan.output_adapter is not None:
                result = validate_output(tool_name, result, plan.output_adapter)
            return result, None
        except Exception as error:
            if not self._handle_failures:
                raise
            text = await self._format_failure(ctx, error)
            if text is None:
                raise
            self._report_handled(error, input_json)
            return text, error

    async def _format_failure(self, ctx: ToolContext[Any], error: Exception) -> Any:
        tool = self._tool
        assert tool is not None, "FunctionInvoker used before binding to its tool"
        formatter = resolve_failure_error_function(tool, ctx)
        if formatter is None:
            return None
        text = formatter(ctx, error)
        if inspect.isawaitable(text):
            text = await text
        return text

    def _report_handled(self, error: Exception, input_json: str) -> None:
        name = self._tool.name if self._tool is not None else "?"
        if dont_log_tool_data():
            logger.debug("Tool %s failed", name)
        else:
            logger.error("Tool %s failed: %s %s", name, input_json, error, exc_info=error)
        slot = handled_failure.get()
        if slot is not None:
            slot.append(error)


def resolve_failure_error_function(
    tool: FunctionTool, ctx: Any | None = None
) -> ToolErrorFunction | None:
    """The formatter for a failed call: the SDK's resolution, including programmatic calls
    of tools with an output schema (those re-raise instead of returning text)."""
    if tool._use_default_failure_error_function:
        if tool.output_json_schema is not None and _is_programmatic_call(ctx):
            return None
        return default_tool_error_function
    return tool._failure_error_function


def _is_programmatic_call(ctx: Any) -> bool:
    tool_call = getattr(ctx, "tool_call", None)
    if tool_call is None:
        return False
    caller = (
        tool_call.get("caller")
        if isinstance(tool_call, Mapping)
        else getattr(tool_call, "caller", None)
    )
    caller_type = (
        caller.get("type") if isinstance(caller, Mapping) else getattr(caller, "type", None)
    )
    return bool(caller_type == "program")
