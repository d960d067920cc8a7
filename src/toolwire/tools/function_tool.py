"""`FunctionTool` and `@function_tool`: the Agents SDK's fields, parameters and error texts.

`to_agents()` and `from_agents()` convert to and from the SDK's own class, the only places that
import the SDK.
"""

from __future__ import annotations

import copy
import functools
import inspect
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack, get_args, overload

from ..context import RunContextWrapper, ToolContext
from ..errors import UserError
from ..schema.docstrings import DocstringStyle
from ..schema.function_schema import FastSchema, FuncSchema, fast_function_schema, function_schema
from ..schema.strict import ensure_strict_json_schema
from ._instances import tool_target
from .failure import UNSET_FAILURE_ERROR_FUNCTION, ToolErrorFunction
from .invoke import CallPlan, FunctionInvoker, ToolTimeoutBehavior
from .tool_result import declared_output, strict_output_json_schema

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["FunctionTool", "function_tool"]


ToolCaller = Literal["direct", "programmatic"]
_TIMEOUT_BEHAVIORS: tuple[str, ...] = get_args(ToolTimeoutBehavior)
_TOOL_CALLERS: tuple[str, ...] = get_args(ToolCaller)

IsEnabled = bool | Callable[[RunContextWrapper[Any], Any], "bool | Awaitable[bool]"]
NeedsApproval = bool | Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]


class _WrappedCallable:
    """`tool.__wrapped__`: the callable given to `function_tool` (read-only, as in the SDK)."""

    def __get__(self, instance: FunctionTool | None, owner: type[Any] | None = None) -> Any:
        if instance is None:
            raise AttributeError("FunctionTool classes have no wrapped Python callable")
        invoker = instance.on_invoke_tool
        if not isinstance(invoker, FunctionInvoker):
            raise AttributeError("FunctionTool has no wrapped Python callable")
        return invoker.plan.wrapped

    def __set__(self, instance: FunctionTool, value: object) -> None:
        raise AttributeError("FunctionTool.__wrapped__ is read-only")


@dataclass
class FunctionTool:
    """A Python function published as a tool; usually built with `@function_tool`.

    Args:
        name: The tool's name, as shown to the model.
        description: What the tool does, as shown to the model.
        params_json_schema: The JSON schema of the arguments.
        on_invoke_tool: `async (ctx, arguments_json) -> output` (anything `str()` renders).
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
        self.allowed_callers = _checked_allowed_callers(self.allowed_callers, self.name)
        if self.output_json_schema is not None:
            self.output_json_schema = strict_output_json_schema(self.output_json_schema)
        if isinstance(self.on_invoke_tool, FunctionInvoker):
            self.on_invoke_tool = self.on_invoke_tool.bind(self)
        if self.strict_json_schema:
            self.params_json_schema = ensure_strict_json_schema(
                copy.deepcopy(self.params_json_schema)
            )
        self.timeout_seconds = _check_timeout_options(
            self.timeout_seconds,
            self.timeout_behavior,
            self.timeout_error_function,
            sync_handler=isinstance(self.on_invoke_tool, FunctionInvoker)
            and self.on_invoke_tool.plan.is_sync,
        )

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

        return from_agents(cls, tool)


class _Options(TypedDict, total=False):
    """`function_tool`'s keyword options, for its two typed call forms."""

    name_override: str | None
    description_override: str | None
    docstring_style: DocstringStyle | None
    use_docstring_info: bool
    failure_error_function: ToolErrorFunction | object | None
    strict_mode: bool
    is_enabled: IsEnabled
    needs_approval: NeedsApproval
    tool_input_guardrails: list[Any] | None
    tool_output_guardrails: list[Any] | None
    timeout: float | None
    timeout_behavior: ToolTimeoutBehavior
    timeout_error_function: ToolErrorFunction | None
    defer_loading: bool
    custom_data_extractor: Callable[..., Any] | None
    allowed_callers: list[ToolCaller] | None
    output_type: Any | None
    output_json_schema: dict[str, Any] | None
    lossless_docstring: bool


@overload
def function_tool(func: Callable[..., Any], **options: Unpack[_Options]) -> FunctionTool: ...


@overload
def function_tool(
    func: None = None, **options: Unpack[_Options]
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
    """Make a `FunctionTool` of a function, with the Agents SDK's `function_tool` semantics.

    Use it bare (`@function_tool`), with options (`@function_tool(timeout=5)`) or as a call
    (`function_tool(fn)`), on sync and async functions, methods, and instances whose class
    defines a plain `__call__`. Name, description and argument schema are read from the
    signature and the docstring as the SDK reads them. A failed call is logged for the author
    (docs/server.md, "When a tool fails").

    Args:
        func: What to make a tool of; leave it out to get a decorator.
        name_override: The tool's name, if not the function's (or the class's) name.
        description_override: The tool's description, if not the docstring's.
        docstring_style: "google", "numpy" or "sphinx"; None detects it.
        use_docstring_info: Whether the docstring describes the tool and its parameters.
        failure_error_function: Makes the model's text for a failed call (None: re-raise;
            unset: `default_tool_error_function`).
        strict_mode: Give a strict schema: every property required, no others allowed.
        is_enabled: A bool, or `(run_context, agent) -> bool` asked in each run.
        needs_approval: Whether a person must approve each call (a bool or a policy).
        tool_input_guardrails: Agents SDK input guardrails, kept for the SDK.
        tool_output_guardrails: Agents SDK output guardrails, kept for the SDK.
        timeout: Seconds a call may take (async functions only, as in the SDK).
        timeout_behavior: "error_as_result" (answer with text) or "raise_exception".
        timeout_error_function: Makes the text for a call that timed out.
        defer_loading: Leave the tool out until Responses tool search loads it.
        custom_data_extractor: The Agents SDK's custom data hook, kept for the SDK.
        allowed_callers: Who may call: "direct", "programmatic", or both.
        output_type: A Python type the result is described by and validated against.
        output_json_schema: A JSON object schema of the result (not with `output_type`).
        lossless_docstring: toolwire only: describe with every docstring section but Args.

    Returns:
        The `FunctionTool`, or, without `func`, a decorator that makes one.
    """

    def build(target: Callable[..., Any]) -> FunctionTool:
        function, description = tool_target(
            target,
            docstring_style=docstring_style,
            name_override=name_override,
            use_docstring_info=use_docstring_info,
        )
        schema_options: dict[str, Any] = {
            "name_override": name_override,
            "description_override": description_override or description,
            "docstring_style": docstring_style,
            "use_docstring_info": use_docstring_info,
            "strict_json_schema": strict_mode,
            "lossless_docstring": lossless_docstring,
        }
        schema: FastSchema | FuncSchema | None = fast_function_schema(function, **schema_options)
        deferred: FuncSchema | Callable[[], FuncSchema]
        if schema is None:
            schema = deferred = function_schema(function, **schema_options)
        else:
            # The fast path takes only signatures whose model cannot fail to build.
            deferred = functools.partial(function_schema, function, **schema_options)
        output_schema, output_adapter = declared_output(
            output_type,
            output_json_schema,
            return_annotation=schema.return_annotation,
            allowed_callers=allowed_callers,
        )
        default_failures = failure_error_function is UNSET_FAILURE_ERROR_FUNCTION
        plan = CallPlan(
            function,
            deferred,
            is_sync=not inspect.iscoroutinefunction(function),
            output_adapter=output_adapter,
            wrapped=target,
        )
        return FunctionTool(
            name=schema.name,
            description=schema.description or "",
            params_json_schema=schema.params_json_schema,
            on_invoke_tool=FunctionInvoker(plan),
            strict_json_schema=strict_mode,
            output_json_schema=output_schema,
            allowed_callers=allowed_callers,
            is_enabled=is_enabled,
            needs_approval=needs_approval,
            defer_loading=defer_loading,
            tool_input_guardrails=tool_input_guardrails,
            tool_output_guardrails=tool_output_guardrails,
            custom_data_extractor=custom_data_extractor,
            timeout_seconds=timeout,
            timeout_error_function=timeout_error_function,
            timeout_behavior=timeout_behavior,
            _output_type_adapter=output_adapter,
            _failure_error_function=None if default_failures else failure_error_function,  # type: ignore[arg-type]
            _use_default_failure_error_function=default_failures,
            _return_annotation=schema.return_annotation,
        )

    return build(func) if callable(func) else build


def _checked_allowed_callers(allowed: Any, tool_name: str) -> list[ToolCaller] | None:
    """`allowed_callers` as a list without repeats, or None; the SDK's refusals otherwise."""
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


def _check_timeout_options(
    timeout: Any, behavior: Any, error_function: Any, *, sync_handler: bool
) -> float | None:
    """`timeout_seconds` as a float or None, after the SDK's checks of the timeout settings."""
    seconds: float | None = None
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise TypeError(
                "FunctionTool timeout_seconds must be a positive number in seconds or None."
            )
        seconds = float(timeout)
        if not math.isfinite(seconds):
            raise ValueError("FunctionTool timeout_seconds must be a finite number.")
        if seconds <= 0:
            raise ValueError("FunctionTool timeout_seconds must be greater than 0.")
        if sync_handler:
            raise ValueError(
                "FunctionTool timeout_seconds is only supported for async @function_tool handlers."
            )
    if behavior not in _TIMEOUT_BEHAVIORS:
        raise ValueError(
            "FunctionTool timeout_behavior must be one of: " + ", ".join(_TIMEOUT_BEHAVIORS)
        )
    if error_function is not None and not callable(error_function):
        raise TypeError("FunctionTool timeout_error_function must be callable or None.")
    return seconds
