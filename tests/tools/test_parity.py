"""toolwire.function_tool beside agents.function_tool: invocation, failures, options, rejections.

Each test builds the same tool with both implementations and compares what comes out
(return values, exception classes and messages), as in agents-sdk.md §9.2.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import toolwire
from toolwire import ToolContext, function_tool
from toolwire.tools.invoke import invoke_tool

GENERIC = "An error occurred while running the tool. Please try again."
TEN_MB = 10 * 1024 * 1024


def outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    """("ok", value) or ("raised", class name, message), comparable across implementations."""
    try:
        value = call()
    except Exception as error:
        return ("raised", type(error).__name__, str(error))
    return ("ok", value)


def sdk_ctx(name: str, args: str) -> Any:
    from agents.tool_context import ToolContext as SdkToolContext

    return SdkToolContext(None, tool_name=name, tool_call_id="call_1", tool_arguments=args)


def tw_ctx(name: str, args: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name=name, tool_call_id="call_1", tool_arguments=args)


def pair(source: str, **options: Any) -> tuple[Any, Any]:
    """The same function decorated by the SDK and by toolwire."""
    import agents

    tools = []
    for decorator in (agents.function_tool, toolwire.function_tool):
        namespace: dict[str, Any] = {}
        exec("from typing import Any\n" + source, namespace)
        func = next(v for k, v in namespace.items() if inspect.isfunction(v) and k != "Any")
        tools.append(decorator(func, **options))
    return tools[0], tools[1]


def invoke_both(sdk: Any, ours: Any, args: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    theirs = outcome(lambda: asyncio.run(sdk.on_invoke_tool(sdk_ctx(sdk.name, args), args)))
    mine = outcome(lambda: asyncio.run(ours.on_invoke_tool(tw_ctx(ours.name, args), args)))
    return theirs, mine


@pytest.fixture(params=["redacted", "details"])
def tool_data(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both logging settings, for both implementations (the SDK reads its flag at import)."""
    import agents._debug

    details = request.param == "details"
    monkeypatch.setattr(agents._debug, "DONT_LOG_TOOL_DATA", not details)
    monkeypatch.delenv("TOOLWIRE_LOG_TOOL_DATA", raising=False)
    if details:
        monkeypatch.setenv("OPENAI_AGENTS_DONT_LOG_TOOL_DATA", "0")
    else:
        monkeypatch.delenv("OPENAI_AGENTS_DONT_LOG_TOOL_DATA", raising=False)
    yield request.param


ADD = "def add(a: int, b: int = 2) -> int:\n    return a + b\n"
RAISES = "def add(a: int, b: int = 2) -> int:\n    raise RuntimeError('secret detail')\n"
TABLE = [
    '{"a": 1}',
    "",
    "{not json",
    "{}",
    "[1,2]",
    '"just a string"',
    "null",
    '{"a": "x"}',
    '{"a": "3"}',
    '{"a": 1, "zzz": 2}',
    '{"a": 1.0}',
    '{"a": 1.5}',
    '{"a": true}',
    '{"a": null}',
    '{"a": 1} trailing',
    '{"a": NaN}',
    "\ufeff{}",
]


@pytest.mark.parametrize("args", TABLE)
@pytest.mark.parametrize("failure", ["unset", None], ids=["default", "none"])
@pytest.mark.parametrize("strict", [True, False], ids=["strict", "loose"])
def test_on_invoke_tool_table_matches_sdk(
    tool_data: str, args: str, failure: Any, strict: bool
) -> None:
    options: dict[str, Any] = {"strict_mode": strict}
    if failure is None:
        options["failure_error_function"] = None
    sdk, ours = pair(ADD, **options)
    theirs, mine = invoke_both(sdk, ours, args)
    assert mine == theirs


@pytest.mark.parametrize("failure", ["unset", None], ids=["default", "none"])
def test_body_exception_matches_sdk(tool_data: str, failure: Any) -> None:
    options = {} if failure == "unset" else {"failure_error_function": None}
    sdk, ours = pair(RAISES, **options)
    theirs, mine = invoke_both(sdk, ours, '{"a": 1}')
    assert mine == theirs
    assert mine == (
        ("ok", GENERIC) if failure == "unset" else ("raised", "RuntimeError", "secret detail")
    )


def test_toolwire_alias_turns_details_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_AGENTS_DONT_LOG_TOOL_DATA", raising=False)
    _, ours = pair(ADD, failure_error_function=None)
    ctx = tw_ctx("add", "{not json")
    redacted = outcome(lambda: asyncio.run(ours.on_invoke_tool(ctx, "{not json")))
    assert redacted == ("raised", "ModelBehaviorError", "Invalid JSON input for tool add")
    monkeypatch.setenv("TOOLWIRE_LOG_TOOL_DATA", "1")
    detailed = outcome(lambda: asyncio.run(ours.on_invoke_tool(ctx, "{not json")))
    assert detailed == (
        "raised",
        "ModelBehaviorError",
        "Invalid JSON input for tool add: {not json",
    )


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_custom_failure_functions_match_sdk(tool_data: str, kind: str) -> None:
    def sync_formatter(ctx: Any, error: Exception) -> str:
        return f"custom: {type(error).__name__}: {error} [{ctx.tool_name}]"

    async def async_formatter(ctx: Any, error: Exception) -> str:
        await asyncio.sleep(0)
        return sync_formatter(ctx, error)

    formatter = sync_formatter if kind == "sync" else async_formatter
    for source in (ADD, RAISES):
        sdk, ours = pair(source, failure_error_function=formatter)
        for args in ("{not json", "{}", '{"a": "x"}', '{"a": 1}'):
            theirs, mine = invoke_both(sdk, ours, args)
            assert mine == theirs
            assert mine[0] == "ok"


def test_a_formatter_returning_none_reraises_like_the_sdk() -> None:
    sdk, ours = pair(RAISES, failure_error_function=lambda ctx, error: None)
    theirs, mine = invoke_both(sdk, ours, '{"a": 1}')
    assert mine == theirs == ("raised", "RuntimeError", "secret detail")


@pytest.mark.parametrize("strict", [True, False])
def test_unknown_and_wrong_arguments_match_sdk(tool_data: str, strict: bool) -> None:
    source = "def pick(name: str, *, count: int = 1, tags: list[str] | None = None) -> str:\n    return name * count + str(tags)\n"
    sdk, ours = pair(source, strict_mode=strict, failure_error_function=None)
    for args in (
        '{"name": "x", "extra": {"deep": [1]}}',
        '{"name": "x", "count": "2", "tags": ["a"]}',
        '{"name": 5}',
        '{"name": "x", "tags": "a"}',
        '{"name": "x", "count": 2.5}',
        '{"count": 2}',
    ):
        theirs, mine = invoke_both(sdk, ours, args)
        assert mine == theirs, args


@pytest.mark.parametrize("payload", ["string", "invalid_json", "array"])
def test_ten_megabyte_arguments_match_sdk(tool_data: str, payload: str) -> None:
    big = "x" * TEN_MB
    args = {
        "string": json.dumps({"n": big}),
        "invalid_json": '{"n": "' + big,
        "array": json.dumps({"n": 1, "extra": [0] * (TEN_MB // 3)}),
    }[payload]
    sdk, ours = pair("def count(n: int) -> int:\n    return n\n", failure_error_function=None)
    theirs, mine = invoke_both(sdk, ours, args)
    assert mine == theirs
    if payload == "array":
        assert mine == ("ok", 1)  # unknown keys are ignored, however large
        return
    kind, cls, message = mine
    assert (kind, cls) == ("raised", "ModelBehaviorError")
    assert message.startswith("Invalid JSON input for tool count")
    if tool_data == "details" and payload == "string":
        assert "1 validation error for count_args\nn\n" in message  # names the parameter
        assert len(message) < 2000  # pydantic truncates the echoed input
    if tool_data == "redacted":
        assert message == "Invalid JSON input for tool count"


def test_ten_megabytes_through_invoke_tool_is_an_error_outcome() -> None:
    @function_tool
    def count(n: int) -> int:
        return n

    args = json.dumps({"n": "x" * TEN_MB})
    result = asyncio.run(invoke_tool(count, tw_ctx("count", args), args))
    assert result.output == GENERIC and result.is_error
    assert str(result.error) == "Invalid JSON input for tool count"


def test_function_tool_parameters_are_the_sdks_plus_lossless_docstring() -> None:
    import agents

    ours = inspect.signature(toolwire.function_tool).parameters
    theirs = inspect.signature(agents.function_tool).parameters
    assert list(ours) == [*theirs, "lossless_docstring"]
    for name, param in theirs.items():
        assert ours[name].kind == param.kind, name
        if name == "failure_error_function":  # a private sentinel on both sides
            assert ours[name].default is not None and param.default is not None
            assert type(ours[name].default) is type(param.default) is object
        else:
            assert ours[name].default == param.default, name
    assert ours["lossless_docstring"].default is False


def _rejections() -> list[tuple[str, Callable[[Any], Any]]]:
    def plain(a: int) -> int:
        return a

    async def plain_async(a: int) -> int:
        return a

    @functools.wraps(plain)
    def wrapped(*args: Any, **kwargs: Any) -> int:
        return plain(*args, **kwargs)

    class Wrapper:
        __wrapped__ = plain

        def __call__(self, a: int) -> int:
            return a

    # A class name the SDK refuses as a tool name (not ASCII).
    bad_name = type("Bad_Name_\u00e9", (), {"__call__": lambda self, a: a})

    return [
        ("partial", lambda ft: ft(functools.partial(plain, 1))),
        ("wraps instance", lambda ft: ft(Wrapper())),
        ("bad class name", lambda ft: ft(bad_name())),
        ("timeout on sync", lambda ft: ft(plain, timeout=1)),
        ("timeout bool", lambda ft: ft(plain_async, timeout=True)),
        ("timeout zero", lambda ft: ft(plain_async, timeout=0)),
        ("timeout inf", lambda ft: ft(plain_async, timeout=float("inf"))),
        ("timeout str", lambda ft: ft(plain_async, timeout="1")),
        ("timeout behavior", lambda ft: ft(plain_async, timeout_behavior="explode")),
        ("timeout formatter", lambda ft: ft(plain_async, timeout_error_function=3)),
        ("callers empty", lambda ft: ft(plain, allowed_callers=[])),
        ("callers unknown", lambda ft: ft(plain, allowed_callers=["robot"])),
        ("callers duplicate", lambda ft: ft(plain, allowed_callers=["direct", "direct"])),
        ("both outputs", lambda ft: ft(plain, output_type=dict, output_json_schema={})),
        ("output not object", lambda ft: ft(plain, output_json_schema={"type": "string"})),
        ("output_type int", lambda ft: ft(plain, output_type=int)),
        (
            "output open object",
            lambda ft: ft(plain, output_json_schema={"type": "object", "additionalProperties": {}}),
        ),
        ("programmatic int", lambda ft: ft(plain, allowed_callers=["programmatic"])),
        ("wrapped function ok", lambda ft: ft(wrapped).name),
    ]


@pytest.mark.parametrize(("label", "build"), _rejections(), ids=[r[0] for r in _rejections()])
def test_rejections_match_sdk(label: str, build: Callable[[Any], Any]) -> None:
    import agents

    theirs = outcome(lambda: build(agents.function_tool))
    mine = outcome(lambda: build(toolwire.function_tool))
    assert mine == theirs, label


def test_wrapped_copy_and_hand_built_tools() -> None:
    import agents

    def plain(a: int) -> int:
        return a

    ours, theirs = toolwire.function_tool(plain), agents.function_tool(plain)
    assert ours.__wrapped__ is plain and theirs.__wrapped__ is plain
    for tool in (ours, theirs):
        with pytest.raises(AttributeError, match="read-only"):
            tool.__wrapped__ = plain  # type: ignore[misc]
    with pytest.raises(AttributeError, match="FunctionTool classes have no wrapped"):
        _ = toolwire.FunctionTool.__wrapped__

    async def handler(ctx: Any, args: str) -> str:
        return args

    hand = toolwire.FunctionTool("h", "", {"properties": {"x": {"type": "integer"}}}, handler)
    with pytest.raises(AttributeError, match="FunctionTool has no wrapped Python callable"):
        _ = hand.__wrapped__
    sdk_hand = agents.FunctionTool("h", "", {"properties": {"x": {"type": "integer"}}}, handler)
    assert hand.params_json_schema == sdk_hand.params_json_schema  # strict rewrite of a copy

    # A copy resolves its failure policy against itself, as in the SDK.
    twin = copy.copy(toolwire.function_tool(lambda: 1 / 0, name_override="boom"))
    twin._failure_error_function = lambda ctx, error: f"twin: {type(error).__name__}"
    twin._use_default_failure_error_function = False
    assert asyncio.run(twin.on_invoke_tool(tw_ctx("boom", ""), "")) == "twin: ZeroDivisionError"


def test_invoke_tool_outcomes_for_each_failure_policy() -> None:
    async def formatter(ctx: Any, error: Exception) -> str:
        return f"async: {error}"

    def body(a: int) -> int:
        if a < 0:
            raise ValueError("negative")
        return a

    cases = [
        (toolwire.function_tool(body), GENERIC),
        (toolwire.function_tool(body, failure_error_function=formatter), "async: negative"),
        (toolwire.function_tool(body, failure_error_function=None), GENERIC),
    ]
    for tool, failure_text in cases:
        ok = asyncio.run(invoke_tool(tool, tw_ctx("body", '{"a": 2}'), '{"a": 2}'))
        assert (ok.output, ok.error) == (2, None)
        bad = asyncio.run(invoke_tool(tool, tw_ctx("body", '{"a": -1}'), '{"a": -1}'))
        assert bad.output == failure_text
        assert isinstance(bad.error, ValueError) and str(bad.error) == "negative"


def test_programmatic_calls_of_output_schema_tools_reraise_like_the_sdk() -> None:
    import agents

    def typed(a: int) -> dict[str, int]:
        raise RuntimeError("typed failure")

    schema = {"type": "object", "properties": {"v": {"type": "integer"}}}
    call = {"caller": {"type": "program"}}
    for module in (agents, toolwire):
        tool = module.function_tool(typed, output_json_schema=schema)
        ctx = sdk_ctx("typed", '{"a": 1}') if module is agents else tw_ctx("typed", '{"a": 1}')
        ctx.tool_call = call
        with pytest.raises(RuntimeError, match="typed failure"):
            asyncio.run(tool.on_invoke_tool(ctx, '{"a": 1}'))
        ctx.tool_call = None
        assert asyncio.run(tool.on_invoke_tool(ctx, '{"a": 1}')) == GENERIC


def test_output_type_validation_matches_sdk(tool_data: str) -> None:
    from pydantic import BaseModel

    class Point(BaseModel):
        x: int

    def good() -> Any:
        return {"x": "3"}

    def bad() -> Any:
        return {"x": "no"}

    import agents

    for func in (good, bad):
        sdk = agents.function_tool(func, output_type=Point, failure_error_function=None)
        ours = toolwire.function_tool(func, output_type=Point, failure_error_function=None)
        assert ours.output_json_schema == sdk.output_json_schema
        theirs, mine = invoke_both(sdk, ours, "{}")
        assert repr(mine) == repr(theirs)
