"""Which callables `function_tool` takes, beside `agents.function_tool`.

Each case hands the same callable to both decorators and compares what comes out: the
exception class and message of a refusal, or the tool's name, description and schema and what
calling it returns. The callables live at module level so that their string annotations
resolve against a real module, as they would in a user's code.
"""

from __future__ import annotations

import asyncio
import functools
import operator
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Any, Generic, ParamSpec, Self, TypeVar

import pytest
from agents import RunContextWrapper as SdkRunContextWrapper
from agents.tool_context import ToolContext as SdkToolContext
from typing_extensions import TypeAliasType

import toolwire

T = TypeVar("T")
P = ParamSpec("P")
IntAlias = TypeAliasType("IntAlias", int)


def plain(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


async def plain_async(a: int) -> int:
    return a * 10


def numbers(n: int) -> Iterator[int]:
    yield from range(n)


async def numbers_async(n: int) -> AsyncIterator[int]:
    for i in range(n):
        yield i


@functools.cache
def cached(a: int) -> int:
    """Cached square."""
    return a * a


class Adder:
    """Adds a fixed amount.

    Args:
        amount: What is added.
    """

    def __init__(self, amount: int = 1) -> None:
        self.amount = amount

    def __call__(self, a: int) -> int:
        """Add the amount to a.

        Args:
            a: The number to add to.
        """
        return a + self.amount

    def method(self, a: int) -> int:
        """A bound method."""
        return a - self.amount

    @classmethod
    def build(cls, amount: int) -> int:
        """A class method."""
        return amount * 2

    @staticmethod
    def static(a: int) -> int:
        return -a


class ClassDocOnly:
    """Only the class says what it does.

    Args:
        a: A number.
    """

    def __call__(self, a: int) -> int:
        return a


class CallDocOnly:
    def __call__(self, a: int) -> int:
        """Only __call__ says what it does.

        Args:
            a: A number.
        """
        return a


class AsyncCallable:
    """Multiplies, asynchronously."""

    async def __call__(self, a: int) -> int:
        await asyncio.sleep(0)
        return a * 3


class InheritsCall(Adder):
    """A subclass that keeps its parent's __call__."""


class WithContext:
    def __call__(self, ctx: SdkToolContext[Any], a: int) -> str:
        return f"{ctx.tool_name}:{a}"


class WithAnnotatedContext:
    def __call__(self, ctx: Annotated[SdkRunContextWrapper[Any], "meta"], a: int) -> str:
        return f"annotated:{a}"


class ContextSecond:
    def __call__(self, a: int, ctx: SdkToolContext[Any]) -> str:
        return str(a)


class ContextKeywordOnly:
    def __call__(self, *, ctx: SdkToolContext[Any], a: int) -> str:
        return str(a)


class GenericCallable(Generic[T]):
    def __call__(self, a: int) -> int:
        return a


class InheritsGenericCall(GenericCallable[int]):
    """Specialised, but __call__ is still defined on the generic class."""


class OverridesGenericCall(GenericCallable[int]):
    def __call__(self, a: int) -> int:
        return a + 100


class BadStringAnnotation:
    def __call__(self, a: "not valid python") -> int:  # type: ignore[name-defined]  # noqa: F722
        return 1


class MetadataTypeVar:
    def __call__(self, a: Annotated[int, T]) -> int:
        return a


class TypeVarAnnotation:
    def __call__(self, a: T) -> T:  # type: ignore[type-var]
        return a


class ReturnsSelf:
    def __call__(self, a: int) -> Self:
        return self


class AliasAnnotation:
    def __call__(self, a: IntAlias) -> int:
        return 1


class ParamSpecAnnotation:
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> int:
        return 1


class NestedTypeVar:
    def __call__(self, a: list[T]) -> int:  # type: ignore[valid-type]
        return 1


class Unresolvable:
    def __call__(self, a: Missing) -> int:  # type: ignore[name-defined]  # noqa: F821
        return 1


class UsesClassAttribute:
    Number = int

    def __call__(self, a: Number) -> int:  # type: ignore[valid-type]
        return 1


class UsesOwnName:
    def __call__(self, other: UsesOwnName | None = None) -> int:
        return 0


class StaticCall:
    __call__ = staticmethod(plain)


class BuiltinCall:
    __call__ = print


class NestedCallableCall:
    __call__ = Adder()


class PartialMethodCall:
    __call__ = functools.partialmethod(Adder.method, 1)


def _decorate_call(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def inner(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return inner


class WrappedCall:
    @_decorate_call
    def __call__(self, a: int) -> int:
        return a


class SignatureOnClass:
    __signature__ = None

    def __call__(self, a: int) -> int:
        return a


class Slotted:
    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 5

    def __call__(self, a: int) -> int:
        return a + self.n


class AsyncGeneratorCall:
    async def __call__(self, n: int) -> AsyncIterator[int]:
        for i in range(n):
            yield i


class KeywordsCall:
    def __call__(self, a: int, /, b: int, *args: int, c: int = 3, **kw: int) -> str:
        return f"{a}-{b}-{args}-{c}-{sorted(kw.items())}"


class Point:
    """A point, built from its coordinates."""

    def __init__(self, x: int, y: int = 0) -> None:
        self.x, self.y = x, y

    def __repr__(self) -> str:
        return f"Point({self.x}, {self.y})"


def _instance_with(**attributes: Any) -> Adder:
    instance = Adder()
    for key, value in attributes.items():
        setattr(instance, key, value)
    return instance


def _named(name: str) -> Any:
    return type(name, (Adder,), {})()


CASES: list[tuple[str, Callable[[], Any], dict[str, Any]]] = [
    ("function", lambda: plain, {}),
    ("async function", lambda: plain_async, {}),
    ("lambda", lambda: lambda a: a, {}),
    ("generator", lambda: numbers, {}),
    ("async generator", lambda: numbers_async, {}),
    ("functools.cache", lambda: cached, {}),
    ("bound method", lambda: Adder(5).method, {}),
    ("classmethod", lambda: Adder.build, {}),
    ("staticmethod", lambda: Adder.static, {}),
    ("bound __call__", lambda: Adder(4).__call__, {}),
    ("class", lambda: Point, {}),
    ("builtin with signature", lambda: abs, {}),
    ("builtin without signature", lambda: max, {}),
    ("partial", lambda: functools.partial(plain, 1), {}),
    ("partial of a method", lambda: functools.partial(Adder(1).method), {}),
    ("instance", lambda: Adder(3), {}),
    ("instance without docstrings", lambda: Adder(3), {"use_docstring_info": False}),
    ("instance, sphinx style", lambda: Adder(3), {"docstring_style": "sphinx"}),
    ("instance, named", lambda: Adder(3), {"name_override": "adder_tool"}),
    ("instance, described", lambda: Adder(3), {"description_override": "Over."}),
    ("class docstring only", ClassDocOnly, {}),
    ("__call__ docstring only", CallDocOnly, {}),
    ("async instance", AsyncCallable, {}),
    ("inherited __call__", lambda: InheritsCall(2), {}),
    ("context first", WithContext, {}),
    ("annotated context first", WithAnnotatedContext, {}),
    ("context second", ContextSecond, {}),
    ("context keyword-only", ContextKeywordOnly, {}),
    ("generic class", GenericCallable[int], {}),
    ("specialised generic, inherited __call__", InheritsGenericCall, {}),
    ("specialised generic, own __call__", OverridesGenericCall, {}),
    ("string annotation that is not Python", BadStringAnnotation, {}),
    ("TypeVar in Annotated metadata", MetadataTypeVar, {}),
    ("TypeVar annotation", TypeVarAnnotation, {}),
    ("TypeVar nested in a list", NestedTypeVar, {}),
    ("Self return", ReturnsSelf, {}),
    ("TypeAliasType annotation", AliasAnnotation, {}),
    ("ParamSpec annotation", ParamSpecAnnotation, {}),
    ("unresolvable annotation", Unresolvable, {}),
    ("class attribute in an annotation", UsesClassAttribute, {}),
    ("own class name in an annotation", UsesOwnName, {}),
    ("staticmethod __call__", StaticCall, {}),
    ("builtin __call__", BuiltinCall, {}),
    ("callable instance as __call__", NestedCallableCall, {}),
    ("partialmethod __call__", PartialMethodCall, {}),
    ("decorated __call__", WrappedCall, {}),
    ("__signature__ on the class", SignatureOnClass, {}),
    ("__wrapped__ on the instance", lambda: _instance_with(__wrapped__=plain), {}),
    ("__signature__ on the instance", lambda: _instance_with(__signature__=None), {}),
    ("__annotations__ on the instance", lambda: _instance_with(__annotations__={}), {}),
    ("instance with __slots__", Slotted, {}),
    ("async generator __call__", AsyncGeneratorCall, {}),
    ("every parameter kind", KeywordsCall, {"strict_mode": False}),
    ("operator.itemgetter", lambda: operator.itemgetter(0), {}),
    ("class name not ASCII", lambda: _named("Caf\u00e9"), {}),
    ("class name not ASCII, overridden", lambda: _named("Caf\u00e9"), {"name_override": "cafe"}),
    ("class name with a dot", lambda: _named("a.b"), {}),
    ("class name of 64 characters", lambda: _named("A" * 64), {}),
    ("class name of 65 characters", lambda: _named("A" * 65), {}),
    ("class name of 65, empty override", lambda: _named("A" * 65), {"name_override": ""}),
    ("class name with a hyphen", lambda: _named("my-tool"), {}),
]

ARGUMENTS = ['{"a": 4}', '{"a": 4, "b": 1}', '{"n": 3}', '{"x": 1, "y": 2}', "{}"]


def _describe(value: Any) -> Any:
    """A value comparable across implementations (generators and objects by type only)."""
    if isinstance(value, str | int | float | bool | type(None) | list | dict | tuple):
        return value
    return f"<{type(value).__name__}>"


def _decorate(
    decorator: Callable[..., Any], make: Callable[[], Any], options: dict[str, Any]
) -> Any:
    target = make()
    try:
        tool = decorator(target, failure_error_function=None, **options)
    except Exception as error:
        return ("raised", type(error).__name__, str(error)), None
    summary = ("ok", tool.name, tool.description, tool.params_json_schema)
    return summary, tool


def _call(tool: Any, arguments: str, sdk: bool) -> Any:
    context_type = SdkToolContext if sdk else toolwire.ToolContext
    ctx = context_type(None, tool_name=tool.name, tool_call_id="c1", tool_arguments=arguments)
    try:
        return ("ok", _describe(asyncio.run(tool.on_invoke_tool(ctx, arguments))))
    except Exception as error:
        return ("raised", type(error).__name__, str(error).split("\n")[0])


@pytest.mark.parametrize(("label", "make", "options"), CASES, ids=[case[0] for case in CASES])
def test_callables_are_taken_or_refused_as_the_sdk_does(
    label: str, make: Callable[[], Any], options: dict[str, Any]
) -> None:
    import agents

    theirs, sdk_tool = _decorate(agents.function_tool, make, options)
    mine, our_tool = _decorate(toolwire.function_tool, make, options)
    assert mine == theirs, label
    if sdk_tool is None:
        return
    for arguments in ARGUMENTS:
        assert _call(our_tool, arguments, sdk=False) == _call(sdk_tool, arguments, sdk=True), (
            label,
            arguments,
        )


def test_a_callable_instance_stays_the_wrapped_object() -> None:
    import agents

    instance = Adder(7)
    assert toolwire.function_tool(instance).__wrapped__ is instance
    assert agents.function_tool(instance).__wrapped__ is instance


def test_something_not_callable_gives_back_a_decorator_as_in_the_sdk() -> None:
    import agents

    for decorator in (agents.function_tool, toolwire.function_tool):
        made = decorator("not callable")  # type: ignore[call-overload]
        assert callable(made) and not hasattr(made, "params_json_schema")
        assert made(plain).name == "plain"
