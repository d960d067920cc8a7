"""Harness for the differential tests: build a tool with either implementation, describe outcomes.

Outcomes are reduced to plain comparable values so a test can assert `sdk == toolwire` and get a
readable diff: a decoration is `("tool", name, description, schema_json, strict)` or
`("raised", class_key, message)`; an invocation is `("ok", canonical_value)` or
`("raised", class_key, message)`. Exceptions from `agents.exceptions` and `toolwire.errors` share
a class key (`sdk-equivalent.UserError`, ...) so that "toolwire raises its equivalent class" is
an equality check.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel
from tests.schema._signatures import Case, Flavor, agents_flavor, toolwire_flavor

UNSET: Any = object()
CALL_ID = "c1"
_EQUIVALENT_MODULES = {"agents.exceptions", "toolwire.errors"}


def custom_failure(ctx: Any, error: Exception) -> str:
    """A custom failure_error_function that exposes what it was given."""
    return f"custom: {type(error).__name__}: {error} (ctx={type(ctx).__name__}:{ctx.tool_name})"


def exc_key(error: BaseException) -> str:
    """A class key that is equal for the SDK's exception classes and toolwire's equivalents."""
    cls = type(error)
    if cls.__module__ in _EQUIVALENT_MODULES:
        return f"sdk-equivalent.{cls.__name__}"
    return f"{cls.__module__}.{cls.__qualname__}"


def canon(value: Any) -> Any:
    """A comparable, implementation-neutral description of a Python value."""
    if hasattr(value, "tool_call_id") and hasattr(value, "context"):
        return (
            "context",
            type(value).__name__,
            value.tool_name,
            value.tool_call_id,
            value.tool_arguments,
            value.context,
        )
    if isinstance(value, BaseModel):
        return (type(value).__qualname__, canon(dict(value.__dict__)))
    if isinstance(value, dict):
        return ("dict", [(canon(k), canon(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [canon(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(repr(canon(v)) for v in value))
    if " at 0x" in repr(value) and hasattr(value, "__dict__"):
        # A plain object: its identity differs between the two runs, its state must not.
        return (f"{type(value).__module__}.{type(value).__qualname__}", canon(dict(vars(value))))
    return (f"{type(value).__module__}.{type(value).__qualname__}", repr(value))


@dataclass(frozen=True)
class Impl:
    """One implementation under comparison."""

    name: str
    flavor: Flavor
    function_tool: Any
    tool_context: Any

    def decorate(self, target: Any, options: dict[str, Any], failure: Any = UNSET) -> Any:
        kwargs = dict(options)
        if failure is not UNSET:
            kwargs["failure_error_function"] = failure
        with warnings.catch_warnings():
            # pydantic warns when a parameter shadows a BaseModel attribute; that case is deliberate.
            warnings.simplefilter("ignore", UserWarning)
            return self.function_tool(**kwargs)(target) if kwargs else self.function_tool(target)

    def decoration_outcome(self, target: Any, options: dict[str, Any]) -> tuple[Any, ...]:
        try:
            tool = self.decorate(target, options)
        except Exception as error:
            return ("raised", exc_key(error), str(error))
        return (
            "tool",
            tool.name,
            tool.description,
            json.dumps(tool.params_json_schema),
            tool.strict_json_schema,
        )

    def context(self, tool_name: str, args: str) -> Any:
        if self.name == "agents":
            return self.tool_context(
                context=None, tool_name=tool_name, tool_call_id=CALL_ID, tool_arguments=args
            )
        return self.tool_context(
            None, tool_name=tool_name, tool_call_id=CALL_ID, tool_arguments=args
        )

    def invoke(self, tool: Any, args: str) -> tuple[Any, ...]:
        ctx = self.context(tool.name, args)
        try:
            result = asyncio.run(tool.on_invoke_tool(ctx, args))
        except Exception as error:
            return ("raised", exc_key(error), str(error))
        return ("ok", canon(result))


def failure_for(mode: str) -> Any:
    """The failure_error_function argument for a mode: unset, None or `custom_failure`."""
    return {"default": UNSET, "none": None, "custom": custom_failure}[mode]


@dataclass(frozen=True)
class Differential:
    """Both implementations, side by side."""

    sdk: Impl
    tw: Impl

    @staticmethod
    def failure(mode: str) -> Any:
        return failure_for(mode)

    def decorations(self, case: Case) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return (
            self.sdk.decoration_outcome(case.build(self.sdk.flavor), case.options),
            self.tw.decoration_outcome(case.build(self.tw.flavor), case.options),
        )

    def build_pair(self, case: Case, mode: str = "default") -> tuple[Any, Any]:
        """Decorate the case with both implementations (raises if either fails)."""
        failure = failure_for(mode)
        return (
            self.sdk.decorate(case.build(self.sdk.flavor), case.options, failure),
            self.tw.decorate(case.build(self.tw.flavor), case.options, failure),
        )

    def invocations(
        self, pair: tuple[Any, Any], args: str
    ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return self.sdk.invoke(pair[0], args), self.tw.invoke(pair[1], args)


@pytest.fixture(scope="session")
def sdk() -> Impl:
    """openai-agents 0.24.0."""
    import agents
    from agents.tool_context import ToolContext

    return Impl("agents", agents_flavor(), agents.function_tool, ToolContext)


@pytest.fixture(scope="session")
def tw() -> Impl:
    """toolwire, through its public API."""
    import toolwire

    return Impl("toolwire", toolwire_flavor(), toolwire.function_tool, toolwire.ToolContext)


@pytest.fixture(scope="session")
def diff(sdk: Impl, tw: Impl) -> Differential:
    return Differential(sdk, tw)
