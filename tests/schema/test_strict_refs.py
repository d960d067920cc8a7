"""`$ref` handling in strict conversion against the Agents SDK, and toolwire's one pointer reader.

Chains (ref to ref to ref, with and without annotations on the links), keywords beside a
`$ref` (annotations merge, constraints are refused), `$defs` vs `definitions`, escaped and
percent-encoded pointers, unresolvable and non-local references, nested `$id` resources.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from agents.strict_schema import resolve_ref as sdk_resolve_ref
from tests.schema._strict_oracle import OBJ, STR, same_as_sdk, with_properties

from toolwire.schema.refs import lookup_local_ref, pointer_tokens
from toolwire.schema.strict import resolve_ref

# -- $ref --------------------------------------------------------------------------------------

REF_CASES: list[tuple[str, Any]] = [
    ("bare-kept", with_properties({"a": {"$ref": "#/$defs/A"}}, A=OBJ)),
    ("bare-dangling-kept", with_properties({"a": {"$ref": "#/$defs/Nope"}})),
    ("bare-non-string-kept", with_properties({"a": {"$ref": 5}})),
    (
        "chain-3",
        with_properties(
            {"a": {"$ref": "#/$defs/A", "title": "t"}},
            A={"$ref": "#/$defs/B"},
            B={"$ref": "#/$defs/C"},
            C=OBJ,
        ),
    ),
    (
        "chain-annotated-links",
        {
            "$defs": {
                "C": {"$ref": "#/$defs/A", "title": "c"},
                "A": {"$ref": "#/$defs/B", "title": "a", "description": "ad"},
                "B": {"type": "string", "description": "bd", "default": 1},
            },
            "type": "object",
            "properties": {},
        },
    ),
    (
        "chain-through-bare-back-to-self",
        {
            "$defs": {
                "C": {"$ref": "#/$defs/A", "title": "c"},
                "A": {"$ref": "#/$defs/B", "description": "x"},
                "B": {"$ref": "#/$defs/C"},
            },
            "type": "object",
            "properties": {},
        },
    ),
    ("self-ref-annotated", with_properties({}, C={"$ref": "#/$defs/C", "title": "c"})),
    (
        "mutual-annotated",
        with_properties(
            {}, C={"$ref": "#/$defs/A", "title": "c"}, A={"$ref": "#/$defs/C", "title": "a"}
        ),
    ),
    (
        "circular-bare-inlined",
        with_properties(
            {"a": {"$ref": "#/$defs/A", "title": "t"}},
            A={"$ref": "#/$defs/B"},
            B={"$ref": "#/$defs/A"},
        ),
    ),
    (
        "chain-dangling",
        with_properties({"a": {"$ref": "#/$defs/A", "title": "t"}}, A={"$ref": "#/$defs/B"}),
    ),
    (
        "sibling-description",
        with_properties({"a": {"$ref": "#/$defs/A", "description": "d"}}, A=OBJ),
    ),
    (
        "sibling-title-wins",
        with_properties(
            {"a": {"title": "mine", "$ref": "#/$defs/A"}}, A={**STR, "title": "theirs"}
        ),
    ),
    ("sibling-default", with_properties({"a": {"$ref": "#/$defs/A", "default": "x"}}, A=STR)),
    (
        "sibling-default-none-leaves-bare",
        with_properties({"a": {"$ref": "#/$defs/A", "default": None}}, A=STR),
    ),
    (
        "sibling-default-none-target-default",
        with_properties(
            {"a": {"$ref": "#/$defs/A", "title": "t", "default": None}}, A={**STR, "default": "q"}
        ),
    ),
    ("sibling-type", with_properties({"a": {"$ref": "#/$defs/A", "type": "string"}}, A=STR)),
    (
        "sibling-minimum-and-type",
        with_properties({"a": {"$ref": "#/$defs/A", "type": "integer", "minimum": 0}}, A=STR),
    ),
    ("sibling-properties", with_properties({"a": {"$ref": "#/$defs/A", "properties": {}}}, A=OBJ)),
    (
        "sibling-defs",
        with_properties({"a": {"$defs": {"Q": STR}, "$ref": "#/properties/a/$defs/Q"}}),
    ),
    ("sibling-anchor", with_properties({"a": {"$anchor": "x", "$ref": "#/$defs/A"}}, A=STR)),
    ("sibling-id-nested", with_properties({"a": {"$id": "urn:a", "$ref": "#/$defs/A"}}, A=STR)),
    ("sibling-id-not-string", with_properties({"a": {"$id": 5, "$ref": "#/$defs/A"}}, A=STR)),
    (
        "definitions",
        {
            "definitions": {"A": OBJ},
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A", "title": "x"}},
        },
    ),
    (
        "defs-and-definitions",
        {
            "definitions": {"A": STR},
            "$defs": {"B": {"$ref": "#/definitions/A", "title": "b"}},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/B", "description": "d"}},
        },
    ),
    (
        "escaped-slash-tilde",
        with_properties({"a": {"$ref": "#/$defs/a~1b~0c", "title": "x"}}, **{"a/b~c": OBJ}),
    ),
    (
        "escaped-tilde-one-literal",
        with_properties({"a": {"$ref": "#/$defs/a~01", "title": "x"}}, **{"a~1": STR}),
    ),
    (
        "percent-space",
        with_properties({"a": {"$ref": "#/$defs/A%20B", "title": "x"}}, **{"A B": STR}),
    ),
    (
        "percent-slash-splits",
        with_properties({"a": {"$ref": "#/$defs/A%2FB", "title": "x"}}, **{"A/B": STR}),
    ),
    ("percent-bad-utf8", with_properties({"a": {"$ref": "#/$defs/%ff", "title": "x"}}, A=STR)),
    ("hash-only", with_properties({"a": {"$ref": "#", "title": "x"}})),
    ("hash-slash", with_properties({"a": {"$ref": "#/", "title": "x"}})),
    ("other-document", with_properties({"a": {"$ref": "other.json#/A", "title": "x"}})),
    ("non-string", with_properties({"a": {"$ref": ["#/$defs/A"], "title": "x"}}, A=STR)),
    ("missing-defs", with_properties({"a": {"$ref": "#/$defs/A", "title": "x"}})),
    ("missing-name", with_properties({"a": {"$ref": "#/$defs/B", "title": "x"}}, A=STR)),
    (
        "through-list",
        with_properties({"a": {"$ref": "#/$defs/A/anyOf/0", "title": "x"}}, A={"anyOf": [STR]}),
    ),
    (
        "to-scalar",
        with_properties(
            {"a": {"$ref": "#/$defs/A/minLength", "title": "x"}}, A={**STR, "minLength": 1}
        ),
    ),
    (
        "to-later-property",
        with_properties({"a": {"$ref": "#/properties/b", "title": "t"}, "b": {"type": "object"}}),
    ),
    (
        "to-earlier-property",
        with_properties(
            {
                "b": {"properties": {"q": {"default": None}}},
                "a": {"$ref": "#/properties/b", "title": "t"},
            }
        ),
    ),
    (
        "to-own-ancestor",
        with_properties(
            {"a": {"type": "object", "properties": {"b": {"$ref": "#/properties/a", "title": "t"}}}}
        ),
    ),
    ("root-ref", {"$ref": "#/$defs/A", "$defs": {"A": OBJ}}),
    # the error shows the object the pointer stepped from, `$ref` still in it
    ("root-ref-through-non-object", {"$ref": "#/$defs/A", "$defs": 5}),
    ("root-ref-with-id", {"$id": "urn:x", "$ref": "#/$defs/A", "$defs": {"A": OBJ}}),
    ("root-ref-with-title", {"title": "T", "$ref": "#/$defs/A", "$defs": {"A": OBJ}}),
    ("root-ref-constrained", {"minProperties": 1, "$ref": "#/$defs/A", "$defs": {"A": OBJ}}),
    ("root-ref-to-any-of", {"$ref": "#/$defs/A", "$defs": {"A": {"anyOf": [OBJ]}}}),
    (
        "root-ref-to-nullable",
        {"$ref": "#/$defs/A", "$defs": {"A": {**OBJ, "type": ["object", "null"]}}},
    ),
    (
        "nested-resource-owns-ref",
        with_properties(
            {"r": {"$id": "urn:r", "type": "object", "properties": {"a": {"$ref": "#"}}}}
        ),
    ),
    (
        "nested-resource-deep-ref",
        with_properties(
            {
                "r": {
                    "$id": "urn:r",
                    "type": "object",
                    "properties": {"a": {"items": {"anyOf": [{"$ref": "#/$defs/A"}]}}},
                }
            },
            A=STR,
        ),
    ),
    (
        "nested-resource-error-order",
        with_properties(
            {"r": {"$id": "urn:r", "type": "object", "properties": {"x": 5, "a": {"$ref": "#"}}}}
        ),
    ),
    (
        "ref-crossing-resource",
        with_properties(
            {"a": {"$ref": "#/$defs/R/$defs/A", "title": "x"}},
            R={"$id": "urn:r", "$defs": {"A": OBJ}},
        ),
    ),
    (
        "ref-onto-resource",
        with_properties({"a": {"$ref": "#/$defs/R", "title": "x"}}, R={"$id": "urn:r", **OBJ}),
    ),
    (
        "bare-ref-onto-resource",
        with_properties({"a": {"$ref": "#/$defs/R"}}, R={"$id": "urn:r", **OBJ}),
    ),
    ("ref-in-enum-is-data", with_properties({"r": {"$id": "urn:r", "enum": [{"$ref": "#"}]}})),
    (
        "pydantic-optional-model",
        {
            "$defs": {
                "Leaf": {
                    "properties": {"x": {"title": "X", "type": "integer"}},
                    "required": ["x"],
                    "title": "Leaf",
                    "type": "object",
                }
            },
            "properties": {
                "leaf": {"anyOf": [{"$ref": "#/$defs/Leaf"}, {"type": "null"}], "default": None}
            },
            "title": "M",
            "type": "object",
        },
    ),
]


@pytest.mark.parametrize(("name", "schema"), REF_CASES, ids=[name for name, _ in REF_CASES])
def test_refs_match_sdk(name: str, schema: Any) -> None:
    same_as_sdk(schema)


# -- resolve_ref, the SDK's public helper, and toolwire's one pointer reader -------------------

RESOLVE_CASES: list[tuple[dict[str, Any], str]] = [
    ({"$defs": {"A": {"x": 1}}}, "#/$defs/A"),
    ({"$defs": {"A": {"$id": "urn:a"}}}, "#/$defs/A"),
    ({"$defs": {"A": 5}}, "#/$defs/A"),
    ({"$defs": {}}, "#/$defs/A"),
    ({}, "#"),
    ({}, "A"),
    ({"a%b": {}}, "#/a%25b"),
    ({"a": {}}, "#/%ff"),
    ({"a": {"b": {}}}, "#/a%2Fb"),
    ({"a/b": {"c~d": {}}}, "#/a~1b/c~0d"),
    ({"$id": "urn:root", "a": {}}, "#/a"),
]


@pytest.mark.parametrize(("root", "ref"), RESOLVE_CASES)
def test_resolve_ref_matches_sdk(root: dict[str, Any], ref: str) -> None:
    def outcome(resolve: Any) -> tuple[str, str]:
        try:
            return ("ok", repr(resolve(root=copy.deepcopy(root), ref=ref)))
        except Exception as error:  # compared, not handled
            return (type(error).__name__, str(error))

    assert outcome(resolve_ref) == outcome(sdk_resolve_ref)


def test_pointer_reader_unescapes_and_finds_nothing_for_a_bad_ref() -> None:
    document = {"$defs": {"a/b~c d": {"x": 1}}, "l": [{"y": 2}]}
    assert lookup_local_ref(document, "#/$defs/a~1b~0c%20d") == {"x": 1}
    assert lookup_local_ref(document, "#/l/0/y") == 2
    assert lookup_local_ref(document, "#/l/0/y", through_lists=False) is None
    assert lookup_local_ref(document, "#") is document
    assert pointer_tokens("#/~01") == ["~1"]
    assert pointer_tokens("#/a%20b", percent_decoded=False) == ["a%20b"]
    with pytest.raises(UnicodeDecodeError):
        pointer_tokens("#/%ff")
    for ref in ["#/$defs/missing", "#/l/7", "#/l/0/y/z", "elsewhere.json#/x", "#/%ff", "#x", 7]:
        assert lookup_local_ref(document, ref) is None, ref


SIBLING_KEYWORDS = [
    "$anchor", "$comment", "$defs", "$schema", "contentEncoding", "contentMediaType",
    "contentSchema", "default", "definitions", "deprecated", "description", "examples",
    "readOnly", "title", "writeOnly", "$id", "id", "type", "enum", "const", "minimum",
    "properties", "items", "anyOf", "allOf", "nullable", "format", "x-extension",
]  # fmt: skip


# which keywords may sit beside a `$ref` (merged) and which are refused, nested and at the root
@pytest.mark.parametrize("keyword", SIBLING_KEYWORDS)
def test_each_sibling_keyword_matches_sdk(keyword: str) -> None:
    value: Any = {} if keyword in ("$defs", "definitions", "properties", "items") else "v"
    same_as_sdk(with_properties({"a": {"$ref": "#/$defs/A", keyword: value}}, A=OBJ))
    same_as_sdk({"$ref": "#/$defs/A", keyword: value, "$defs": {"A": OBJ}})


@pytest.mark.parametrize("index", ["²", "٣", "01", "-1", "1.0", ""])
def test_a_list_index_is_ascii_digits_without_leading_zeros(index: str) -> None:
    document = {"l": [{"y": 0}, {"y": 1}, {"y": 2}, {"y": 3}]}
    assert lookup_local_ref(document, "#/l/0") == {"y": 0}
    assert lookup_local_ref(document, "#/l/3/y") == 3
    assert lookup_local_ref(document, f"#/l/{index}") is None
