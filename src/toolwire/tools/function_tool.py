"""`FunctionTool` and the `@function_tool` decorator, with the Agents SDK's exact semantics.

Field order, defaults, the failure pipeline and the error texts follow openai-agents 0.24.0
`agents/tool.py` (MIT), from which parts are adapted; `to_agents()` / `from_agents()` cross
over to the SDK's own class without importing it anywhere else.
"""

from __future__ import annotations

import copy
import functools
import inspect
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from ..context import RunContextWrapper, ToolContext
from ..errors import UserError
from ..schema.docstrings import DocstringStyle
from ..schema.strict import ensure_strict_json_schema
from . import _invoker
from ._callable import normalize_function_tool_callable
from ._fast_schema import FastSchema, fast_function_schema
from ._output_type import resolve_function_tool_output
from .failure import UNSET_FAILURE_ERROR_FUNCTION, ToolErrorFunction

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ..schema.function_schema import FuncSchema

__all__ = ["FunctionTool", "function_tool"]

logger = logging.getLogger("toolwire.tools")

ToolTimeoutBehavior = Literal["error_as_result", "raise_exception"]
ToolCaller = Literal["direct", "programmatic"]
_TIMEOUT_BEHAVIORS: tuple[str, ...] = ("error_as_result", "raise_exception")
_TOOL_CALLERS: tuple[str, ...] = ("direct", "programmatic")

IsEnabled = bool | Callable[[RunContextWrapper[Any], Any], "bool | Awaitable[bool]"]
NeedsApproval = bool | Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]


class _WrappedCallable:
    """`tool.__wrapped__`: the callable given to `function_tool` (read-only, as in the SDK).

    Calling it directly bypasses validation, context injection, timeouts and failure handling.
    """

    def __get__(self, instance: FunctionTool | None, owner: type[Any] | None = None) -> Any:
        if instance is None:
            raise AttributeError("FunctionTool classes have no wrapped Python callable")
        invoker = instance.on_invoke_tool
        if not isinstance(invoker, _invoker.FunctionInvoker):
            raise AttributeError("FunctionTool has no wrapped Python callable")
        return invoker.plan.wrapped

    def __set__(self, instance: FunctionTool, value: object) -> None:
        raise AttributeError("FunctionTool.__wrapped__ is read-only")


@dataclass
class FunctionTool:
    """A tool that wraps a function; usually built with `@function_tool`.

    Args:
        name: The tool's name, as shown to the model.
        description: What the tool does, as shown to the model.
        params_json_schema: The JSON schema of the arguments.
        on_invoke_tool: `async (ctx, arguments_json) -> output`. Return a `ToolOutput*`, a
            string, a list of them, or anything `str()` can render.
        strict_json_schema: Whether the schema is in strict mode (rewritten to strict form).
        is_enabled: A bool, or `(run_context, agent) -> bool | Awaitable[bool]`.
        tool_input_guardrails: Agents SDK input guardrails, passed through.
        tool_output_guardrails: Agents SDK output guardrails, passed through.
        needs_approval: A bool, or `(run_context, arguments, call_id) -> Awaitable[bool]`.
        timeout_seconds: Per-call timeout (async handlers only, as in the SDK).
        timeout_behavior: "error_as_result" or "raise_exception".
        timeout_error_function: Formats the timeout text for "error_as_result".
        defer_loading: Hide the definition until Responses tool search loads it.
        custom_data_extractor: Agents SDK custom data hook, passed through.
        allowed_callers: "direct", "programmatic" or both.
        output_json_schema: A JSON object schema of the tool's output.
    """

    name: str
    description: str
    params_json_schema: dict[str, Any]
    on_invoke_tool: Callable[[ToolContext[Any], str], Awaitable[Any]]
    strict_json_schema: bool = True
    is_enabled: IsEnabled = True
    tool_input_guardrails: list[Any] | None = None
    tool_output_guardrails: list[Any] | None = None
    needs_approval: NeedsApproval = False
    timeout_seconds: float | None = None
    timeout_behavior: ToolTimeoutBehavior = "error_as_result"
    timeout_error_function: ToolErrorFunction | None = None
    defer_loading: bool = False
    custom_data_extractor: Callable[..., Any] | None = field(default=None, kw_only=True)
    allowed_callers: list[ToolCaller] | None = field(default=None, kw_only=True)
    output_json_schema: dict[str, Any] | None = field(default=None, kw_only=True)
    _output_type_adapter: TypeAdapter[Any] | None = field(default=None, kw_only=True, repr=False)
    _failure_error_function: ToolErrorFunction | None = field(
        default=None, kw_only=True, repr=False
    )
    _use_default_failure_error_function: bool = field(default=True, kw_only=True, repr=False)
    _return_annotation: Any = field(default=inspect.Signature.empty, kw_only=True, repr=False)
    _agents_tool: Any = field(default=None, kw_only=True, repr=False)

    def __post_init__(self) -> None:
        self.allowed_callers = _normalize_allowed_callers(self.allowed_callers, self.name)
        if self.output_json_schema is not None:
            self.output_json_schema = _normalize_output_json_schema(self.output_json_schema)
        if isinstance(self.on_invoke_tool, _invoker.FunctionInvoker):
            self.on_invoke_tool = self.on_invoke_tool.bind(self)
        if self.strict_json_schema:
            self.params_json_schema = ensure_strict_json_schema(
                copy.deepcopy(self.params_json_schema)
            )
        _validate_timeout_config(self)

    __wrapped__ = _WrappedCallable()

    @property
    def return_annotation(self) -> Any:
        """The wrapped function's return annotation (`inspect.Signature.empty` if none)."""
        return self._return_annotation

    def __copy__(self) -> FunctionTool:
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        FunctionTool.__post_init__(copied)
        return copied

    def to_agents(self) -> Any:
        """Return an `agents.FunctionTool` that runs this tool (imports `agents` here only)."""
        from .agents_interop import to_agents

        return to_agents(self)

    @classmethod
    def from_agents(cls, tool: Any) -> FunctionTool:
        """Take an Agents SDK `FunctionTool` (e.g. from `agent.as_tool()`) into toolwire."""
        from .agents_interop import from_agents

        return from_agents(tool)


def _normalize_allowed_callers(allowed: Any, tool_name: str) -> list[ToolCaller] | None:
    if allowed is None:
        return None
    if not isinstance(allowed, list) or not allowed:
        raise UserError(
            f"Tool `{tool_name}` allowed_callers must be a non-empty list containing "
            "'direct', 'programmatic', or both."
        )
    normalized: list[ToolCaller] = []
    for caller in allowed:
        if caller not in _TOOL_CALLERS:
            raise UserError(
                f"Tool `{tool_name}` allowed_callers contains unsupported caller {caller!r}. "
                "Expected 'direct' or 'programmatic'."
            )
        if caller in normalized:
            raise UserError(
                f"Tool `{tool_name}` allowed_callers contains duplicate caller {caller!r}."
            )
        normalized.append(caller)
    return normalized


def _normalize_output_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    from ._output_type import json_schema_is_object

    if not isinstance(schema, dict) or not json_schema_is_object(schema):
        raise UserError("Function tool output_json_schema must define a JSON object schema.")
    try:
        return ensure_strict_json_schema(copy.deepcopy(schema))
    except Exception as error:
        raise UserError(
            "Function tool output_json_schema must define a strict JSON object schema."
        ) from error


def _validate_timeout_config(tool: FunctionTool) -> None:
    timeout = tool.timeout_seconds
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise TypeError(
                "FunctionTool timeout_seconds must be a positive number in seconds or None."
            )
        timeout = float(timeout)
        if not math.isfinite(timeout):
            raise ValueError("FunctionTool timeout_seconds must be a finite number.")
        if timeout <= 0:
            raise ValueError("FunctionTool timeout_seconds must be greater than 0.")
        if getattr(tool.on_invoke_tool, "is_sync", False):
            raise ValueError(
                "FunctionTool timeout_seconds is only supported for async @function_tool handlers."
            )
        tool.timeout_seconds = timeout
    if tool.timeout_behavior not in _TIMEOUT_BEHAVIORS:
        raise ValueError(
            "FunctionTool timeout_behavior must be one of: " + ", ".join(_TIMEOUT_BEHAVIORS)
        )
    if tool.timeout_error_function is not None and not callable(tool.timeout_error_function):
        raise TypeError("FunctionTool timeout_error_function must be callable or None.")


@overload
def function_tool(
    func: Callable[..., Any],
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | object | None = UNSET_FAILURE_ERROR_FUNCTION,
    strict_mode: bool = True,
    is_enabled: IsEnabled = True,
    needs_approval: NeedsApproval = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
    timeout_behavior: ToolTimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
    defer_loading: bool = False,
    custom_data_extractor: Callable[..., Any] | None = None,
    allowed_callers: list[ToolCaller] | None = None,
    output_type: Any | None = None,
    output_json_schema: dict[str, Any] | None = None,
    lossless_docstring: bool = False,
) -> FunctionTool: ...


@overload
def function_tool(
    func: None = None,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | object | None = UNSET_FAILURE_ERROR_FUNCTION,
    strict_mode: bool = True,
    is_enabled: IsEnabled = True,
    needs_approval: NeedsApproval = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
    timeout_behavior: ToolTimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
    defer_loading: bool = False,
    custom_data_extractor: Callable[..., Any] | None = None,
    allowed_callers: list[ToolCaller] | None = None,
    output_type: Any | None = None,
    output_json_schema: dict[str, Any] | None = None,
    lossless_docstring: bool = False,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def function_tool(
    func: Callable[..., Any] | None = None,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: DocstringStyle | None = None,
    use_docstring_info: bool = True,
    failure_error_function: ToolErrorFunction | object | None = UNSET_FAILURE_ERROR_FUNCTION,
    strict_mode: bool = True,
    is_enabled: IsEnabled = True,
    needs_approval: NeedsApproval = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
    timeout_behavior: ToolTimeoutBehavior = "error_as_result",
    timeout_error_function: ToolErrorFunction | None = None,
    defer_loading: bool = False,
    custom_data_extractor: Callable[..., Any] | None = None,
    allowed_callers: list[ToolCaller] | None = None,
    output_type: Any | None = None,
    output_json_schema: dict[str, Any] | None = None,
    lossless_docstring: bool = False,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a function into a `FunctionTool`, exactly as the Agents SDK's `function_tool` does.

    Works as `@function_tool`, `@function_tool(...)` and `function_tool(fn, ...)`, on sync and
    async functions and on instances with a plain `__call__`. The name, description and JSON
    schema come from the signature and the docstring (google, numpy or sphinx, detected).

    Args:
        func: The function to wrap.
        name_override: The tool's name instead of the function's.
        description_override: The description instead of the docstring's.
        docstring_style: "google", "numpy" or "sphinx"; detected when None.
        use_docstring_info: Take the description and parameter descriptions from the docstring.
        failure_error_function: Formats the text the model sees when a call fails; None
            re-raises instead. Defaults to `default_tool_error_function`.
        strict_mode: Make the schema strict (every property required, no extra properties).
        is_enabled: A bool, or `(run_context, agent) -> bool` evaluated per run.
        needs_approval: Whether a call needs a human yes (bool or callable policy).
        tool_input_guardrails: Agents SDK input guardrails.
        tool_output_guardrails: Agents SDK output guardrails.
        timeout: Per-call timeout in seconds (async functions only, as in the SDK).
        timeout_behavior: "error_as_result" or "raise_exception".
        timeout_error_function: Formats the timeout text.
        defer_loading: Hide the tool until Responses tool search loads it.
        custom_data_extractor: Agents SDK custom data hook.
        allowed_callers: "direct", "programmatic" or both.
        output_type: A Python type describing (and validating) the output.
        output_json_schema: A JSON object schema of the output (exclusive with output_type).
        lossless_docstring: toolwire only: keep Returns, Raises, Examples and free text of the
            docstring in the description instead of dropping them.

    Returns:
        A `FunctionTool`, or a decorator that makes one.
    """

    def create(the_func: Callable[..., Any]) -> FunctionTool:
        original = the_func
        the_func, callable_description = normalize_function_tool_callable(
            the_func, docstring_style, name_override, use_docstring_info
        )
        is_sync = not inspect.iscoroutinefunction(the_func)
        schema_args: dict[str, Any] = {
            "name_override": name_override,
            "description_override": description_override
            or (callable_description if use_docstring_info else None),
            "docstring_style": docstring_style,
            "use_docstring_info": use_docstring_info,
            "strict_json_schema": strict_mode,
        }
        if lossless_docstring:  # only when asked: the SDK's function_schema has no such keyword
            schema_args["lossless_docstring"] = True
        fast = fast_function_schema(
            the_func, **{"lossless_docstring": lossless_docstring, **schema_args}
        )
        schema: FastSchema | FuncSchema
        if fast is None:
            schema = _function_schema(the_func, **schema_args)
            plan_schema: FuncSchema | Callable[[], FuncSchema] = schema
        else:
            # The model is built on the first call; it cannot fail for what the fast path takes.
            schema = fast
            plan_schema = functools.partial(_function_schema, the_func, **schema_args)
        resolved_output_schema, output_adapter = resolve_function_tool_output(
            return_annotation=schema.return_annotation,
            allowed_callers=allowed_callers,
            output_type=output_type,
            output_json_schema=output_json_schema,
        )
        plan = _invoker.CallPlan(
            the_func, plan_schema, is_sync=is_sync, output_adapter=output_adapter, wrapped=original
        )
        use_default = failure_error_function is UNSET_FAILURE_ERROR_FUNCTION
        return FunctionTool(
            name=schema.name,
            description=schema.description or "",
            params_json_schema=schema.params_json_schema,
            on_invoke_tool=_invoker.FunctionInvoker(plan),
            strict_json_schema=strict_mode,
            is_enabled=is_enabled,
            tool_input_guardrails=tool_input_guardrails,
            tool_output_guardrails=tool_output_guardrails,
            needs_approval=needs_approval,
            timeout_seconds=timeout,
            timeout_behavior=timeout_behavior,
            timeout_error_function=timeout_error_function,
            defer_loading=defer_loading,
            custom_data_extractor=custom_data_extractor,
            allowed_callers=allowed_callers,
            output_json_schema=resolved_output_schema,
            _output_type_adapter=output_adapter,
            _failure_error_function=None if use_default else failure_error_function,  # type: ignore[arg-type]
            _use_default_failure_error_function=use_default,
            _return_annotation=schema.return_annotation,
        )

    if callable(func):
        return create(func)
    return create


def _function_schema(func: Callable[..., Any], **options: Any) -> FuncSchema:
    # Imported here: it loads pydantic, which a tool decorated by the fast path (and a
    # server's start-up) does without until the tool's first call.
    from ..schema.function_schema import function_schema

    return function_schema(func, **options)
