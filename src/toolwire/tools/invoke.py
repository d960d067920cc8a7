"""Calling a tool: a decorated function's `on_invoke_tool`, and calls from outside a model run.

`FunctionInvoker` decodes and validates the arguments as the Agents SDK does, runs the function
(a sync one in a worker thread), checks a declared output, and answers a failure with the tool's
failure function (no function, or None from it: the exception propagates). `invoke_tool` runs
any tool and says whether the call failed; `invoke_function_tool` adds the SDK's timeouts.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from inspect import Parameter
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..errors import ToolAbortedError, ToolTimeoutError
from .failure import (
    default_tool_error_function,
    default_tool_timeout_error_message,
    dont_log_tool_data,
    log_failed_call,
    log_timeout,
    logger,
    refused_arguments,
)
from .threads import run_sync_within, sync_limiter
from .tool_result import check_output

if TYPE_CHECKING:
    from anyio import CapacityLimiter
    from pydantic import TypeAdapter

    from ..context import ToolContext
    from ..errors import ModelBehaviorError
    from ..schema.function_schema import FuncSchema
    from .failure import ToolErrorFunction
    from .threads import SyncBudget

__all__ = ["ToolOutcome", "invoke_function_tool", "invoke_tool", "warm_up_in_background"]

ToolTimeoutBehavior = Literal["error_as_result", "raise_exception"]

# invoke_tool installs a list here around a call of a tool it cannot ask directly (a
# hand-built or converted tool); whoever answers a failure with text appends the exception.
handled_failure: ContextVar[list[BaseException] | None] = ContextVar(
    "toolwire_handled_failure", default=None
)

_BY_POSITION = (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)

_resolving = threading.Lock()  # one lazy FuncSchema built at a time, each once

_JSON_KINDS = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


class InvokedTool(Protocol):
    """What calling a tool reads of it (a `FunctionTool`, which this module must not import)."""

    name: str
    output_json_schema: dict[str, Any] | None
    timeout_seconds: float | None
    timeout_behavior: ToolTimeoutBehavior
    timeout_error_function: ToolErrorFunction | None
    _use_default_failure_error_function: bool
    _failure_error_function: ToolErrorFunction | None

    @property
    def on_invoke_tool(self) -> Callable[[ToolContext[Any], str], Awaitable[Any]]: ...


@dataclass(frozen=True)
class ToolOutcome:
    """What one call produced.

    Args:
        output: The tool's output, or the failure text when the call failed.
        error: The exception behind a failed call; None when it succeeded.
    """

    output: Any
    error: BaseException | None = None

    @property
    def is_error(self) -> bool:
        """Whether the call failed (MCP's `isError`)."""
        return self.error is not None


async def invoke_tool(
    tool: InvokedTool,
    ctx: ToolContext[Any],
    arguments_json: str,
    arguments: dict[str, Any] | None = None,
    limiter: SyncBudget | CapacityLimiter | None = None,
) -> ToolOutcome:
    """Run `tool.on_invoke_tool`: a failure's text comes back with `error` set (an escaping
    exception gets the default text); `arguments` is `arguments_json` decoded, if known;
    `limiter` bounds a sync tool's worker threads."""
    invoker = tool.on_invoke_tool
    if type(invoker) is FunctionInvoker:  # says which failure it handled: no slot needed
        try:
            output, handled = await invoker.call(ctx, arguments_json, arguments, limiter)
        except Exception as error:
            log_failed_call(tool.name, error, arguments_json)
            return ToolOutcome(default_tool_error_function(ctx, error), error)
        return ToolOutcome(output, handled)
    slot: list[BaseException] = []
    token = handled_failure.set(slot)
    budget = sync_limiter.set(limiter) if limiter is not None else None
    try:
        output = await invoker(ctx, arguments_json)
    except BaseException as escaped:  # SystemExit & co. from a hand-built tool
        failure = (
            escaped if isinstance(escaped, Exception) else as_tool_failure(escaped, in_thread=False)
        )
        if failure is None:
            raise
        log_failed_call(tool.name, failure, arguments_json)
        return ToolOutcome(default_tool_error_function(ctx, failure), failure)
    finally:
        handled_failure.reset(token)
        if budget is not None:
            sync_limiter.reset(budget)
    return ToolOutcome(output, slot[0] if slot else None)


async def invoke_function_tool(tool: InvokedTool, ctx: ToolContext[Any], arguments: str) -> Any:
    """Call a tool as the Agents SDK's runner does, with its `timeout_seconds` behaviours."""
    timeout = tool.timeout_seconds
    if timeout is None:
        return await tool.on_invoke_tool(ctx, arguments)
    try:
        return await asyncio.wait_for(tool.on_invoke_tool(ctx, arguments), timeout)
    except TimeoutError:
        error = ToolTimeoutError(tool.name, timeout)
        if tool.timeout_behavior == "raise_exception":
            raise error from None
        log_timeout(tool.name, timeout, arguments)
        if tool.timeout_error_function is None:
            return default_tool_timeout_error_message(tool_name=tool.name, timeout_seconds=timeout)
        text = tool.timeout_error_function(ctx, error)
        return await text if inspect.isawaitable(text) else text


def as_tool_failure(escaped: BaseException, *, in_thread: bool) -> ToolAbortedError | None:
    """The failure to report for a non-`Exception` out of a tool body (`in_thread`: a sync
    tool's), or None for a real cancellation of the call, which must propagate."""
    if isinstance(escaped, asyncio.CancelledError):
        if in_thread:
            return None
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no asyncio loop: another backend's task
            task = None
        if task is not None and task.cancelling() > 0:
            return None
    elif type(escaped).__module__.partition(".")[0] == "trio":  # trio.Cancelled and friends
        return None
    return ToolAbortedError(escaped)


def parse_arguments(tool_name: str, input_json: str) -> dict[str, Any]:
    """Decode a call's raw arguments: nothing at all means `{}`, else a JSON object
    (`ModelBehaviorError` with the SDK's messages otherwise)."""
    if not input_json:
        return {}
    try:
        decoded: Any = json.loads(input_json)
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
    # Raised outside the except block: chained to the decode error, it would carry the payload.
    raise refused_arguments(headline, reason)


def validation_problems(invalid: Any) -> list[str]:
    """`where: what` for each problem of pydantic's ValidationError `invalid`, never values."""
    return [
        f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
        for item in invalid.errors(include_url=False, include_input=False, include_context=False)
    ]


def _invalid_arguments(tool_name: str, invalid: Any) -> ModelBehaviorError:
    """The refusal of arguments that decoded but did not validate."""
    reason = "; ".join(validation_problems(invalid)) or "they do not match the parameters"
    headline = f"Invalid JSON input for tool {tool_name}"
    if dont_log_tool_data():
        return refused_arguments(headline, reason)
    error = refused_arguments(f"{headline}: {invalid}", reason)
    error.__cause__ = invalid
    return error


class CallPlan:
    """One decorated function and how to call it; its `FuncSchema` may be built lazily."""

    validate: Callable[[Any], Any]
    validation_error: type[Exception]  # pydantic's, read here so decorating needs no pydantic

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
        self.takes_context = False
        # Field names passed by position and by keyword; None for *args / **kwargs.
        self.positional: tuple[str, ...] | None = None
        self.keyword: tuple[str, ...] = ()
        if callable(schema):
            self._schema_factory = schema
        else:
            self._resolve(schema)

    def ensure_resolved(self) -> FuncSchema:
        """The function's `FuncSchema`, built now if need be; safe from several threads."""
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
        # model(**data) is __init__ around exactly this call.
        self.validate = schema.params_pydantic_model.__pydantic_validator__.validate_python
        self.takes_context = schema.takes_context
        params = list(schema.signature.parameters.values())[1 if schema.takes_context else 0 :]
        kinds = {param.kind for param in params}
        self.positional = (
            None
            if kinds & {Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD}
            else tuple(param.name for param in params if param.kind in _BY_POSITION)
        )
        self.keyword = tuple(param.name for param in params if param.kind is Parameter.KEYWORD_ONLY)
        self.schema = schema

    def call_args(self, parsed: Any) -> tuple[list[Any], dict[str, Any]]:
        """The SDK's `to_call_args`, without walking the signature on every call."""
        if self.positional is not None:
            values = object.__getattribute__(parsed, "__dict__")
            keyword = {name: values[name] for name in self.keyword}
            return [values[name] for name in self.positional], keyword
        assert self.schema is not None
        return self.schema.to_call_args(parsed)


class FunctionInvoker:
    """`on_invoke_tool` of a decorated tool, answering failures by `tool`'s policy (with
    `handle_failures=False`, for the SDK's own failure wrapper, every exception propagates)."""

    __slots__ = ("handle_failures", "plan", "tool")

    def __init__(
        self, plan: CallPlan, *, tool: InvokedTool | None = None, handle_failures: bool = True
    ) -> None:
        self.plan = plan
        self.tool = tool
        self.handle_failures = handle_failures

    def bind(self, tool: InvokedTool) -> FunctionInvoker:
        """This invoker answering failures by `tool`'s policy (a copied tool rebinds)."""
        if self.tool is tool:
            return self
        return FunctionInvoker(self.plan, tool=tool, handle_failures=self.handle_failures)

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
        """Run one call: `(output, None)`, or `(failure text, exception)` for an answered
        failure; an unanswered one is raised. `arguments` is `input_json` decoded, if known."""
        plan = self.plan
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
            except BaseException as escaped:  # the SDK's own runs keep it
                aborted = (
                    as_tool_failure(escaped, in_thread=plan.is_sync)
                    if self.handle_failures
                    else None
                )
                if aborted is None:
                    raise
                raise aborted from escaped
            if plan.output_adapter is not None:
                result = check_output(tool_name, result, plan.output_adapter)
        except Exception as error:
            if not self.handle_failures:
                raise
            text = await self._answer(ctx, error)
            if text is None:
                raise
            log_failed_call(self.tool.name if self.tool else "?", error, input_json)
            slot = handled_failure.get()
            if slot is not None:
                slot.append(error)
            return text, error
        return result, None

    async def _answer(self, ctx: ToolContext[Any], error: Exception) -> Any:
        """The failure function's text for `error`, or None when it is to propagate (also, as
        in the SDK, for the default function when a program called a tool declaring output)."""
        tool = self.tool
        assert tool is not None, "FunctionInvoker used before binding to its tool"
        formatter: ToolErrorFunction | None = default_tool_error_function
        if not tool._use_default_failure_error_function:
            formatter = tool._failure_error_function
        elif tool.output_json_schema is not None and called_by_program(ctx):
            formatter = None
        if formatter is None:
            return None
        text = formatter(ctx, error)
        return await text if inspect.isawaitable(text) else text


def warm_up_in_background(tools: Iterable[Any]) -> threading.Thread:
    """Build the decorated tools' argument models (and load the `ToolOutput*` models) in a
    thread of its own, not a daemon, so that first calls find them ready."""
    plans = [
        (tool.name, tool.on_invoke_tool.plan)
        for tool in tools
        if isinstance(getattr(tool, "on_invoke_tool", None), FunctionInvoker)
    ]

    def warm_up() -> None:
        for name, plan in plans:
            try:
                plan.ensure_resolved()
            except Exception:  # the tool's first call raises it again, where it is reported
                logger.debug("warming up tool %r failed", name, exc_info=True)
        from . import outputs  # noqa: F401 - results are told apart with these models

    thread = threading.Thread(target=warm_up, name="toolwire-warmup")
    thread.start()
    return thread


def _member(holder: Any, key: str) -> Any:
    """`holder[key]` for a mapping, else `holder.key`; None when absent."""
    if isinstance(holder, Mapping):
        return holder.get(key)
    return getattr(holder, key, None)


def called_by_program(ctx: Any) -> bool:
    """Whether the model's tool-call item says a program made the call."""
    caller = _member(getattr(ctx, "tool_call", None), "caller")
    return bool(_member(caller, "type") == "program")
