"""Strict conversion of objects, unions, `allOf` and defaults against the Agents SDK.

A one-entry `allOf` folded into its parent (and when it cannot be), several entries, nested
`anyOf`, `oneOf`, `additionalProperties` true/false/schema, objects without properties, the
empty schema, null defaults and the root-only rules.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.schema._strict_oracle import OBJ, STR, same_as_sdk, with_properties

from toolwire.schema.strict import ensure_strict_json_schema

# -- allOf, anyOf, objects, defaults ---------------------------------------------------------

SHAPE_CASES: list[tuple[str, Any]] = [
    ("all-of-one-inline", with_properties({"a": {"allOf": [OBJ], "description": "d"}})),
    (
        "all-of-one-annotation-parent-wins",
        with_properties({"a": {"title": "P", "allOf": [{**STR, "title": "E"}]}}),
    ),
    (
        "all-of-one-default-none-both",
        with_properties({"a": {"allOf": [{**STR, "default": None}], "default": None}}),
    ),
    (
        "all-of-one-default-parent-none",
        with_properties({"a": {"allOf": [{**STR, "default": "e"}], "default": None}}),
    ),
    (
        "all-of-one-equal-constraint",
        with_properties({"a": {"type": "string", "allOf": [{"type": "string"}]}}),
    ),
    ("all-of-one-int-float", with_properties({"a": {"minimum": 1.0, "allOf": [{"minimum": 1}]}})),
    (
        "all-of-one-nan",
        with_properties({"a": {"minimum": float("nan"), "allOf": [{"minimum": float("nan")}]}}),
    ),
    ("all-of-one-bool-int", with_properties({"a": {"x-flag": 0, "allOf": [{"x-flag": False}]}})),
    (
        "all-of-one-dict-order",
        with_properties(
            {"a": {"x-map": {"b": 1, "a": 2}, "allOf": [{"x-map": {"a": 2, "b": 1.0}}]}}
        ),
    ),
    (
        "all-of-one-conflicts",
        with_properties(
            {"a": {"type": "string", "minimum": 1, "allOf": [{"type": "integer", "minimum": 2}]}}
        ),
    ),
    (
        "all-of-one-closed-empty-parent",
        with_properties({"a": {"type": "object", "additionalProperties": False, "allOf": [OBJ]}}),
    ),
    (
        "all-of-one-parent-properties",
        with_properties({"a": {"type": "object", "properties": {"r": {}}, "allOf": [OBJ]}}),
    ),
    (
        "all-of-one-ref",
        with_properties({"a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "d"}}, A=OBJ),
    ),
    (
        "all-of-one-annotated-ref",
        with_properties({"a": {"allOf": [{"$ref": "#/$defs/A", "title": "q"}]}}, A=STR),
    ),
    (
        "all-of-one-constrained-ref",
        with_properties({"a": {"allOf": [{"$ref": "#/$defs/A", "minimum": 3}]}}, A=STR),
    ),
    (
        "all-of-one-ref-chain",
        with_properties(
            {
                "a": {"allOf": [{"$ref": "#/properties/p"}], "description": "pd"},
                "p": {"$ref": "#/properties/q", "title": "t"},
                "q": {"$ref": "#/$defs/B", "examples": [1]},
            },
            B={**STR, "title": "b", "description": "bd"},
        ),
    ),
    (
        "all-of-one-circular",
        with_properties(
            {"a": {"allOf": [{"$ref": "#/$defs/A"}]}},
            A={"$ref": "#/$defs/B"},
            B={"$ref": "#/$defs/A"},
        ),
    ),
    (
        "all-of-one-self",
        with_properties({"a": {"allOf": [{"$ref": "#/$defs/A"}]}}, A={"$ref": "#/$defs/A"}),
    ),
    # the entry's chain is read before the entry is visited: its missing target is reported
    # before its own bad `$defs`, and its null default travels with the target's keys
    (
        "all-of-one-chain-before-visit",
        with_properties({"p": {"allOf": [{"$ref": "#/$defs/No", "$defs": {"A": 5}}]}}),
    ),
    (
        "all-of-one-null-default-note",
        with_properties(
            {"p": {"allOf": [{"$ref": "#/$defs/A", "title": "t", "default": None}]}},
            A={**STR, "default": "x"},
        ),
    ),
    (
        "all-of-one-ref-in-resource",
        with_properties({"p": {"$id": "urn:x", "allOf": [{"$ref": "#/$defs/A"}]}}),
    ),
    (
        "all-of-one-entry-owns-resource",
        with_properties({"p": {"allOf": [{"$id": "urn:x", "$ref": "#/$defs/A"}]}}),
    ),
    ("all-of-one-not-a-dict", with_properties({"a": {"allOf": ["x"]}})),
    ("all-of-one-at-root", {"allOf": [OBJ], "title": "R"}),
    (
        "all-of-several",
        with_properties({"a": {"allOf": [OBJ, {"type": "object", "properties": {"b": STR}}]}}),
    ),
    (
        "all-of-several-refs",
        with_properties({"a": {"allOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}}, A=OBJ),
    ),
    ("all-of-empty", with_properties({"a": {"allOf": [], "title": "x"}})),
    ("any-of-nested", with_properties({"a": {"anyOf": [{"anyOf": [OBJ, {"type": "null"}]}, STR]}})),
    ("any-of-nested-open", with_properties({"a": {"anyOf": [{"anyOf": [{"type": "object"}]}]}})),
    (
        "one-of-and-any-of",
        with_properties({"a": {"anyOf": [{"type": "null"}], "title": "t", "oneOf": [STR, OBJ]}}),
    ),
    ("one-of-beside-non-list-any-of", with_properties({"a": {"oneOf": [STR], "anyOf": 5}})),
    ("one-of-at-root", {"type": "object", "properties": {}, "oneOf": [OBJ]}),
    ("ap-true", {**OBJ, "additionalProperties": True}),
    ("ap-false", {**OBJ, "additionalProperties": False}),
    ("ap-schema", {**OBJ, "additionalProperties": STR}),
    ("ap-empty-schema", {**OBJ, "additionalProperties": {}}),
    ("ap-none", {**OBJ, "additionalProperties": None}),
    ("ap-zero", with_properties({"m": {"type": "object", "additionalProperties": 0}})),
    ("ap-on-string", with_properties({"s": {"type": "string", "additionalProperties": True}})),
    ("ap-untyped", with_properties({"m": {"additionalProperties": STR}})),
    ("ap-untyped-false", with_properties({"m": {"additionalProperties": False}})),
    (
        "ap-type-list",
        with_properties({"m": {"type": ["object", "null"], "additionalProperties": True}}),
    ),
    ("ap-properties-untyped", {"properties": {"a": {}}, "additionalProperties": True}),
    ("object-no-properties", with_properties({"m": {"type": "object"}})),
    ("object-empty-properties", with_properties({"m": {"type": "object", "properties": {}}})),
    (
        "object-closed-no-properties",
        with_properties({"m": {"type": "object", "additionalProperties": False}}),
    ),
    ("object-properties-not-dict", with_properties({"m": {"type": "object", "properties": [1]}})),
    (
        "object-pattern-properties",
        with_properties({"m": {"type": "object", "patternProperties": {"^x": STR}}}),
    ),
    ("object-type-null-inferred", with_properties({"m": {"type": None, "properties": {"q": {}}}})),
    (
        "object-required-replaced",
        with_properties({"m": {"properties": {"b": {}, "a": {}}, "required": ["a", "zz"]}}),
    ),
    ("properties-on-string", with_properties({"s": {"type": "string", "properties": {"q": {}}}})),
    ("items-list-left", with_properties({"l": {"type": "array", "items": [{"type": "object"}]}})),
    ("items-object", with_properties({"l": {"type": "array", "items": {"type": "object"}}})),
    ("empty-schema", {}),
    ("empty-property", with_properties({"a": {}})),
    ("default-none", with_properties({"a": {**STR, "default": None}})),
    ("default-none-untyped", with_properties({"a": {"default": None}})),
    (
        "default-falsy-kept",
        with_properties(
            {
                "a": {"default": 0},
                "b": {"default": False},
                "c": {"default": ""},
                "d": {"default": []},
            }
        ),
    ),
    ("root-string", {"type": "string"}),
    ("root-type-list-object", {"type": ["object"], "properties": {}}),
    ("root-nullable", {"type": ["object", "null"], "properties": {}}),
    ("root-any-of-and-nullable", {"type": ["object", "null"], "anyOf": [STR]}),
    ("root-any-of-empty-list", {"type": "object", "properties": {}, "anyOf": []}),
    ("root-any-of-not-a-list", {"type": "object", "properties": {}, "anyOf": {"a": 1}}),
    ("root-any-of-null", {"type": "object", "properties": {}, "anyOf": None}),
    ("root-not-a-dict", [OBJ]),
    ("root-scalar", 3),
    (
        "non-dict-in-defs-first",
        {"properties": {"p": 5}, "$defs": {"A": 6}, "items": {"anyOf": [8]}},
    ),
    ("non-dict-order", {"items": {"anyOf": [8]}, "anyOf": [9], "allOf": [10], "oneOf": [11]}),
]


@pytest.mark.parametrize(("name", "schema"), SHAPE_CASES, ids=[name for name, _ in SHAPE_CASES])
def test_shapes_match_sdk(name: str, schema: Any) -> None:
    same_as_sdk(schema)


def test_spot_checks_that_both_sides_are_not_wrong_together() -> None:
    chain = with_properties(
        {"a": {"$ref": "#/$defs/A", "title": "t"}},
        A={"$ref": "#/$defs/B"},
        B={"$ref": "#/$defs/C"},
        C=OBJ,
    )
    chained = ensure_strict_json_schema(chain)
    assert chained["properties"]["a"] == {
        "title": "t",
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": False,
        "required": ["a"],
    }
    folded = ensure_strict_json_schema(copy.deepcopy(dict(SHAPE_CASES)["all-of-one-inline"]))
    assert folded["properties"]["a"]["description"] == "d"
    assert "allOf" not in folded["properties"]["a"]
    with pytest.raises(Exception, match="circular `\\$ref` chain"):
        ensure_strict_json_schema(copy.deepcopy(dict(SHAPE_CASES)["all-of-one-circular"]))


def test_a_self_including_all_of_target_is_compared_not_walked_again() -> None:
    # A's only variant folds A itself back in: the SDK compares the two instead of recursing
    schema = with_properties(
        {},
        A={"anyOf": [{"anyOf": [STR], "allOf": [{"$ref": "#/$defs/A"}]}]},
    )
    kind, _, message = same_as_sdk(schema)
    assert kind == "raised" and "(anyOf)" in message
