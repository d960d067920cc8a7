"""Argument problems follow `$ref`s the way the rest of toolwire does (schema/refs.py).

A tool whose input schema keeps a parameter's type behind a `$ref` (into `$defs` under an
escaped name, or into draft-7 `definitions`) still gets its wrong arguments named.
"""

from __future__ import annotations

from typing import Any

from toolwire.protocol.features.tools import argument_problems, call_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "shade": {"$ref": "#/$defs/Color~1Shade"},
        "size": {"$ref": "#/definitions/Size"},
        "label": {"$ref": "#/$defs/Label%20Text"},
        "elsewhere": {"$ref": "other.json#/Thing"},
    },
    "required": ["shade", "size"],
    "additionalProperties": False,
    "$defs": {"Color/Shade": {"enum": ["red", "blue"]}, "Label Text": {"type": "string"}},
    "definitions": {"Size": {"type": "integer"}},
}


def test_wrong_values_behind_refs_are_named() -> None:
    problems = argument_problems(SCHEMA, {"shade": "green", "size": "big", "label": 3})
    assert problems == [
        'shade: expected one of "red", "blue", got string',
        "size: expected integer, got string",
        "label: expected string, got integer",
    ]


def test_values_that_fit_their_targets_pass() -> None:
    assert argument_problems(SCHEMA, {"shade": "red", "size": 2, "label": "x"}) == []


def test_a_ref_that_names_nothing_here_accepts_anything() -> None:
    # no target to judge by: the argument is not blamed
    assert argument_problems(SCHEMA, {"shade": "red", "size": 1, "elsewhere": [1]}) == []


def test_null_for_a_nullable_target_is_kept() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"$ref": "#/definitions/N", "default": 1}},
        "definitions": {"N": {"type": ["integer", "null"]}},
    }
    assert call_arguments(schema, {"n": None}) == {"n": None}
    closed = {**schema, "definitions": {"N": {"type": "integer"}}}
    assert call_arguments(closed, {"n": None}) == {}
