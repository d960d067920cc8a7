"""Nested parameter types, generated: toolwire and openai-agents 0.24.0 must agree on each.

test_differential_hypothesis.py draws each parameter from a fixed list of flat types; here a
type is built recursively (lists, dicts, tuples, sets, Sequence/Mapping, Optional, `Union` and
`|`, Annotated with a Field or a plain string, Literal, enums, a pydantic model, a recursive
model, a TypedDict with NotRequired, a dataclass, forward references as strings) and placed as a
plain, keyword-only, `*args` or `**kwargs` parameter with or without a default (mutable ones
included). Both tools must have the same name, description, schema and strictness (or raise the
same error), and give the same result or message for generated JSON, valid or not.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, Optional, Union

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from tests.schema.conftest import exc_key
from typing_extensions import TypedDict

if TYPE_CHECKING:
    from tests.schema.conftest import Differential, Impl

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


class Shade(Enum):
    LIGHT = "light"
    DARK = "dark"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Item(BaseModel):
    sku: str
    count: int = Field(default=1, ge=0, description="How many")
    note: Optional[str] = None  # noqa: UP045


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


class Row(TypedDict):
    key: str
    tags: NotRequired[list[str]]


@dataclass
class Box:
    width: float
    sides: list[int] = field(default_factory=list)


_NAMES: dict[str, Any] = {
    "Any": Any,
    "Optional": Optional,
    "Union": Union,
    "Literal": Literal,
    "Annotated": Annotated,
    "Sequence": Sequence,
    "Mapping": Mapping,
    "Field": Field,
    "Shade": Shade,
    "Level": Level,
    "Item": Item,
    "Tree": Tree,
    "Row": Row,
    "Box": Box,
}

_LEAVES = st.sampled_from(
    [
        "int",
        "str",
        "float",
        "bool",
        "None",
        "Any",
        "Shade",
        "Level",
        "Item",
        "Tree",
        "Row",
        "Box",
        "list",
        "dict",
        "'int'",
        "'Item'",
        "Literal['a', 'b']",
        "Literal[1, 'one', None]",
    ]
)


def _nest(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.tuples(inner, inner)
    return st.one_of(
        inner.map("list[{}]".format),
        inner.map("dict[str, {}]".format),
        inner.map("tuple[{}, ...]".format),
        pairs.map(lambda p: f"tuple[{p[0]}, {p[1]}]"),
        inner.map("set[{}]".format),
        inner.map("Sequence[{}]".format),
        inner.map("Mapping[str, {}]".format),
        inner.map("Optional[{}]".format),
        pairs.map(lambda p: f"Union[{p[0]}, {p[1]}]"),
        inner.filter(lambda t: not t.startswith("'") and t != "None").map("{} | None".format),
        inner.map("Annotated[{}, Field(description='nested')]".format),
        inner.map("Annotated[{}, 'plain text']".format),
    )


TYPE_SOURCES = st.recursive(_LEAVES, _nest, max_leaves=4)

_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-10, 10, allow_nan=False),
    st.sampled_from(["a", "b", "one", "light", "dark", "x", "1"]),
)
_SHAPED = st.sampled_from(
    [
        {"sku": "s"},
        {"sku": "s", "count": -1},
        {"label": "t", "children": [{"label": "u"}]},
        {"key": "k", "tags": ["a"]},
        {"key": "k", "tags": [1]},
        {"width": 1.5},
        {"width": 1.5, "sides": [1, 2]},
    ]
)
JSON_VALUES = st.recursive(
    _SCALAR | _SHAPED,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "k", "sku", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)

_DEFAULTS = st.sampled_from([None, "None", "1", "'a'", "[]", "{}", "()", "[1, 2]", "Shade.DARK"])
_KINDS = st.sampled_from(["plain", "plain", "kwonly", "args", "kwargs"])


@dataclass(frozen=True)
class Nested:
    source: str
    type_source: str
    kind: str
    strict: bool


@st.composite
def nested_tools(draw: st.DrawFn) -> Nested:
    type_source = draw(TYPE_SOURCES)
    kind = draw(_KINDS)
    default = draw(_DEFAULTS) if kind in ("plain", "kwonly") else None
    tail = f" = {default}" if default is not None else ""
    param = {
        "plain": f"value: {type_source}{tail}",
        "kwonly": f"*, value: {type_source}{tail}",
        "args": f"*value: {type_source}",
        "kwargs": f"**value: {type_source}",
    }[kind]
    source = (
        f"def nested(first: int, {param}) -> str:\n"
        "    '''Echo a nested value.\n\n    Args:\n        first: A number.\n"
        "        value: The nested value.\n    '''\n"
        "    return repr((first, value))\n"
    )
    return Nested(source, type_source, kind, draw(st.booleans()))


def _build(impl: Impl, generated: Nested) -> tuple[tuple[Any, ...], Any]:
    namespace = dict(_NAMES)
    exec(compile(generated.source, "<nested>", "exec", dont_inherit=True), namespace)
    try:
        tool = impl.decorate(namespace["nested"], {"strict_mode": generated.strict})
    except Exception as error:
        return ("raised", exc_key(error), str(error)), None
    return (
        "tool",
        tool.name,
        tool.description,
        json.dumps(tool.params_json_schema),
        tool.strict_json_schema,
    ), tool


@SETTINGS
@given(generated=nested_tools(), data=st.data())
def test_nested_types_match_sdk(diff: Differential, generated: Nested, data: st.DataObject) -> None:
    sdk_outcome, sdk_tool = _build(diff.sdk, generated)
    tw_outcome, tw_tool = _build(diff.tw, generated)
    note = f"source:\n{generated.source}strict={generated.strict}"
    assert tw_outcome == sdk_outcome, note
    if sdk_tool is None:
        return
    for _ in range(3):
        shape = data.draw(st.sampled_from(["value", "value", "missing", "extra", "whole"]))
        if shape == "whole":
            arguments = json.dumps(data.draw(JSON_VALUES))
        else:
            payload: dict[str, Any] = {"first": data.draw(st.integers(-3, 3))}
            if shape != "missing":
                payload["value"] = data.draw(JSON_VALUES)
            if shape == "extra":
                payload["other"] = data.draw(JSON_VALUES)
            arguments = json.dumps(payload)
        assert diff.tw.invoke(tw_tool, arguments) == diff.sdk.invoke(sdk_tool, arguments), (
            f"{note}\narguments={arguments}"
        )
