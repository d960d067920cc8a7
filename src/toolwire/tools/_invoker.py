"""`on_invoke_tool` of a decorated function: decode, validate, call, and answer failures.

The arguments' JSON is decoded (empty means `{}`), must be an object and is validated by the
function's argument model; a refusal is a `ModelBehaviorError` worded as the Agents SDK words
it. Then the function runs (a sync one in a worker thread) and its result is checked against a
declared output type. A failure at either stage goes to the tool's failure function, whose text
becomes the output; without one, or when it returns None, the exception propagates. Each failure
is logged for the author (`call_log.py`), and `invoke_tool` learns which exception was answered.
"""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

from ._declared_output import check_output
from .aborts import as_tool_failure
from .call_log import log_failed_call, refused_arguments
from .failure import default_tool_error_function, dont_log_tool_data
from .threads import run_sync_within

if TYPE_CHECKING:
    from anyio import CapacityLimiter
    from pydantic import TypeAdapter

    from ..context import ToolContext
    from ..errors import ModelBehaviorError
    from ..schema.function_schema import FuncSchema
    from .failure import ToolErrorFunction
    from .threads import SyncBudget

# invoke_tool installs a list here around a call of a tool it cannot ask directly (a
# hand-built or converted tool); whoever answers a failure with text appends the exception.
handled_failure: ContextVar[list[BaseException] | None] = ContextVar(
    "toolwire_handled_failure", default=None
)

_resolving = threading.Lock()  # one lazy FuncSchema built at a time, each once

_decode = json.JSONDecoder().decode


_JSON_KINDS = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def parse_arguments(tool_name: str, input_json: str) -> dict[str, Any]:
    """Decode a call's raw arguments: nothing at all means `{}`, else a JSON object.

    Raises:
        ModelBehaviorError: Not JSON, or JSON that is not an object (the SDK's messages).
    """
    if not input_json:
        return {}
    try:
        if type(input_json) is str and input_json[0] != "\ufeff":
            decoded: Any = _decode(input_json)
        else:  # bytes, or a BOM that json.loads reports in its own words
            decoded = json.loads(input_json)
    except Exception as undecodable:
        reason = f"not valid JSON ({undecodable})"
        headline = f"Invalid JSON input for tool {tool_name}"
        if not dont_log_tool_data():
            raise refused_arguments(f"{headline}: {input_json}", reason) from undecodable
    else:
        if type(decoded) is dict:
            return decoded
        raise refused_arguments(
            f"Invalid JSON input for tool {tool_name}: expected a JSON object",
            f"expected a JSON object, got {_JSON_KINDS.get(type(decoded), 'something else')}",
        )
    # The redacted error is raised here, outside the except block: chained to the decode
    # error, it would carry the payload along.
    raise refused_arguments(headline, reason)


def validation_problems(invalid: Any) -> list[str]:
    """`where: what` for each problem pydantic's ValidationError `invalid` lists, never the
    values."""
    return [
        f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
        for item in invalid.errors(include_url=False, include_input=False, include_context=False)
    ]


def _invalid_arguments(tool_name: str, invalid: Any) -> ModelBehaviorError:
    """The refusal of arguments that decoded but did not validate (`invalid` is pydantic's
    ValidationError); the reason for the log names fields and problems, never values."""
    reason = "; ".join(validation_problems(invalid)) or "they do not match the parameters"
    headline = f"Invalid JSON input for tool {tool_name}"
    if dont_log_tool_data():
        return refused_arguments(headline, reason)
    error = refused_arguments(f"{headline}: {invalid}", reason)
    error.__cause__ = invalid
    return error


class CallPlan:
    """One decorated function and how to call it; shared by every copy of its tool.

    The `FuncSchema` may come later: a tool decorated through the fast schema path gets its
    pydantic model on the first call (see `fast_function_schema` in schema/function_schema.py).
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


class FailurePolicy(Protocol):
    """What an invoker reads from the tool it answers for (a `FunctionTool`): its name, for
    the log, and how it turns failures into text. A protocol, so this module needs nothing
    from `function_tool.py`, which builds on it."""

    name: str
    output_json_schema: dict[str, Any] | None
    _use_default_failure_error_function: bool
    _failure_error_function: ToolErrorFunction | None


class _Unresolved(Exception):
    """Stands for ValidationError until the plan is resolved (never raised)."""


class FunctionInvoker:
    """`on_invoke_tool` of a decorated tool.

    With `handle_failures=False` (what `to_agents()` gives the SDK, whose own wrapper then
    answers failures) every exception propagates.
    """

    __slots__ = ("_handle_failures", "_plan", "_tool")

    def __init__(
        self, plan: CallPlan, *, tool: FailurePolicy | None = None, handle_failures: bool = True
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

    def bind(self, tool: FailurePolicy) -> FunctionInvoker:
        """This invoker answering failures by `tool`'s policy (a copied tool rebinds)."""
        if self._tool is tool:
            return self
        return FunctionInvoker(self._plan, tool=tool, handle_failures=self._handle_failures)

    def without_failure_handling(self) -> FunctionInvoker:
        """The same call with every failure raised, for a caller that answers them itself."""
        return FunctionInvoker(self._plan, tool=self._tool, handle_failures=False)

    async def __call__(self, ctx: ToolContext[Any], input_json: str) -> Any:
        output, _ = await self.call(ctx, input_json)
        return output

    async def call(
        self,
        ctx: ToolContext[Any],
        input_json: str,
        arguments: dict[str, Any] | None = None,
        limiter: SyncBudget | CapacityLimiter | None = None,
    ) -> tuple[Any, Exception | None]:
        """Run one call; return its output and the exception its failure text answers.

        Args:
            ctx: The call's context (its `tool_name` goes into messages).
            input_json: The raw JSON arguments.
            arguments: `input_json` already decoded, when the caller has it: decoding is
                skipped (they must agree).
            limiter: What bounds a sync function's worker threads (a server's budget);
                None falls back to `threads.sync_limiter`.

        Returns:
            `(output, None)`, or `(failure text, exception)` when the failure function
            answered a failure.

        Raises:
            Exception: A failure nobody answered: failure handling is off, or the failure
                function is None or returned None.
        """
        plan = self._plan
        try:
            tool_name = ctx.tool_name
            if plan.schema is None:
                plan.ensure_resolved()
            data = parse_arguments(tool_name, input_json) if arguments is None else arguments
            try:
                fields = plan.validate(data)
            except plan.validation_error as invalid:
                refusal: ModelBehaviorError | None = _invalid_arguments(tool_name, invalid)
            else:
                refusal = None
            if refusal is not None:  # raised out here: see parse_arguments
                raise refusal
            args, kwargs = plan.call_args(fields)
            if plan.takes_context:
                args.insert(0, ctx)
            try:
                if plan.is_sync:
                    result = await run_sync_within(limiter, plan.func, args, kwargs)
                else:
                    result = await plan.func(*args, **kwargs)
            except Exception:
                raise
            except BaseException as escaped:  # see aborts.py; the SDK's own runs keep it
                aborted = (
                    as_tool_failure(escaped, in_thread=plan.is_sync)
                    if self._handle_failures
                    else None
                )
                if aborted is None:
                    raise
                raise aborted from escaped
            if plan.output_adapter is not None:
                result = check_output(tool_name, result, plan.output_adapter)
        except Exception as error:
            if not self._handle_failures:
                raise
            text = await self._answer(ctx, error)
            if text is None:
                raise
            log_failed_call(self._tool.name if self._tool else "?", error, input_json)
            slot = handled_failure.get()
            if slot is not None:
                slot.append(error)
            return text, error
        return result, None

    async def _answer(self, ctx: ToolContext[Any], error: Exception) -> Any:
        """The failure function's text for `error`, or None when it is to propagate."""
        tool = self._tool
        assert tool is not None, "FunctionInvoker used before binding to its tool"
        formatter = failure_formatter(tool, ctx)
        if formatter is None:
            return None
        text = formatter(ctx, error)
        return await text if inspect.isawaitable(text) else text


def failure_formatter(tool: FailurePolicy, ctx: Any | None = None) -> ToolErrorFunction | None:
    """The function that turns a failed call of `tool` into text, or None to re-raise.

    The default one steps aside when a program (not the model) called a tool that declares
    its output: such a caller wants the exception, as in the SDK.
    """
    if not tool._use_default_failure_error_function:
        return tool._failure_error_function
    if tool.output_json_schema is not None and called_by_program(ctx):
        return None
    return default_tool_error_function


def _member(holder: Any, key: str) -> Any:
    """`holder[key]` for a mapping, else `holder.key`; None when absent."""
    if isinstance(holder, Mapping):
        return holder.get(key)
    return getattr(holder, key, None)


def called_by_program(ctx: Any) -> bool:
    """Whether the model's tool-call item says a program made the call."""
    caller = _member(getattr(ctx, "tool_call", None), "caller")
    return bool(_member(caller, "type") == "program")
