"""Hypothesis-generated signatures: toolwire and openai-agents 0.24.0 must agree on all of them.

Each example writes the source of a tool function (parameter types, defaults, parameter kinds,
an optional context parameter, a google/numpy/sphinx docstring with random descriptions, sync or
async, with or without postponed annotations), compiles it once per implementation (each with
its own context classes), decorates it with random options and compares name, description, the
serialized schema and strictness, then calls both tools with generated argument JSON.
"""

from __future__ import annotations
import __future__

import json
import keyword
import textwrap
import warnings
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from tests.schema._signatures import Flavor, toolwire_flavor
from typing_extensions import TypedDict

if TYPE_CHECKING:
    from tests.schema.conftest import Differential

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


class Kind(str, Enum):  # noqa: UP042 - the classic str-mixin spelling on purpose
    ALPHA = "alpha"
    BETA = "beta"


class HPoint(BaseModel):
    x: int
    y: int = 0


class HPair(TypedDict):
    a: str
    b: int


@dataclass
class HCell:
    row: int
    col: int = 0


class HNode(BaseModel):
    name: str
    points: list[HPoint] = Field(default_factory=list)
    kind: Optional[Kind] = None  # noqa: UP045


_INT = st.integers(-(10**6), 10**6)
_TEXT = st.text(alphabet="abcxyz XYZ019-_.", max_size=8)
_FLOAT = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
_POINT = st.fixed_dictionaries({"x": _INT}, optional={"y": _INT})
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    _INT,
    _FLOAT,
    _TEXT,
    st.lists(_INT, max_size=2),
    st.dictionaries(_TEXT, _INT, max_size=2),
)


@dataclass(frozen=True)
class TypeSpec:
    """A parameter type: its source text, valid JSON values and (Python source of) defaults."""

    source: str
    values: st.SearchStrategy[Any]
    defaults: st.SearchStrategy[str] | None = None
    strict_ok: bool = True


TYPES: list[TypeSpec] = [
    TypeSpec("int", _INT, _INT.map(repr)),
    TypeSpec("str", _TEXT, _TEXT.map(repr)),
    TypeSpec("float", _FLOAT, _FLOAT.map(repr)),
    TypeSpec("bool", st.booleans(), st.booleans().map(repr)),
    TypeSpec("list[int]", st.lists(_INT, max_size=3), st.just("[]")),
    TypeSpec("list[str]", st.lists(_TEXT, max_size=3), st.lists(_TEXT, max_size=2).map(repr)),
    TypeSpec("Optional[int]", st.none() | _INT, st.just("None") | _INT.map(repr)),
    TypeSpec("str | None", st.none() | _TEXT, st.just("None")),
    TypeSpec('Literal["a", "b"]', st.sampled_from(["a", "b"]), st.sampled_from(["'a'", "'b'"])),
    TypeSpec("Literal[1, 2, 3]", st.sampled_from([1, 2, 3]), st.just("2")),
    TypeSpec("Kind", st.sampled_from(["alpha", "beta"]), st.just("Kind.BETA")),
    TypeSpec("Annotated[int, Field(ge=0, le=100)]", st.integers(0, 100), st.just("5")),
    TypeSpec('Annotated[str, "annotated description"]', _TEXT, st.just("'dflt'")),
    TypeSpec("HPoint", _POINT),
    TypeSpec("list[HPoint]", st.lists(_POINT, max_size=2), st.just("[]")),
    TypeSpec("HPair", st.fixed_dictionaries({"a": _TEXT, "b": _INT})),
    TypeSpec("HCell", st.fixed_dictionaries({"row": _INT}, optional={"col": _INT})),
    TypeSpec(
        "HNode",
        st.fixed_dictionaries(
            {"name": _TEXT},
            optional={
                "points": st.lists(_POINT, max_size=2),
                "kind": st.sampled_from(["alpha", None]),
            },
        ),
    ),
    TypeSpec("Optional[HPoint]", st.none() | _POINT, st.just("None")),
    TypeSpec("", _JUNK, st.just("None") | _INT.map(repr)),  # untyped
    TypeSpec("Any", _JUNK, st.just("None")),
    TypeSpec(
        "dict[str, int]", st.dictionaries(_TEXT, _INT, max_size=2), st.just("None"), strict_ok=False
    ),
]

_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,9}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)
)
_DESC = (
    st.text(alphabet="abcdefghij klmnop.,-()0123456789", min_size=1, max_size=30)
    .map(str.strip)
    .filter(bool)
)


@dataclass(frozen=True)
class Param:
    name: str
    spec: TypeSpec
    default: str | None  # Python source, None for required
    kind: str  # "posonly", "pos", "kwonly"
    description: str | None


@dataclass(frozen=True)
class Generated:
    source: str
    func_name: str
    params: tuple[Param, ...]
    options: dict[str, Any]
    future: bool


@st.composite
def params_strategy(draw: st.DrawFn) -> list[Param]:
    names = draw(st.lists(_NAME, max_size=6, unique=True))
    params = []
    for name in names:
        spec = draw(st.sampled_from(TYPES))
        default = draw(spec.defaults) if spec.defaults is not None and draw(st.booleans()) else None
        kind = draw(st.sampled_from(["pos", "pos", "kwonly", "posonly"]))
        description = draw(st.none() | _DESC)
        params.append(Param(name, spec, default, kind, description))
    positional = [p for p in params if p.kind != "kwonly"]
    # A required positional parameter cannot follow a defaulted one: required ones go first,
    # positional-only before positional-or-keyword.
    positional.sort(key=lambda p: (p.default is not None, p.kind != "posonly"))
    if any(p.kind == "posonly" for p in positional):
        first_pos = next((i for i, p in enumerate(positional) if p.kind == "pos"), len(positional))
        positional = [
            Param(p.name, p.spec, p.default, "posonly" if i < first_pos else "pos", p.description)
            for i, p in enumerate(positional)
        ]
    return positional + [p for p in params if p.kind == "kwonly"]


def _docstring(style: str, summary: str, params: list[Param]) -> str:
    """A docstring in `style`; continuation lines of a description are indented one level more."""
    documented = [p for p in params if p.description is not None]

    def desc(p: Param, indent: str) -> str:
        return (p.description or "").replace("\n", "\n" + indent)

    if style == "google":
        body = "".join(f"    {p.name}: {desc(p, '        ')}\n" for p in documented)
        return f"{summary}\n\nArgs:\n{body}" if documented else summary
    if style == "numpy":
        body = "".join(
            f"{p.name} : {p.spec.source or 'object'}\n    {desc(p, '    ')}\n" for p in documented
        )
        return f"{summary}\n\nParameters\n----------\n{body}" if documented else summary
    body = "".join(f":param {p.name}: {desc(p, '    ')}\n" for p in documented)
    return f"{summary}\n\n{body}" if documented else summary


def _signature_source(params: list[Param], context: str | None) -> str:
    parts = [f"ctx: {context}"] if context else []
    kinds = [p.kind for p in params]
    for index, p in enumerate(params):
        if p.kind == "kwonly" and (index == 0 or kinds[index - 1] != "kwonly"):
            parts.append("*")
        annotation = f": {p.spec.source}" if p.spec.source else ""
        default = f" = {p.default}" if p.default is not None else ""
        parts.append(f"{p.name}{annotation}{default}")
        if p.kind == "posonly" and (index + 1 == len(params) or kinds[index + 1] != "posonly"):
            parts.append("/")
    return ", ".join(parts)


def _rarely(draw: st.DrawFn, coins: int) -> bool:
    """True with probability 2**-coins (Hypothesis biases small integers, so flip coins instead)."""
    return all(draw(st.booleans()) for _ in range(coins))


@st.composite
def generated_tools(draw: st.DrawFn) -> Generated:
    func_name = draw(_NAME)
    params = draw(params_strategy())
    context = draw(
        st.sampled_from(
            [None, None, None, "RunContextWrapper[Any]", "ToolContext[Any]", "RunContextWrapper"]
        )
    )
    style = draw(st.sampled_from(["none", "google", "numpy", "sphinx"]))
    summary = draw(_DESC)
    raises = _rarely(draw, 3)
    is_async = draw(st.booleans())
    future = draw(st.booleans())
    doc = "" if style == "none" else _docstring(style, summary, params)
    doc_source = textwrap.indent(f'"""{doc}\n"""\n', "    ") if doc else ""
    body = (
        "    raise ValueError(f'boom {sorted(locals())}')\n"
        if raises
        else "    return _echo(locals())\n"
    )
    source = f"{'async ' if is_async else ''}def {func_name}({_signature_source(params, context)}) -> Any:\n{doc_source}{body}"
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options["strict_mode"] = draw(st.booleans())
    if style != "none" and _rarely(draw, 2):
        options["docstring_style"] = draw(st.sampled_from(["google", "numpy", "sphinx"]))
    if _rarely(draw, 3):
        options["use_docstring_info"] = False
    if _rarely(draw, 3):
        options["name_override"] = draw(_NAME)
    if _rarely(draw, 3):
        options["description_override"] = draw(_DESC)
    return Generated(source, func_name, tuple(params), options, future)


def compile_tool(generated: Generated, flavor: Flavor) -> Any:
    namespace: dict[str, Any] = {
        "Any": Any,
        "Optional": Optional,
        "Literal": Literal,
        "Annotated": Annotated,
        "Field": Field,
        "Kind": Kind,
        "HPoint": HPoint,
        "HPair": HPair,
        "HCell": HCell,
        "HNode": HNode,
        "RunContextWrapper": flavor.RunContextWrapper,
        "ToolContext": flavor.ToolContext,
        "_echo": dict,
    }
    flags = __future__.annotations.compiler_flag if generated.future else 0
    exec(
        compile(
            generated.source, f"<generated {flavor.name}>", "exec", flags=flags, dont_inherit=True
        ),
        namespace,
    )
    return namespace[generated.func_name]


@st.composite
def arguments(draw: st.DrawFn, params: tuple[Param, ...]) -> str:
    shape = draw(st.sampled_from(["valid", "valid", "minimal", "missing", "wrong", "extra", "raw"]))
    if shape == "raw":
        return draw(st.sampled_from(["", "{", "[]", "null", "1", '"s"', '{"a":}', "{}", "[{}]"]))
    values: dict[str, Any] = {}
    for p in params:
        if shape == "minimal" and p.default is not None:
            continue
        values[p.name] = draw(p.spec.values)
    if shape == "missing" and values:
        values.pop(draw(st.sampled_from(sorted(values))))
    if shape == "wrong" and values:
        values[draw(st.sampled_from(sorted(values)))] = draw(_JUNK)
    if shape == "extra":
        values[draw(_NAME)] = draw(_JUNK)
    return json.dumps(values)


def _decorate_both(
    diff: Differential, generated: Generated, mode: str
) -> tuple[tuple[Any, ...], tuple[Any, ...], Any, Any]:
    outcomes = []
    tools = []
    for impl in (diff.sdk, diff.tw):
        func = compile_tool(generated, impl.flavor)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                tool = impl.decorate(func, generated.options, diff.failure(mode))
        except Exception as error:
            outcomes.append(("raised", _key(error), str(error)))
            tools.append(None)
            continue
        outcomes.append(
            (
                "tool",
                tool.name,
                tool.description,
                json.dumps(tool.params_json_schema),
                tool.strict_json_schema,
            )
        )
        tools.append(tool)
    return outcomes[0], outcomes[1], tools[0], tools[1]


def _key(error: BaseException) -> str:
    module = type(error).__module__
    prefix = "sdk-equivalent" if module in {"agents.exceptions", "toolwire.errors"} else module
    return f"{prefix}.{type(error).__name__}"


@SETTINGS
@given(
    generated=generated_tools(), mode=st.sampled_from(["default", "none", "custom"]), data=st.data()
)
def test_generated_signatures_match_sdk(
    diff: Differential, generated: Generated, mode: str, data: st.DataObject
) -> None:
    sdk_outcome, tw_outcome, sdk_tool, tw_tool = _decorate_both(diff, generated, mode)
    note = f"source:\n{generated.source}\noptions={generated.options} future={generated.future} mode={mode}"
    assert tw_outcome == sdk_outcome, note
    if sdk_tool is None:
        return
    for _ in range(3):
        args = data.draw(arguments(generated.params), label="arguments")
        assert diff.tw.invoke(tw_tool, args) == diff.sdk.invoke(sdk_tool, args), (
            f"{note}\nargs={args!r}"
        )


_RICH_DESC = st.text(
    alphabet=st.characters(
        codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters='"\\'
    ),
    min_size=1,
    max_size=40,
)


@SETTINGS
@given(
    style=st.sampled_from(["google", "numpy", "sphinx"]),
    forced=st.booleans(),
    summary=st.lists(_RICH_DESC, min_size=1, max_size=3),
    descriptions=st.lists(
        st.none() | _RICH_DESC | st.lists(_DESC, min_size=2, max_size=3).map("\n".join),
        min_size=1,
        max_size=4,
    ),
)
def test_generated_docstrings_match_sdk(
    diff: Differential, style: str, forced: bool, summary: list[str], descriptions: list[str | None]
) -> None:
    """Free-form descriptions (any printable text, several paragraphs, continuation lines)."""
    params = [Param(f"p{i}", TYPES[0], None, "pos", d) for i, d in enumerate(descriptions)]
    doc = _docstring(style, "\n\n".join(summary), params)
    generated = Generated(
        f"def documented({', '.join(f'p{i}: int' for i in range(len(params)))}) -> Any:\n    return _echo(locals())\n",
        "documented",
        tuple(params),
        {"docstring_style": style} if forced else {},
        False,
    )
    outcomes = []
    for impl in (diff.sdk, diff.tw):
        func = compile_tool(generated, impl.flavor)
        func.__doc__ = doc
        try:
            tool = impl.decorate(func, generated.options)
        except Exception as error:
            outcomes.append(("raised", _key(error), str(error)))
            continue
        outcomes.append((tool.name, tool.description, json.dumps(tool.params_json_schema)))
    assert outcomes[1] == outcomes[0], f"docstring:\n{doc}"


@SETTINGS
@given(generated=generated_tools())
def test_generated_function_schema_matches_sdk(sdk: Any, generated: Generated) -> None:
    """The schema layer alone (`toolwire.schema.function_schema`), with each side's context classes."""
    from agents.function_schema import function_schema as sdk_function_schema

    from toolwire.schema.function_schema import function_schema

    kwargs = {k: v for k, v in generated.options.items() if k != "strict_mode"}
    kwargs["strict_json_schema"] = generated.options.get("strict_mode", True)
    outcomes = []
    for flavor, schema_fn in (
        (sdk.flavor, sdk_function_schema),
        (toolwire_flavor(), function_schema),
    ):
        func = compile_tool(generated, flavor)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                fs = schema_fn(func, **kwargs)
        except Exception as error:
            outcomes.append(("raised", _key(error), str(error)))
            continue
        outcomes.append(
            (
                fs.name,
                fs.description,
                json.dumps(fs.params_json_schema),
                fs.takes_context,
                [(p.name, p.kind) for p in fs.signature.parameters.values()],
            )
        )
    assert outcomes[1] == outcomes[0], f"source:\n{generated.source}\noptions={kwargs}"
