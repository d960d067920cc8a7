"""ensure_strict_json_schema against the Agents SDK's: same output bytes, same mutation of the
input, same exception type and message, on hand-written, random and pydantic-made schemas."""

from __future__ import annotations

import copy
import enum
import json
from typing import Annotated, Any, Literal, Optional

import pytest
from agents.strict_schema import ensure_strict_json_schema as sdk_strict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, create_model

from toolwire.errors import UserError
from toolwire.schema.strict import ensure_strict_json_schema

Outcome = tuple[str, str, str]


def _run(strict: Any, schema: Any, **kwargs: Any) -> Outcome:
    """(kind, output-or-exception-class, input-after-or-message) with key order kept."""
    work = copy.deepcopy(schema)
    try:
        result = strict(work, **kwargs)
    except Exception as error:  # the point is to compare whatever each side raises
        return ("raised", type(error).__name__, str(error))
    return ("ok", json.dumps(result), json.dumps(work))


def assert_same(schema: Any, **kwargs: Any) -> Outcome:
    expected = _run(sdk_strict, schema, **kwargs)
    got = _run(ensure_strict_json_schema, schema, **kwargs)
    assert got == expected, json.dumps(schema)[:2000]
    return got


OBJ = {"type": "object", "properties": {"a": {"type": "integer"}}}

CASES: list[tuple[str, Any]] = [
    ("empty", {}),
    ("plain", copy.deepcopy(OBJ)),
    ("properties-without-type", {"properties": {"a": {"type": "string"}}}),
    ("explicitly-closed", {**OBJ, "additionalProperties": False}),
    ("open-true", {**OBJ, "additionalProperties": True}),
    ("open-empty-schema", {**OBJ, "additionalProperties": {}}),
    ("open-typed", {"type": "object", "additionalProperties": {"type": "integer"}}),
    ("untyped-open", {"additionalProperties": {"type": "integer"}}),
    ("type-list-object", {"type": ["object"], "properties": {}}),
    ("type-list-nullable-root", {"type": ["object", "null"], "properties": {}}),
    ("nested-type-list", {"type": "object", "properties": {"n": {"type": ["object", "null"]}}}),
    ("root-anyOf", {"anyOf": [OBJ, {"type": "null"}]}),
    ("default-none", {"type": "object", "properties": {"a": {"type": "integer", "default": None}}}),
    ("default-kept", {"type": "object", "properties": {"a": {"type": "integer", "default": 3}}}),
    (
        "oneOf-to-anyOf",
        {"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}, OBJ]}}},
    ),
    (
        "oneOf-appends-to-anyOf",
        {
            "type": "object",
            "properties": {"u": {"anyOf": [{"type": "null"}], "oneOf": [{"type": "string"}]}},
        },
    ),
    ("items-dict", {"type": "object", "properties": {"l": {"type": "array", "items": OBJ}}}),
    (
        "items-list-untouched",
        {"type": "object", "properties": {"l": {"type": "array", "items": [OBJ]}}},
    ),
    (
        "ref-bare",
        {"$defs": {"A": OBJ}, "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
    ),
    (
        "ref-with-description-inlined",
        {
            "$defs": {"A": OBJ},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "d", "default": None}},
        },
    ),
    (
        "ref-with-constraint",
        {
            "$defs": {"A": OBJ},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "minimum": 1}},
        },
    ),
    (
        "ref-chain",
        {
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": OBJ},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "title": "t"}},
        },
    ),
    (
        "ref-definitions",
        {
            "definitions": {"A": OBJ},
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A", "title": "x"}},
        },
    ),
    (
        "ref-pointer-escapes",
        {
            "$defs": {"a/b~c%": OBJ},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/a~1b~0c%25", "title": "x"}},
        },
    ),
    (
        "ref-not-local",
        {"type": "object", "properties": {"a": {"$ref": "http://x/y", "title": "x"}}},
    ),
    (
        "ref-dangling",
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope", "title": "x"}}},
    ),
    (
        "ref-to-non-dict",
        {
            "$defs": {"A": 3},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "title": "x"}},
        },
    ),
    (
        "ref-into-nested-resource",
        {
            "$defs": {"R": {"$id": "urn:r", "$defs": {"A": OBJ}}},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/R/$defs/A", "title": "x"}},
        },
    ),
    (
        "ref-inside-nested-resource",
        {
            "type": "object",
            "properties": {
                "r": {"$id": "urn:r", "type": "object", "properties": {"a": {"$ref": "#"}}}
            },
        },
    ),
    ("root-ref-with-id", {"$id": "urn:x", "$ref": "#/$defs/A", "$defs": {"A": OBJ}}),
    (
        "allOf-single-ref",
        {
            "$defs": {"A": OBJ},
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "d"}},
        },
    ),
    (
        "allOf-single-inline",
        {"type": "object", "properties": {"a": {"allOf": [OBJ], "title": "T"}}},
    ),
    (
        "allOf-single-conflict",
        {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}], "type": "integer"}}},
    ),
    (
        "allOf-closed-parent-without-properties",
        {
            "type": "object",
            "properties": {"a": {"allOf": [OBJ], "type": "object", "additionalProperties": False}},
        },
    ),
    (
        "allOf-circular-chain",
        {
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}]}},
        },
    ),
    (
        "allOf-many",
        {"type": "object", "properties": {"a": {"allOf": [OBJ, {"type": "object"}]}}},
    ),
    (
        "allOf-equal-numbers",
        {"allOf": [{"type": "object", "minProperties": 1}], "minProperties": 1.0},
    ),
    ("allOf-bool-vs-int", {"allOf": [{"type": "object", "x-flag": True}], "x-flag": 1}),
    ("property-not-dict", {"type": "object", "properties": {"a": 3}}),
    ("anyOf-not-dict", {"type": "object", "properties": {"a": {"anyOf": [1]}}}),
    ("required-replaced", {"type": "object", "properties": {"b": {}, "a": {}}, "required": ["a"]}),
]


@pytest.mark.parametrize(("name", "schema"), CASES, ids=[name for name, _ in CASES])
def test_hand_written_cases_match_sdk(name: str, schema: Any) -> None:
    assert_same(schema)
    assert_same(schema, _reject_open_objects=True)


def test_outcomes_that_matter() -> None:
    # spot checks so the differential above cannot pass by both sides being wrong the same way
    assert ensure_strict_json_schema({}) == {
        "additionalProperties": False,
        "type": "object",
        "properties": {},
        "required": [],
    }
    with pytest.raises(UserError, match="additionalProperties should not be set"):
        ensure_strict_json_schema({**OBJ, "additionalProperties": {}})
    with pytest.raises(UserError, match="must not use `anyOf`"):
        ensure_strict_json_schema({"anyOf": [OBJ]})
    with pytest.raises(ValueError, match="Unexpected \\$ref format"):
        ensure_strict_json_schema({"properties": {"a": {"$ref": "x", "title": "t"}}})
    kept = ensure_strict_json_schema({"properties": {"a": {"default": 2}, "b": {"default": None}}})
    assert kept["properties"] == {"a": {"default": 2}, "b": {}}
    assert kept["required"] == ["a", "b"]


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


@pytest.mark.parametrize("depth", [10, 48, 49, 50, 51, 99, 120])
def test_depth_limit_matches_sdk(depth: int) -> None:
    assert_same(_nested(depth))


def test_node_budget_matches_sdk() -> None:
    # every level references the previous one twice, with a sibling so each ref is inlined
    defs: dict[str, Any] = {"D0": {"type": "object", "properties": {}}}
    for i in range(1, 20):
        ref = {"$ref": f"#/$defs/D{i - 1}", "description": "d"}
        defs[f"D{i}"] = {"type": "object", "properties": {"l": ref, "r": dict(ref)}}
    schema = {
        "$defs": defs,
        "type": "object",
        "properties": {"top": {"$ref": "#/$defs/D19", "title": "t"}},
    }
    kind, cls, message = assert_same(schema)
    assert (kind, cls) == ("raised", "UserError")
    assert "too large" in message


# -- random JSON schema trees -----------------------------------------------------------------

REFS = ["#/$defs/A", "#/$defs/B", "#/definitions/C", "#", "#/properties/p", "#/$defs/Missing"]
LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "default": None},
        {"type": "number", "default": 1.5},
        {"type": "null"},
        {"type": ["string", "null"]},
        {"type": "object"},
        {"enum": ["a", "b"]},
        {},
        {"const": 1},
    ]
)


def _node(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys: dict[str, st.SearchStrategy[Any]] = {
        "type": st.sampled_from(["object", "array", "string", ["object"], ["object", "null"]]),
        "properties": st.dictionaries(st.sampled_from(["p", "q", "r"]), children, max_size=3),
        "items": children,
        "anyOf": st.lists(children, min_size=1, max_size=3),
        "oneOf": st.lists(children, min_size=1, max_size=3),
        "allOf": st.lists(children, min_size=1, max_size=2),
        "$ref": st.sampled_from(REFS),
        "additionalProperties": st.sampled_from([False, True, {}, {"type": "integer"}]),
        "default": st.sampled_from([None, 0, "x"]),
        "description": st.just("d"),
        "title": st.just("T"),
        "required": st.just(["p"]),
        "minimum": st.just(0),
    }
    return st.fixed_dictionaries({}, optional=keys)


SCHEMAS = st.recursive(LEAVES, _node, max_leaves=12)
ROOTS = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.sampled_from(["p", "q"]), SCHEMAS, max_size=2),
    },
    optional={
        "$defs": st.fixed_dictionaries({}, optional={"A": SCHEMAS, "B": SCHEMAS}),
        "definitions": st.fixed_dictionaries({}, optional={"C": SCHEMAS}),
        "additionalProperties": st.sampled_from([False, True]),
    },
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(ROOTS, SCHEMAS), st.booleans())
def test_random_schemas_match_sdk(schema: Any, reject_open: bool) -> None:
    assert_same(schema, _reject_open_objects=reject_open)


# -- schemas that pydantic produces ------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Leaf(BaseModel):
    x: int
    label: str = "l"


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool = True


class Tree(BaseModel):
    value: int
    children: list[Tree] = []


BASE_TYPES: list[Any] = [
    int,
    str,
    float,
    bool,
    Color,
    Leaf,
    Tree,
    Literal["a", "b"],
    Annotated[int, Field(ge=0, le=10, description="bounded")],
    Annotated[str, Field(pattern=r"^\d+$")],
    Annotated[Cat | Dog, Field(discriminator="kind")],
    Cat | Dog,
    dict[str, int],
    tuple[int, str],
    tuple[int, ...],
    Any,
]


def _wrap(inner: Any, how: str) -> Any:
    return {
        "plain": inner,
        "optional": Optional[inner],  # noqa: UP045 -- the anyOf-with-null shape is the point
        "list": list[inner],
        "nested-list": list[list[inner]],
        "described": Annotated[inner, Field(description="wrapped")],
    }[how]


FIELDS = st.tuples(
    st.sampled_from(BASE_TYPES),
    st.sampled_from(["plain", "optional", "list", "nested-list", "described"]),
    st.sampled_from(["required", "none", "value"]),
)


def _default(annotation: Any, how: str, which: str) -> Any:
    if which == "required":
        return ...
    if which == "none" or how == "optional":
        return None
    return Field(default=None, description="defaulted")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FIELDS, min_size=0, max_size=5))
def test_pydantic_schemas_match_sdk(fields: list[tuple[Any, str, str]]) -> None:
    definitions: dict[str, Any] = {}
    for index, (base, how, which) in enumerate(fields):
        annotation = _wrap(base, how)
        definitions[f"f{index}"] = (annotation, _default(annotation, how, which))
    model = create_model("Generated", **definitions)
    for mode in ("validation", "serialization"):
        schema = model.model_json_schema(mode=mode)
        assert_same(schema)
        assert_same(schema, _reject_open_objects=True)


def test_pydantic_schema_conversion_happens() -> None:
    # a concrete pydantic case with known output, so the generated comparison is anchored
    model = create_model("M", leaf=(Optional[Leaf], None), color=(Color, Color.RED))  # noqa: UP045
    converted = ensure_strict_json_schema(model.model_json_schema())
    assert converted["required"] == ["leaf", "color"]
    assert converted["additionalProperties"] is False
    assert converted["properties"]["leaf"] == {
        "anyOf": [{"$ref": "#/$defs/Leaf"}, {"type": "null"}]
    }
    # a $ref with a sibling default is inlined, target keys first, local keys winning
    assert converted["properties"]["color"] == {
        "default": "red",
        "enum": ["red", "blue"],
        "title": "Color",
        "type": "string",
    }
    assert converted["$defs"]["Leaf"]["required"] == ["x", "label"]
