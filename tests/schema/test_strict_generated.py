"""Generated schemas, converted by toolwire and by the Agents SDK, must agree.

The generator leans on what the hand-written differential cases single out, so that their
combinations are compared too: annotated and bare `$ref`s to `$defs`, `definitions`, escaped
names, properties and nowhere; nested `$id`; one-entry `allOf`; open objects; null defaults.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.schema._strict_oracle import same_as_sdk

# -- generated schemas -------------------------------------------------------------------------

REFS = [
    "#/$defs/A",
    "#/$defs/B",
    "#/definitions/C",
    "#/$defs/a~1b",
    "#/$defs/sp%20ace",
    "#/properties/p",
    "#/properties/q",
    "#/$defs/A/properties/p",
    "#/$defs/Missing",
    "#/$defs/A/anyOf/0",
    "#/$defs/A/title",
    "#",
    "#/",
    "other#/x",
]
ANNOTATION_KEYS = ["title", "description", "default", "examples", "$comment"]
LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "default": None},
        {"type": "null"},
        {"type": ["string", "null"]},
        {"type": "object"},
        {"type": "object", "additionalProperties": False},
        {"enum": ["a", "b"]},
        {},
        {"$ref": "#/$defs/A"},
        {"$ref": "#/$defs/B", "title": "t"},
        {"$ref": "#/definitions/C", "description": "d"},
    ]
)


def _node(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys: dict[str, st.SearchStrategy[Any]] = {
        "type": st.sampled_from(
            ["object", "array", "string", None, ["object"], ["object", "null"]]
        ),
        "properties": st.dictionaries(st.sampled_from(["p", "q", "r"]), children, max_size=3),
        "items": children,
        "anyOf": st.lists(children, min_size=1, max_size=3),
        "oneOf": st.lists(children, min_size=1, max_size=2),
        "allOf": st.lists(children, min_size=1, max_size=2),
        "$ref": st.sampled_from(REFS),
        "$id": st.sampled_from(["urn:n", 7]),
        "additionalProperties": st.sampled_from([False, True, {}, {"type": "integer"}]),
        "default": st.sampled_from([None, 0, "x"]),
        "title": st.sampled_from(["T", "U"]),
        "description": st.just("d"),
        "examples": st.just([1]),
        "required": st.just(["p"]),
        "minimum": st.sampled_from([0, 0.0, 1]),
        "x-flag": st.sampled_from([True, 1, 1.0]),
        "$defs": st.dictionaries(st.sampled_from(["A", "Z"]), children, max_size=1),
    }
    return st.fixed_dictionaries({}, optional=keys)


SCHEMAS = st.recursive(LEAVES, _node, max_leaves=10)
ROOTS = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.sampled_from(["p", "q"]), SCHEMAS, max_size=2),
    },
    optional={
        "$defs": st.fixed_dictionaries(
            {}, optional={"A": SCHEMAS, "B": SCHEMAS, "a/b": SCHEMAS, "sp ace": SCHEMAS}
        ),
        "definitions": st.fixed_dictionaries({}, optional={"C": SCHEMAS}),
        "$id": st.just("urn:root"),
        "$ref": st.sampled_from(REFS),
        "title": st.just("R"),
        "additionalProperties": st.sampled_from([False, True]),
        "allOf": st.lists(SCHEMAS, min_size=1, max_size=2),
        "anyOf": st.one_of(st.just(5), st.lists(SCHEMAS, max_size=2)),
    },
)
# the default keeps the suite quick; TOOLWIRE_STRICT_EXAMPLES=20000 for a long hunt
EXAMPLES = int(os.environ.get("TOOLWIRE_STRICT_EXAMPLES", "300"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(st.one_of(ROOTS, SCHEMAS), st.booleans())
def test_generated_schemas_match_sdk(schema: Any, reject_open: bool) -> None:
    same_as_sdk(schema, reject_open=reject_open)
