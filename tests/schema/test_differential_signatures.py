"""Differential tests: `toolwire.function_tool` against `agents.function_tool` (openai-agents 0.24.0).

For every hand-written sample in `_signatures.py` both decorators must agree on name,
description, the *serialized* parameter schema (so key order counts) and strictness, or raise the
equivalent exception with the same message; and `on_invoke_tool` must return the same value or
raise the same exception for the same arguments, under the default failure function, under
`failure_error_function=None` and under a custom one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import warnings
from typing import TYPE_CHECKING, Annotated, Any

import pytest
from tests.schema._signatures import CASES, Case, agents_flavor

if TYPE_CHECKING:
    from tests.schema.conftest import Differential

FAILURE_MODES = ("default", "none", "custom")

# Arguments every successfully decorated case is invoked with, on top of its own `calls`.
GENERIC_CALLS = {
    "empty_string": "",
    "invalid_json": "{not json",
    "non_object_array": "[1, 2]",
    "non_object_null": "null",
    "non_object_string": '"x"',
    "empty_object": "{}",
}

# Cases where the SDK names only the function; toolwire must also name the parameter, so its
# message may extend the SDK's (the SDK text stays a prefix).
CONTEXT_NOT_FIRST = {
    "context_not_first_raises": ("ctx_second", "ctx"),
    "tool_context_not_first_raises": ("tctx_third", "tc"),
}


def _sdk_decorates(case: Case) -> bool:
    import agents

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            agents.function_tool(**case.options)(case.build(agents_flavor()))
    except Exception:
        return False
    return True


DECORATED = [case for case in CASES if _sdk_decorates(case)]
INVOCATIONS = [
    pytest.param(case, label, args, mode, id=f"{case.id}-{label}-{mode}")
    for case in DECORATED
    for label, args in {**GENERIC_CALLS, **case.calls}.items()
    for mode in FAILURE_MODES
]

_PAIRS: dict[tuple[str, str], tuple[Any, Any]] = {}


def _pair(diff: Differential, case: Case, mode: str) -> tuple[Any, Any]:
    key = (case.id, mode)
    if key not in _PAIRS:
        _PAIRS[key] = diff.build_pair(case, mode)
    return _PAIRS[key]


def test_there_are_enough_hand_written_cases() -> None:
    assert len(CASES) >= 60
    assert len({case.id for case in CASES}) == len(CASES)
    assert len(DECORATED) < len(CASES), "some cases must exercise decoration-time errors"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.id not in CONTEXT_NOT_FIRST], ids=lambda c: c.id
)
def test_decoration_matches_sdk(diff: Differential, case: Case) -> None:
    sdk_outcome, tw_outcome = diff.decorations(case)
    if sdk_outcome[0] == "tool":
        # Field by field first, so a failure says which part differs.
        assert tw_outcome[0] == "tool", (
            f"toolwire raised {tw_outcome[1:]}; the SDK built {sdk_outcome}"
        )
        assert tw_outcome[1] == sdk_outcome[1], "name"
        assert tw_outcome[2] == sdk_outcome[2], "description"
        assert json.loads(tw_outcome[3]) == json.loads(sdk_outcome[3]), "schema content"
        assert tw_outcome[3] == sdk_outcome[3], "schema key order"
        assert tw_outcome[4] == sdk_outcome[4], "strict_json_schema"
    assert tw_outcome == sdk_outcome


@pytest.mark.parametrize("case_id", sorted(CONTEXT_NOT_FIRST))
@pytest.mark.parametrize("flavor", ["own", "sdk_classes"])
def test_context_not_first_raises_user_error_naming_function_and_parameter(
    diff: Differential, case_id: str, flavor: str
) -> None:
    case = next(c for c in CASES if c.id == case_id)
    func_name, param = CONTEXT_NOT_FIRST[case_id]
    sdk_outcome = diff.sdk.decoration_outcome(case.build(diff.sdk.flavor), case.options)
    tw_flavor = diff.tw.flavor if flavor == "own" else diff.sdk.flavor
    tw_outcome = diff.tw.decoration_outcome(case.build(tw_flavor), case.options)
    assert sdk_outcome == (
        "raised",
        "sdk-equivalent.UserError",
        f"RunContextWrapper/ToolContext param found at non-first position in function {func_name}",
    )
    assert tw_outcome[:2] == sdk_outcome[:2]
    assert tw_outcome[2].startswith(sdk_outcome[2])
    assert func_name in tw_outcome[2]
    assert param in tw_outcome[2][len(sdk_outcome[2]) :], (
        "toolwire's message must name the parameter"
    )


@pytest.mark.parametrize("case", [c for c in DECORATED if c.flavored], ids=lambda c: c.id)
def test_toolwire_accepts_sdk_context_classes(diff: Differential, case: Case) -> None:
    """A function written against `agents.RunContextWrapper` works unchanged with toolwire."""
    sdk_outcome = diff.sdk.decoration_outcome(case.build(diff.sdk.flavor), case.options)
    tw_outcome = diff.tw.decoration_outcome(case.build(diff.sdk.flavor), case.options)
    assert tw_outcome == sdk_outcome
    sdk_tool = diff.sdk.decorate(case.build(diff.sdk.flavor), case.options)
    tw_tool = diff.tw.decorate(case.build(diff.sdk.flavor), case.options)
    for args in case.calls.values():
        assert diff.tw.invoke(tw_tool, args) == diff.sdk.invoke(sdk_tool, args)


@pytest.mark.parametrize(("case", "label", "args", "mode"), INVOCATIONS)
def test_invocation_matches_sdk(
    diff: Differential, case: Case, label: str, args: str, mode: str
) -> None:
    sdk_result, tw_result = diff.invocations(_pair(diff, case, mode), args)
    assert tw_result == sdk_result


@pytest.mark.parametrize("mode", FAILURE_MODES)
def test_decorator_without_parentheses_equals_with_empty_parentheses(
    diff: Differential, mode: str
) -> None:
    case = next(c for c in CASES if c.id == "defaults_int_str")
    target = case.build(diff.tw.flavor)
    bare = diff.tw.function_tool(target)
    called = diff.tw.function_tool()(target)
    assert (bare.name, bare.description, json.dumps(bare.params_json_schema)) == (
        called.name,
        called.description,
        json.dumps(called.params_json_schema),
    )


def test_function_tool_public_fields_in_sdk_order() -> None:
    from agents import FunctionTool as SdkFunctionTool

    from toolwire import FunctionTool

    def public(cls: Any) -> list[str]:
        return [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]

    assert public(FunctionTool) == public(SdkFunctionTool)


@pytest.mark.parametrize("mode", FAILURE_MODES)
def test_failure_function_sees_equivalent_exception(diff: Differential, mode: str) -> None:
    """The error handed to a failure function (or raised) has the equivalent class on both sides."""
    case = next(c for c in CASES if c.id == "defaults_int_str")
    sdk_tool, tw_tool = _pair(diff, case, mode)
    seen: dict[str, Any] = {}

    def spy(ctx: Any, error: Exception) -> str:
        seen[type(ctx).__module__.split(".")[0]] = (
            type(error).__module__,
            type(error).__name__,
            str(error),
        )
        return "spied"

    sdk_spy = diff.sdk.decorate(case.build(diff.sdk.flavor), case.options, spy)
    tw_spy = diff.tw.decorate(case.build(diff.tw.flavor), case.options, spy)
    assert (
        diff.sdk.invoke(sdk_spy, "{not json")
        == diff.tw.invoke(tw_spy, "{not json")
        == ("ok", ("builtins.str", "'spied'"))
    )
    assert seen == {
        "agents": ("agents.exceptions", "ModelBehaviorError", "Invalid JSON input for tool add"),
        "toolwire": ("toolwire.errors", "ModelBehaviorError", "Invalid JSON input for tool add"),
    }
    assert diff.tw.invoke(tw_tool, "{}") == diff.sdk.invoke(sdk_tool, "{}")


def test_async_failure_function_and_none_result(diff: Differential) -> None:
    """An awaitable result is awaited; a failure function that returns None re-raises."""
    case = next(c for c in CASES if c.id == "raising_body")

    async def async_failure(ctx: Any, error: Exception) -> str:
        await asyncio.sleep(0)
        return f"async: {error}"

    def returns_none(ctx: Any, error: Exception) -> None:
        return None

    for failure, expected in (
        (async_failure, ("ok", ("builtins.str", "'async: secret detail'"))),
        (returns_none, ("raised", "builtins.RuntimeError", "secret detail")),
    ):
        sdk_tool = diff.sdk.decorate(case.build(diff.sdk.flavor), case.options, failure)
        tw_tool = diff.tw.decorate(case.build(diff.tw.flavor), case.options, failure)
        assert diff.sdk.invoke(sdk_tool, '{"a": 1}') == expected
        assert diff.tw.invoke(tw_tool, '{"a": 1}') == expected


# -- the SDK's documented surprises (agents-sdk.md §0), pinned literally on both sides -------

DEFAULT_ERROR = "An error occurred while running the tool. Please try again."
ADD_SCHEMA = (
    '{"properties": {"a": {"title": "A", "type": "integer"}, "b": {"default": 2, "title": "B", "type": "integer"}, '
    '"label": {"default": "sum", "title": "Label", "type": "string"}}, "required": ["a", "b", "label"], '
    '"title": "add_args", "type": "object", "additionalProperties": false}'
)


@pytest.fixture(params=["agents", "toolwire"])
def impl(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue("sdk" if request.param == "agents" else "tw")


def _add(a: int, b: int = 2) -> int:
    return a + b


def _boom(a: int) -> int:
    raise RuntimeError("secret detail")


def test_default_error_text_is_fixed_and_hides_the_exception(impl: Any) -> None:
    if impl.name == "agents":
        from agents import default_tool_error_function
    else:
        from toolwire import default_tool_error_function
    ctx = impl.context("add", "{}")
    assert default_tool_error_function(ctx, RuntimeError("secret detail")) == DEFAULT_ERROR
    add = impl.decorate(_add, {})
    boom = impl.decorate(_boom, {})
    for tool, args in (
        (add, "{not json"),
        (add, "{}"),
        (add, '{"a": "x"}'),
        (add, "[1]"),
        (boom, '{"a": 1}'),
    ):
        assert impl.invoke(tool, args) == ("ok", ("builtins.str", repr(DEFAULT_ERROR)))


def test_failure_function_none_raises_and_differs_from_unset(impl: Any) -> None:
    if impl.name == "agents":
        from agents import default_tool_error_function
    else:
        from toolwire import default_tool_error_function
    raising = impl.decorate(_add, {"name_override": "add"}, None)
    mbe = "sdk-equivalent.ModelBehaviorError"
    assert impl.invoke(raising, "{not json") == ("raised", mbe, "Invalid JSON input for tool add")
    assert impl.invoke(raising, "{}") == ("raised", mbe, "Invalid JSON input for tool add")
    assert impl.invoke(raising, "") == ("raised", mbe, "Invalid JSON input for tool add")
    assert impl.invoke(raising, '{"a": "x"}') == ("raised", mbe, "Invalid JSON input for tool add")
    assert impl.invoke(raising, "[1,2]") == (
        "raised",
        mbe,
        "Invalid JSON input for tool add: expected a JSON object",
    )
    assert impl.invoke(impl.decorate(_boom, {}, None), '{"a": 1}') == (
        "raised",
        "builtins.RuntimeError",
        "secret detail",
    )
    explicit_default = impl.decorate(_add, {}, default_tool_error_function)
    assert impl.invoke(explicit_default, "{}") == ("ok", ("builtins.str", repr(DEFAULT_ERROR)))


def test_custom_failure_function_sees_redacted_message(impl: Any) -> None:
    def custom(ctx: Any, error: Exception) -> str:
        return f"custom: {type(error).__name__}: {error}"

    tool = impl.decorate(_add, {"name_override": "add_custom"}, custom)
    expected = "custom: ModelBehaviorError: Invalid JSON input for tool add_custom"
    assert impl.invoke(tool, "{not json") == ("ok", ("builtins.str", repr(expected)))


def test_strict_keeps_non_null_defaults_and_requires_everything(impl: Any) -> None:
    def add(a: int, b: int = 2, label: str = "sum") -> str:
        """Add two integers."""
        return f"{label}={a + b}"

    tool = impl.decorate(add, {})
    assert (tool.name, tool.description, tool.strict_json_schema) == (
        "add",
        "Add two integers.",
        True,
    )
    assert json.dumps(tool.params_json_schema) == ADD_SCHEMA


def test_strict_strips_only_null_defaults(impl: Any) -> None:
    def f(limit: int | None = None) -> Any:
        return limit

    strict = impl.decorate(f, {})
    loose = impl.decorate(f, {"strict_mode": False})
    assert strict.params_json_schema["properties"]["limit"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "title": "Limit",
    }
    assert strict.params_json_schema["required"] == ["limit"]
    assert loose.params_json_schema["properties"]["limit"]["default"] is None
    assert "required" not in loose.params_json_schema


def test_strict_rejects_open_dicts(impl: Any) -> None:
    def total(rows: list[dict[str, int]]) -> int:
        return 0

    with pytest.raises(Exception) as info:
        impl.decorate(total, {})
    assert exc_name(info.value) == "sdk-equivalent.UserError"
    assert str(info.value).startswith("additionalProperties should not be set for object types.")
    assert impl.decorate(total, {"strict_mode": False}).strict_json_schema is False


def exc_name(error: BaseException) -> str:
    module = type(error).__module__
    prefix = "sdk-equivalent" if module in {"agents.exceptions", "toolwire.errors"} else module
    return f"{prefix}.{type(error).__name__}"


def test_on_invoke_tool_returns_raw_values_not_strings(impl: Any) -> None:
    add = impl.decorate(_add, {})
    ctx = impl.context("_add", '{"a": 1}')
    result = asyncio.run(add.on_invoke_tool(ctx, '{"a": 1}'))
    assert result == 3
    assert type(result) is int

    def nothing() -> None:
        return None

    assert (
        asyncio.run(impl.decorate(nothing, {}).on_invoke_tool(impl.context("nothing", ""), ""))
        is None
    )


def test_timeout_only_for_async_functions(impl: Any) -> None:
    with pytest.raises(
        ValueError,
        match=r"^FunctionTool timeout_seconds is only supported for async @function_tool handlers\.$",
    ):
        impl.decorate(_add, {"timeout": 1})

    async def slow(a: int) -> int:
        return a

    assert impl.decorate(slow, {"timeout": 1}).timeout_seconds == 1


def test_lax_coercion_extra_keys_and_empty_string(impl: Any) -> None:
    add = impl.decorate(_add, {})
    assert impl.invoke(add, '{"a": "3"}') == ("ok", ("builtins.int", "5"))
    assert impl.invoke(add, '{"a": 1, "zzz": 2}') == ("ok", ("builtins.int", "3"))

    def optional(a: int = 1) -> int:
        return a

    assert impl.invoke(impl.decorate(optional, {}), "") == ("ok", ("builtins.int", "1"))


def test_names_are_not_sanitized_and_titles_follow_the_override(impl: Any) -> None:
    tool = impl.decorate(_add, {"name_override": "has space!"})
    assert tool.name == "has space!"
    assert tool.params_json_schema["title"] == "has space!_args"
    assert tool.description == ""


def test_docstring_beats_annotated_string(impl: Any) -> None:
    def f(note: Annotated[str, "from annotated"], other: Annotated[str, "annotated other"]) -> str:
        """Doc.

        Args:
            note: from docstring
        """
        return note

    props = impl.decorate(f, {}).params_json_schema["properties"]
    assert props["note"]["description"] == "from docstring"
    assert props["other"]["description"] == "annotated other"


def test_required_follows_additional_properties_when_pydantic_emits_none(impl: Any) -> None:
    def e2(*items: int, flag: bool = False) -> Any:
        return items

    keys = list(impl.decorate(e2, {}).params_json_schema)
    assert keys == ["properties", "title", "type", "additionalProperties", "required"]


# -- every strict case again with strict_mode=False ------------------------------------------

NONSTRICT_VARIANTS = [
    dataclasses.replace(
        case, id=f"{case.id}~nonstrict", options={**case.options, "strict_mode": False}
    )
    for case in CASES
    if "strict_mode" not in case.options and case.id not in CONTEXT_NOT_FIRST
]


@pytest.mark.parametrize("case", NONSTRICT_VARIANTS, ids=lambda c: c.id)
def test_nonstrict_variant_matches_sdk(diff: Differential, case: Case) -> None:
    sdk_outcome, tw_outcome = diff.decorations(case)
    assert tw_outcome == sdk_outcome
    if sdk_outcome[0] == "tool":
        sdk_tool, tw_tool = diff.build_pair(case, "none")
        for args in case.calls.values():
            assert diff.tw.invoke(tw_tool, args) == diff.sdk.invoke(sdk_tool, args), args


def test_decorated_tool_option_fields_match_sdk(diff: Differential) -> None:
    async def slow(a: int) -> int:
        return a

    def approve(ctx: Any, params: dict[str, Any], call_id: str) -> bool:
        return True

    def enabled(ctx: Any, agent: Any) -> bool:
        return True

    options: dict[str, Any] = {
        "timeout": 2.5,
        "timeout_behavior": "raise_exception",
        "needs_approval": approve,
        "is_enabled": enabled,
        "defer_loading": True,
    }
    fields = [
        "timeout_seconds",
        "timeout_behavior",
        "needs_approval",
        "is_enabled",
        "defer_loading",
        "strict_json_schema",
    ]
    for opts in ({}, options):
        sdk_tool = diff.sdk.decorate(slow, opts)
        tw_tool = diff.tw.decorate(slow, opts)
        assert [getattr(tw_tool, f) for f in fields] == [getattr(sdk_tool, f) for f in fields]


# -- the schema layer on its own: function_schema and ensure_strict_json_schema ----------------

_SCHEMA_OPTIONS = {"name_override", "description_override", "docstring_style", "use_docstring_info"}
SCHEMA_CASES = [
    c for c in CASES if callable(c.target) and hasattr(c.target, "__code__") and not c.flavored
]


def _schema_outcome(function_schema: Any, func: Any, options: dict[str, Any]) -> tuple[Any, ...]:
    kwargs = {k: v for k, v in options.items() if k in _SCHEMA_OPTIONS}
    kwargs["strict_json_schema"] = options.get("strict_mode", True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fs = function_schema(func, **kwargs)
    except Exception as error:
        return ("raised", exc_name(error), str(error))
    return (
        fs.name,
        fs.description,
        json.dumps(fs.params_json_schema),
        fs.takes_context,
        fs.strict_json_schema,
        str(fs.signature),
        repr(fs.return_annotation),
    )


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=lambda c: c.id)
def test_function_schema_matches_sdk(case: Case) -> None:
    from agents.function_schema import function_schema as sdk_function_schema

    from toolwire.schema.function_schema import function_schema

    sdk = _schema_outcome(sdk_function_schema, case.target, case.options)
    assert _schema_outcome(function_schema, case.target, case.options) == sdk


LOOSE_BUILDABLE = [
    c
    for c in CASES
    if _sdk_decorates(dataclasses.replace(c, options={**c.options, "strict_mode": False}))
]


@pytest.mark.parametrize("case", LOOSE_BUILDABLE, ids=lambda c: c.id)
def test_ensure_strict_json_schema_matches_sdk(sdk: Any, case: Case) -> None:
    """Make each case's non-strict schema strict with both implementations."""
    import copy

    from agents.strict_schema import ensure_strict_json_schema as sdk_strict

    from toolwire import ensure_strict_json_schema

    options = {**case.options, "strict_mode": False}
    loose = sdk.decorate(case.build(sdk.flavor), options).params_json_schema
    outcomes = []
    for strict in (sdk_strict, ensure_strict_json_schema):
        try:
            outcomes.append(("ok", json.dumps(strict(copy.deepcopy(loose)))))
        except Exception as error:
            outcomes.append(("raised", exc_name(error), str(error)))
    assert outcomes[1] == outcomes[0]
