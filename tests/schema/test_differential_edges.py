"""Edges of `function_schema` the other differential suites did not pin, against the SDK.

Each case is compiled once per implementation (each with its own context classes) and run
through `agents.function_schema.function_schema` and `toolwire.schema.function_schema`, strict
and not: both must give the same name, description, serialized schema, context flag,
signature and return annotation, or raise the equivalent exception with the same message.
Where a schema is built, validated arguments are mapped back with `to_call_args` on both
sides and must give the same call (or the same error).

Covered here: `*args` in all its spellings, `**kwargs` whose keys repeat a named parameter or
a property, keyword-only and positional-only mixes, parameter names that are pydantic
internals, mutable defaults, descriptions given in several places at once (docstring,
`Annotated` string, `Field` in the metadata, `Field` default), context parameters in every
position, and docstrings: sections with no blank line above, entries over several lines,
unknown names, mixed styles, and generated docstrings of all three styles.
"""

from __future__ import annotations

import itertools
import json
import warnings
from typing import Annotated, Any, Optional, Tuple  # noqa: UP035 - spelled as authors do

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from tests.schema._signatures import Flavor, agents_flavor, toolwire_flavor
from tests.schema.conftest import canon, exc_key


class Item(BaseModel):
    label: str
    weight: float = 1.0


NAMESPACE: dict[str, Any] = {
    "Annotated": Annotated,
    "Any": Any,
    "Field": Field,
    "Optional": Optional,
    "Tuple": Tuple,  # noqa: UP006
    "Item": Item,
}


def compile_tool(source: str, flavor: Flavor, doc: str | None = None) -> Any:
    """`source` defines `f`; it is compiled with the flavor's context classes in scope."""
    namespace = {
        **NAMESPACE,
        "RunContextWrapper": flavor.RunContextWrapper,
        "ToolContext": flavor.ToolContext,
    }
    exec(source, namespace)
    func = namespace["f"]
    if doc is not None:
        func.__doc__ = doc
    return func


def _schema_fns() -> tuple[Any, Any]:
    from agents.function_schema import function_schema as sdk_function_schema

    from toolwire.schema.function_schema import function_schema

    return sdk_function_schema, function_schema


def _describe(schema_fn: Any, func: Any, options: dict[str, Any]) -> tuple[Any, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # pydantic: shadowed BaseModel names
            built = schema_fn(func, **options)
    except Exception as error:
        return ("raised", exc_key(error), str(error)), None
    outcome = (
        built.name,
        built.description,
        json.dumps(built.params_json_schema),
        built.takes_context,
        str(built.signature),
        repr(built.return_annotation),
    )
    return outcome, built


def _call(built: Any, data: dict[str, Any]) -> tuple[Any, ...]:
    try:
        parsed = built.params_pydantic_model(**data)
        args, kwargs = built.to_call_args(parsed)
    except Exception as error:
        return ("raised", exc_key(error), str(error))
    return ("ok", canon(args), canon(kwargs))


def compare(
    source: str,
    *,
    doc: str | None = None,
    calls: tuple[dict[str, Any], ...] = (),
    **options: Any,
) -> list[Any]:
    """Assert both implementations agree on `source` (strict and not); return the outcomes."""
    sdk_fn, tw_fn = _schema_fns()
    seen = []
    for strict in (True, False):
        opts = {**options, "strict_json_schema": strict}
        sdk_outcome, sdk_built = _describe(sdk_fn, compile_tool(source, agents_flavor(), doc), opts)
        tw_outcome, tw_built = _describe(tw_fn, compile_tool(source, toolwire_flavor(), doc), opts)
        assert tw_outcome == sdk_outcome, (source, strict)
        seen.append(sdk_outcome)
        if sdk_built is None:
            continue
        for data in calls:
            assert _call(tw_built, data) == _call(sdk_built, data), (source, strict, data)
    return seen


# -- *args ------------------------------------------------------------------------------------

VAR_POSITIONAL = {
    "int": "def f(*xs: int): return xs",
    "unannotated": "def f(*xs): return xs",
    "any": "def f(*xs: Any): return xs",
    "optional_items": "def f(*xs: Optional[int]): return xs",
    "list_items": "def f(*xs: list[int]): return xs",
    "homogeneous_tuple": "def f(*xs: tuple[int, ...]): return xs",
    "typing_homogeneous_tuple": "def f(*xs: Tuple[int, ...]): return xs",
    "bare_tuple": "def f(*xs: tuple): return xs",
    "bare_typing_tuple": "def f(*xs: Tuple): return xs",
    "fixed_tuple_raises": "def f(*xs: tuple[int, str]): return xs",
    "typing_fixed_tuple_raises": "def f(*xs: Tuple[int, str]): return xs",
    "one_item_tuple_raises": "def f(*xs: tuple[int]): return xs",
    "empty_tuple_raises": "def f(*xs: tuple[()]): return xs",
    "annotated_fixed_tuple_raises": 'def f(*xs: Annotated[tuple[int, str], "pairs"]): return xs',
    "annotated_bare_typing_tuple": 'def f(*xs: Annotated[Tuple, "anything"]): return xs',
    "annotated_string": 'def f(*xs: Annotated[int, "each number"]): return xs',
    "annotated_empty_string": 'def f(*xs: Annotated[int, ""]): return xs',
    "annotated_field_constrains_items": (
        'def f(*xs: Annotated[int, Field(ge=1, description="ignored")]): return xs'
    ),
    "model_items": "def f(*xs: Item): return xs",
    "after_positional": "def f(a: int, /, b: str, *xs: float): return a, b, xs",
    "before_keyword_only": "def f(a: int, *xs: int, flag: bool = False): return a, xs, flag",
    "named_args": "def f(*args: int, **kwargs: str): return args, kwargs",
}


@pytest.mark.parametrize("source", VAR_POSITIONAL.values(), ids=VAR_POSITIONAL.keys())
def test_var_positional_matches_sdk(source: str) -> None:
    compare(
        source,
        calls=(
            {},
            {"xs": [1, 2]},
            {"xs": [[1, 2], [3]]},
            {"xs": [{"label": "x"}]},
            {"a": 1, "b": "s", "xs": [0.5], "flag": True},
            {"args": [1], "kwargs": {"k": "v"}},
            {"xs": "not a list"},
        ),
    )


def test_fixed_tuple_message_names_the_bare_tuple() -> None:
    outcomes = compare(VAR_POSITIONAL["annotated_fixed_tuple_raises"])
    assert outcomes[0][0] == "raised"
    assert "the fixed-length tuple `tuple[int, str]`" in outcomes[0][2]


# -- **kwargs: keys that repeat a named parameter or a property -------------------------------

VAR_KEYWORD = {
    "plain": ("def f(a: int, **kw: int): return a, kw", ({"a": 1, "kw": {"b": 2}},)),
    "repeats_named": (
        "def f(a: int, b: int = 0, **kw: int): return a, b, kw",
        (
            {"a": 1, "kw": {"a": 2}},
            {"a": 1, "kw": {"b": 2, "a": 3}},
            {"a": 1, "kw": {"kw": 4}},
            {"a": 1, "b": 2, "kw": {"c": 3}},
        ),
    ),
    "repeats_keyword_only_sorted": (
        "def f(z: int, *, y: int, **kw: int): return z, y, kw",
        ({"z": 1, "y": 2, "kw": {"z": 3, "y": 4}}, {"z": 1, "y": 2, "kw": {"y": 3}}),
    ),
    "positional_only_may_repeat": (
        "def f(a: int, /, **kw: int): return a, kw",
        ({"a": 1, "kw": {"a": 2}},),
    ),
    "flat_key_is_refused": ("def f(a: int, **kw: int): return a, kw", ({"a": 1, "b": 2},)),
    "alias_is_the_holder_name": (
        'def f(a: Annotated[int, Field(alias="kw")], **kw: int): return a, kw',
        ({"kw": 1}, {"kw": {"x": 1}}, {"a": 1, "kw": {"a": 2}}),
    ),
    "alias_of_another_parameter": (
        'def f(a: Annotated[int, Field(alias="b")], **kw: int): return a, kw',
        ({"b": 1, "kw": {"b": 2}}, {"b": 1, "kw": {"a": 2}}),
    ),
    "parameter_named_kwargs": (
        "def f(kwargs: int, **extra: int): return kwargs, extra",
        ({"kwargs": 1, "extra": {"kwargs": 2}}, {"kwargs": 1, "extra": {"extra": 2}}),
    ),
    "unannotated": ("def f(**kw): return kw", ({"kw": {"a": [1], "b": None}},)),
    "annotated_string": (
        'def f(**kw: Annotated[int, Field(ge=1), "each value"]): return kw',
        ({"kw": {"a": 1}}, {"kw": {"a": 0}}),
    ),
    "with_var_positional": (
        "def f(a: int, *rest: int, key: str = 'k', **kw: Any): return a, rest, key, kw",
        ({"a": 1, "rest": [2, 3], "kw": {"z": 1}}, {"a": 1, "kw": {"key": "x"}}),
    ),
}


@pytest.mark.parametrize(("source", "calls"), VAR_KEYWORD.values(), ids=VAR_KEYWORD.keys())
def test_var_keyword_matches_sdk(source: str, calls: tuple[dict[str, Any], ...]) -> None:
    outcomes = compare(source, calls=calls)
    assert outcomes[0][0] == "raised"  # **kwargs never makes a strict schema


# -- keyword-only, positional-only ------------------------------------------------------------

KINDS = {
    "positional_only": "def f(a: int, b: str = 'x', /): return a, b",
    "keyword_only": "def f(*, a: int, b: str = 'x'): return a, b",
    "all_kinds": "def f(a: int, /, b: int, *, c: int = 3): return a, b, c",
    "all_kinds_with_variadics": (
        "def f(a: int, /, b: int = 2, *c: int, d: int, e: int = 5, **g: int): return a, b, c, d, e, g"
    ),
}


@pytest.mark.parametrize("source", KINDS.values(), ids=KINDS.keys())
def test_parameter_kinds_match_sdk(source: str) -> None:
    compare(
        source,
        calls=(
            {"a": 1},
            {"a": 1, "b": 2, "c": [3], "d": 4},
            {"a": 1, "b": "y"},
            {"a": 1, "b": 2, "d": 4, "g": {"h": 8}},
            {"a": 1, "b": 2, "d": 4, "g": {"e": 8}},
        ),
    )


# -- names pydantic treats specially ----------------------------------------------------------

RESERVED = sorted(
    {name for name in dir(BaseModel) if not name.startswith("_")}
    | {"model_config", "fields", "schema", "json", "__private", "_private"}
    # create_model's own keywords: `__base__` is refused, with the SDK's TypeError
    | {"__base__", "__config__", "__validators__", "__cls_kwargs__", "__doc__"}
)


@pytest.mark.parametrize("name", RESERVED)
def test_parameter_named_like_a_pydantic_internal_matches_sdk(name: str) -> None:
    compare(
        f"def f({name}: int, other: str = 'o'): return {name}, other",
        calls=({name: 1}, {name: 2, "other": "x"}),
    )


# -- mutable and model defaults ---------------------------------------------------------------

DEFAULTS = {
    "list": "def f(xs: list = []): return xs",
    "typed_list": "def f(xs: list[int] = [1, 2]): return xs",
    "dict": "def f(d: dict = {'k': [1]}): return d",
    "set": "def f(s: set = {1}): return s",
    "model_instance": "def f(item: Item = Item(label='x')): return item",
    "untyped_mutable": "def f(a=[], b={}): return a, b",
    "field_default_factory": "def f(xs: list[int] = Field(default_factory=list)): return xs",
}


@pytest.mark.parametrize("source", DEFAULTS.values(), ids=DEFAULTS.keys())
def test_mutable_defaults_match_sdk(source: str) -> None:
    compare(source, calls=({}, {"xs": [3]}, {"item": {"label": "y"}}, {"a": [1]}))


# -- descriptions given in several places -----------------------------------------------------

ANNOTATIONS = {
    "plain": "int",
    "string": 'Annotated[int, "s"]',
    "empty_string": 'Annotated[int, ""]',
    "strings": 'Annotated[int, "first", "second"]',
    "field": 'Annotated[int, Field(description="fa")]',
    "field_then_string": 'Annotated[int, Field(description="fa"), "s"]',
    "string_then_field": 'Annotated[int, "s", Field(description="fa")]',
    "empty_string_then_field": 'Annotated[int, "", Field(description="fa")]',
    "constraint": "Annotated[int, Field(ge=1)]",
    "two_fields": 'Annotated[int, Field(description="fa"), Field(description="fb")]',
    "nested_in_optional": 'Optional[Annotated[int, Field(description="fa")]]',
    "other_metadata": 'Annotated[int, 5, "s"]',
}
DEFAULT_FORMS = {
    "required": "",
    "value": " = 3",
    "field": " = Field(3)",
    "field_described": ' = Field(3, description="dd")',
    "field_required_described": ' = Field(description="dd")',
    "field_empty_description": ' = Field(3, description="")',
}
DOCS = {
    "undocumented": None,
    "documented_empty": "S.\n\nArgs:\n    x:\n",
    "documented": "S.\n\nArgs:\n    x: from the docstring\n",
}


@pytest.mark.parametrize(
    ("annotation", "default", "doc"),
    list(itertools.product(ANNOTATIONS.values(), DEFAULT_FORMS.values(), DOCS.values())),
    ids=[
        "-".join(parts)
        for parts in itertools.product(ANNOTATIONS.keys(), DEFAULT_FORMS.keys(), DOCS.keys())
    ],
)
def test_description_precedence_matches_sdk(annotation: str, default: str, doc: str | None) -> None:
    compare(f"def f(x: {annotation}{default}): return x", doc=doc)


def test_description_precedence_also_without_docstring_info() -> None:
    for annotation, default in itertools.product(ANNOTATIONS.values(), DEFAULT_FORMS.values()):
        compare(
            f"def f(x: {annotation}{default}): return x",
            doc=DOCS["documented"],
            use_docstring_info=False,
        )


# -- context parameters -----------------------------------------------------------------------

CONTEXT_NOT_FIRST = {
    "second": "def f(a: int, ctx: RunContextWrapper): return a",
    "tool_context_second": "def f(a: int, ctx: ToolContext[Any]): return a",
    "annotated": 'def f(a: int, ctx: Annotated[RunContextWrapper, "c"]): return a',
    "both": "def f(ctx: RunContextWrapper, more: ToolContext): return 1",
    "var_positional": "def f(a: int, *ctx: RunContextWrapper): return a",
    "var_keyword": "def f(a: int, **ctx: ToolContext): return a",
    "keyword_only": "def f(a: int, *, ctx: RunContextWrapper): return a",
    "before_a_bad_tuple": "def f(*xs: tuple[int, str], ctx: RunContextWrapper): return 1",
}


@pytest.mark.parametrize("source", CONTEXT_NOT_FIRST.values(), ids=CONTEXT_NOT_FIRST.keys())
def test_context_after_the_first_parameter_raises_like_the_sdk(source: str) -> None:
    sdk_fn, tw_fn = _schema_fns()
    sdk_outcome, _ = _describe(sdk_fn, compile_tool(source, agents_flavor()), {})
    tw_outcome, _ = _describe(tw_fn, compile_tool(source, toolwire_flavor()), {})
    assert sdk_outcome[:2] == tw_outcome[:2] == ("raised", "sdk-equivalent.UserError")
    # toolwire says which parameter it was after the SDK's own sentence.
    assert tw_outcome[2].startswith(sdk_outcome[2])
    assert "(parameter `" in tw_outcome[2]


CONTEXT_FIRST = {
    "plain": "def f(ctx: RunContextWrapper, a: int): return a",
    "parametrised": "def f(ctx: RunContextWrapper[Any], a: int): return a",
    "annotated": 'def f(ctx: Annotated[ToolContext, "c"], a: int): return a',
    "string": 'def f(ctx: "RunContextWrapper", a: int): return a',
    "positional_only": "def f(ctx: RunContextWrapper, /, a: int): return a",
    "keyword_only": "def f(*, ctx: RunContextWrapper, a: int): return a",
    "var_positional": "def f(*ctx: RunContextWrapper): return 1",
    "alone": "def f(ctx: ToolContext): return 1",
    "repeated_by_kwargs": "def f(ctx: RunContextWrapper, a: int, **kw: int): return a",
}


@pytest.mark.parametrize("source", CONTEXT_FIRST.values(), ids=CONTEXT_FIRST.keys())
def test_context_in_first_position_matches_sdk(source: str) -> None:
    compare(source, calls=({"a": 1}, {"a": 1, "kw": {"ctx": 2}}, {"a": 1, "kw": {"a": 2}}))


NOT_A_CONTEXT = {
    "optional": "def f(ctx: Optional[RunContextWrapper], a: int): return a",
    "optional_parametrised": "def f(ctx: Optional[ToolContext[Any]], a: int): return a",
    "union_second": "def f(a: int, ctx: RunContextWrapper | None = None): return a",
    "list": "def f(a: int, ctxs: list[RunContextWrapper]): return a",
    "subclass": "def f(ctx: Sub, a: int): return a",
    "tool_context_subclass": "def f(ctx: SubTool, a: int): return a",
    "subclass_as_string": 'def f(ctx: "Sub", a: int): return a',
    "subclass_second": "def f(a: int, ctx: Sub): return a",
    "subclass_in_annotated": 'def f(ctx: Annotated[Optional[Sub], "c"], a: int): return a',
}


@pytest.mark.parametrize("source", NOT_A_CONTEXT.values(), ids=NOT_A_CONTEXT.keys())
def test_other_context_annotations_are_refused(source: str) -> None:
    """Only the context classes themselves (parametrised or Annotated) mark the context.

    Like the SDK, toolwire does not take any other form as the context; the SDK then turns the
    parameter into an argument the model fills in (or, in strict mode, fails on its context
    dataclass with `UserError`). toolwire refuses it with `UserError` in both modes, naming the
    parameter: an argument the caller fills in would be a forged context.
    """
    sdk_fn, tw_fn = _schema_fns()
    for fn, flavor in ((sdk_fn, agents_flavor()), (tw_fn, toolwire_flavor())):
        NAMESPACE["Sub"] = type("Sub", (flavor.RunContextWrapper,), {})
        NAMESPACE["SubTool"] = type("SubTool", (flavor.ToolContext,), {})
        try:
            for strict in (True, False):
                outcome, _ = _describe(
                    fn, compile_tool(source, flavor), {"strict_json_schema": strict}
                )
                # neither side ever takes the context from such a parameter
                assert outcome[0] == "raised" or outcome[3] is False, outcome
                if fn is tw_fn:
                    assert outcome[:2] == ("raised", "sdk-equivalent.UserError"), outcome
                    assert "Parameter `ctx" in outcome[2], outcome
                    assert "forge" in outcome[2], outcome
        finally:
            del NAMESPACE["Sub"], NAMESPACE["SubTool"]


def test_the_sdks_strict_default_refuses_a_subclassed_context_too() -> None:
    """Under the default (strict) schema the SDK raises `UserError` for a subclass or an
    `Optional` of its `RunContextWrapper`, as toolwire does in every mode."""
    sdk_fn, _ = _schema_fns()
    flavor = agents_flavor()
    NAMESPACE["Sub"] = type("Sub", (flavor.RunContextWrapper,), {})
    try:
        for key in ("optional", "subclass", "subclass_second", "union_second"):
            outcome, _ = _describe(sdk_fn, compile_tool(NOT_A_CONTEXT[key], flavor), {})
            assert outcome[:2] == ("raised", "sdk-equivalent.UserError"), (key, outcome)
    finally:
        del NAMESPACE["Sub"]


def _session_class() -> Any:
    from toolwire import RunContextWrapper

    class _Session(RunContextWrapper[Any]):
        pass

    return _Session


_Session = _session_class()


def test_a_caller_cannot_forge_the_context_of_a_subclass_parameter() -> None:
    """Before the refusal, a tool whose first parameter was a context subclass registered and
    built its "context" from the call's JSON arguments."""
    import toolwire
    from toolwire.errors import UserError

    def whoami(ctx: _Session, a: int) -> str:
        return repr(ctx.context)

    with pytest.raises(UserError, match=r"Parameter `ctx` of function whoami .*_Session\)"):
        toolwire.function_tool(whoami)


# -- callables that are not functions --------------------------------------------------------


class _Annotated:
    """Instances expose the class's annotations, so `get_type_hints` accepts them."""

    label: str

    def __call__(self, a: int, **kw: int) -> int:
        return a


@pytest.mark.parametrize(
    "options",
    [{}, {"name_override": "named"}, {"name_override": "named", "use_docstring_info": False}],
)
def test_callable_object_without_a_name_matches_sdk(options: dict[str, Any]) -> None:
    sdk_fn, tw_fn = _schema_fns()
    for strict in (True, False):
        opts = {**options, "strict_json_schema": strict}
        assert _describe(tw_fn, _Annotated(), opts)[0] == _describe(sdk_fn, _Annotated(), opts)[0]


# -- docstrings -------------------------------------------------------------------------------

PARAMS = "def f(city: str, unit: str = 'C', *args: int, **kwargs: str): return city"

DOCSTRINGS = {
    "google_args_under_prose": "Fetch.\nArgs:\n    city: The city.\n    unit: The unit.",
    "google_returns_under_args": "Fetch.\n\nArgs:\n    city: The city.\nReturns:\n    Weather.",
    "google_raises_under_prose": "Fetch.\nRaises:\n    ValueError: bad city.",
    "google_note_under_prose": "Fetch.\nNote:\n    Cached.\nArgs:\n    city: c",
    "google_header_indented_under_prose": "Fetch.\n  Args:\n    city: c",
    "google_header_with_trailing_space": "Fetch.\nArgs:  \n    city: c",
    "google_parameters_header": "Fetch.\nParameters:\n    city: c",
    "google_header_then_blank_line": "Fetch.\nArgs:\n\n    city: c",
    "numpy_header_under_prose": "Fetch.\nParameters\n----------\ncity : str\n    The city.",
    "sphinx_field_under_prose": "Fetch.\n:param city: The city.\n:param unit: The unit.",
    "multi_line_entry": (
        "Fetch.\n\nArgs:\n    city: The city,\n        written in full.\n    unit: The unit."
    ),
    "multi_paragraph_entry": (
        "Fetch.\n\nArgs:\n    city: The city.\n\n        More about the city.\n    unit: u."
    ),
    "deeper_continuation": "Fetch.\n\nArgs:\n    city: The\n            city.\n    unit: u.",
    "numpy_multi_line_entry": (
        "Fetch.\n\nParameters\n----------\ncity : str\n    The city,\n    in full.\nunit : str\n"
        "    The unit."
    ),
    "sphinx_multi_line_entry": ":param city: The city,\n    in full.\n:param unit: The unit.",
    "unknown_google_name": "Fetch.\n\nArgs:\n    town: Not a parameter.\n    city: The city.",
    "unknown_numpy_name": "Fetch.\n\nParameters\n----------\ntown : str\n    Not a parameter.",
    "unknown_sphinx_name": "Fetch.\n\n:param town: Not a parameter.\n:param city: c",
    "starred_names": "Fetch.\n\nArgs:\n    *args: Numbers.\n    **kwargs: Names.\n    ***city: c",
    "numpy_and_sphinx": (
        "Fetch.\n\nParameters\n----------\ncity : str\n    numpy city.\n\n:param unit: sphinx."
    ),
    "sphinx_outvotes_numpy": (
        "Fetch.\n\n:param city: c\n:rtype: str\n\nParameters\n----------\nunit : str\n    u"
    ),
    "numpy_outvotes_google": (
        "Fetch.\n\nArgs:\n    city: g\n\nParameters\n----------\nunit : str\n    u\n\n"
        "Returns\n-------\nstr\n    r"
    ),
    "google_and_sphinx_tie": "Fetch.\n\nArgs:\n    city: google.\n\n:param unit: sphinx.",
    "duplicate_google_entry": "Fetch.\n\nArgs:\n    city: first.\n    city: second.",
    "duplicate_sphinx_entry": ":param city: first.\n:param city: second.",
    "only_other_parameters": "Fetch.\n\nOther Parameters:\n    city: elsewhere.",
    "whitespace_first_line": " \nFetch.\n\nArgs:\n    city: c",
}


@pytest.mark.parametrize("style", [None, "google", "numpy", "sphinx"])
@pytest.mark.parametrize("doc", DOCSTRINGS.values(), ids=DOCSTRINGS.keys())
def test_docstring_edges_match_sdk(doc: str, style: str | None) -> None:
    from agents.function_schema import generate_func_documentation as sdk_doc

    from toolwire.schema.docstrings import generate_func_documentation

    sdk_func = compile_tool(PARAMS, agents_flavor(), doc)
    expected = sdk_doc(sdk_func, style)
    got = generate_func_documentation(compile_tool(PARAMS, toolwire_flavor(), doc), style)
    assert (got.name, got.description, got.param_descriptions) == (
        expected.name,
        expected.description,
        expected.param_descriptions,
    )
    compare(PARAMS, doc=doc, docstring_style=style)


# Generated docstrings of all three styles, with the shapes above mixed in at random.
_NAMES = st.sampled_from(["city", "unit", "args", "*args", "**kwargs", "town", "x"])
_WORDS = st.lists(
    st.sampled_from(["The", "city", "unit", "in", "full", "value:", "(str)", "`C`", "é", "--"]),
    min_size=0,
    max_size=4,
).map(" ".join)


@st.composite
def _google_section(draw: st.DrawFn) -> str:
    header = draw(
        st.sampled_from(
            [
                "Args:",
                "Arguments:",
                "Params:",
                "Returns:",
                "Raises:",
                "Note:",
                "Examples:",
                "Other Parameters:",
                "args:",
            ]
        )
    )
    entries = []
    for _ in range(draw(st.integers(0, 3))):
        entry = f"    {draw(_NAMES)}: {draw(_WORDS)}"
        if draw(st.booleans()):
            entry += "\n" + draw(st.sampled_from(["        ", "      ", "    ", ""])) + draw(_WORDS)
        entries.append(entry)
    return "\n".join([header, *entries])


@st.composite
def _numpy_section(draw: st.DrawFn) -> str:
    header = draw(
        st.sampled_from(["Parameters", "Returns", "Yields", "Raises", "Other Parameters"])
    )
    underline = draw(st.sampled_from(["---", "----------", "--"]))
    entries = [
        f"{draw(_NAMES)} : {draw(st.sampled_from(['str', 'int', '']))}\n    {draw(_WORDS)}"
        for _ in range(draw(st.integers(0, 3)))
    ]
    return "\n".join([header, underline, *entries])


@st.composite
def _sphinx_section(draw: st.DrawFn) -> str:
    fields = [
        draw(
            st.sampled_from(
                [":param ", ":type ", ":return: ", ":rtype: ", ":raises E: ", ":param:"]
            )
        )
        + draw(_NAMES)
        + ": "
        + draw(_WORDS)
        for _ in range(draw(st.integers(1, 3)))
    ]
    return "\n".join(fields)


@st.composite
def _docstrings(draw: st.DrawFn) -> str:
    blocks = [draw(st.sampled_from(["Fetch the weather.", "", "Summary: text", "Fetch\nmore"]))]
    for _ in range(draw(st.integers(0, 4))):
        blocks.append(
            draw(st.one_of(_google_section(), _numpy_section(), _sphinx_section(), _WORDS))
        )
    joiners = st.sampled_from(["\n", "\n\n", "\n\n\n"])
    text = blocks[0]
    for block in blocks[1:]:
        text += draw(joiners) + block
    return text


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(doc=_docstrings(), style=st.sampled_from([None, "google", "numpy", "sphinx"]))
def test_generated_docstrings_match_sdk(doc: str, style: str | None) -> None:
    test_docstring_edges_match_sdk(doc, style)
