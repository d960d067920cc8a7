"""schema_problems: every rule with a schema that triggers it and a fixed schema that is clean."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolwire.schema.function_schema import function_schema
from toolwire.schema.problems import DIALECTS, SchemaProblem, schema_problems

OPENAI_OK: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": ["a"],
    "additionalProperties": False,
}
GEMINI_OK: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": ["a"],
}
ANTHROPIC_OK: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}


def _prop(base: dict[str, Any], schema: Any, **root: Any) -> dict[str, Any]:
    """`base` with property `a` replaced by `schema` and root keys updated."""
    result = copy.deepcopy(base)
    result["properties"]["a"] = schema
    result.update(root)
    return result


def _obj(**properties: Any) -> dict[str, Any]:
    """A strict-clean object with these properties."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _nested_objects(levels: int) -> dict[str, Any]:
    schema = _obj(leaf={"type": "string"})
    for _ in range(levels - 1):
        schema = _obj(child=schema)
    return schema


# (rule, bad schema, expected str() prefix, fixed schema)
OPENAI_RULES: list[tuple[str, Any, str, Any]] = [
    (
        "root-object",
        {"type": "array", "items": {"type": "string"}},
        '(root): the root must be {"type": "object"}',
        OPENAI_OK,
    ),
    (
        "root-anyOf",
        {**OPENAI_OK, "anyOf": [OPENAI_OK]},
        "(root): the root must not use anyOf",
        OPENAI_OK,
    ),
    (
        "additionalProperties",
        {**OPENAI_OK, "additionalProperties": True},
        '(root): objects need "additionalProperties": false',
        OPENAI_OK,
    ),
    (
        "nested-additionalProperties",
        _prop(OPENAI_OK, {"type": "object", "additionalProperties": {"type": "integer"}}),
        'properties.a: objects need "additionalProperties": false',
        _prop(OPENAI_OK, _obj(x={"type": "integer"})),
    ),
    (
        "all-required",
        {**OPENAI_OK, "required": []},
        "(root): every property must be required; missing from required: a",
        OPENAI_OK,
    ),
    (
        "extra-required",
        {**OPENAI_OK, "required": ["a", "b"]},
        "(root): required names properties that do not exist: b",
        OPENAI_OK,
    ),
    (
        "needs-type",
        _prop(OPENAI_OK, {"title": "A"}),
        "properties.a: strict mode needs a 'type'",
        _prop(OPENAI_OK, {"title": "A", "type": "string"}),
    ),
    (
        "oneOf",
        _prop(OPENAI_OK, {"oneOf": [{"type": "string"}, {"type": "null"}]}),
        "properties.a: the 'oneOf' keyword is not supported",
        _prop(OPENAI_OK, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    ),
    (
        "allOf",
        _prop(OPENAI_OK, {"allOf": [{"type": "string"}]}),
        "properties.a: the 'allOf' keyword is not supported",
        _prop(OPENAI_OK, {"type": "string"}),
    ),
    (
        "minLength",
        _prop(OPENAI_OK, {"type": "string", "minLength": 1}),
        "properties.a: the 'minLength' keyword is not supported",
        _prop(OPENAI_OK, {"type": "string", "pattern": "^.+$"}),
    ),
    (
        "uniqueItems",
        _prop(OPENAI_OK, {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        "properties.a: the 'uniqueItems' keyword",
        _prop(OPENAI_OK, {"type": "array", "items": {"type": "integer"}, "minItems": 1}),
    ),
    (
        "prefixItems",
        _prop(OPENAI_OK, {"type": "array", "prefixItems": [{"type": "integer"}]}),
        "properties.a: the 'prefixItems' keyword",
        _prop(OPENAI_OK, {"type": "array", "items": {"type": "integer"}}),
    ),
    (
        "patternProperties",
        _prop(OPENAI_OK, {**_obj(), "patternProperties": {"^x": {"type": "string"}}}),
        "properties.a: the 'patternProperties' keyword",
        _prop(OPENAI_OK, _obj()),
    ),
    (
        "format",
        _prop(OPENAI_OK, {"type": "string", "format": "uri"}),
        "properties.a: format 'uri' is not supported in strict mode",
        _prop(OPENAI_OK, {"type": "string", "format": "date-time"}),
    ),
    (
        "ref-outside-defs",
        {**_prop(OPENAI_OK, {"$ref": "#/definitions/B"}), "definitions": {"B": {"type": "string"}}},
        "properties.a: $ref '#/definitions/B' must be '#' or point into #/$defs",
        {**_prop(OPENAI_OK, {"$ref": "#/$defs/B"}), "$defs": {"B": {"type": "string"}}},
    ),
    (
        "ref-remote",
        _prop(OPENAI_OK, {"$ref": "https://example.com/s.json"}),
        "properties.a: $ref 'https://example.com/s.json' must be '#'",
        _prop(OPENAI_OK, {"$ref": "#"}),
    ),
    (
        "ref-dangling",
        _prop(OPENAI_OK, {"$ref": "#/$defs/Nope"}),
        "properties.a: $ref '#/$defs/Nope' points to nothing",
        {**_prop(OPENAI_OK, {"$ref": "#/$defs/Nope"}), "$defs": {"Nope": {"type": "string"}}},
    ),
    (
        "ref-siblings",
        {
            **_prop(OPENAI_OK, {"$ref": "#/$defs/B", "description": "d"}),
            "$defs": {"B": {"type": "string"}},
        },
        "properties.a: a $ref must stand alone, but this one has description",
        {
            **_prop(OPENAI_OK, {"$ref": "#/$defs/B"}),
            "$defs": {"B": {"type": "string", "description": "d"}},
        },
    ),
    ("depth", _nested_objects(11), "properties.child.properties.child", _nested_objects(10)),
    (
        "property-count",
        _obj(**{f"p{i}": {"type": "string"} for i in range(5001)}),
        "(root): the schema declares 5001 properties",
        _obj(**{f"p{i}": {"type": "string"} for i in range(5000)}),
    ),
    (
        "enum-count",
        _prop(OPENAI_OK, {"type": "string", "enum": [str(i) for i in range(1001)]}),
        "(root): the schema has 1001 enum values",
        _prop(OPENAI_OK, {"type": "string", "enum": [str(i) for i in range(1000)]}),
    ),
]

GEMINI_RULES: list[tuple[str, Any, str, Any]] = [
    (
        "ref",
        {**_prop(GEMINI_OK, {"$ref": "#/$defs/B"}), "$defs": {"B": {"type": "string"}}},
        "properties.a: Gemini does not accept '$ref' (unknown schema field); inline",
        _prop(GEMINI_OK, {"type": "string"}),
    ),
    (
        "defs",
        {**GEMINI_OK, "$defs": {"B": {"type": "string"}}},
        "(root): Gemini does not accept '$defs'",
        GEMINI_OK,
    ),
    (
        "additionalProperties-false",
        {**GEMINI_OK, "additionalProperties": False},
        "(root): Gemini does not accept 'additionalProperties' (unknown schema field); remove it",
        GEMINI_OK,
    ),
    (
        "additionalProperties-dict",
        _prop(GEMINI_OK, {"type": "object", "additionalProperties": {"type": "integer"}}),
        "properties.a: Gemini does not accept 'additionalProperties' (unknown schema field); declare fixed",
        _prop(GEMINI_OK, {"type": "object", "properties": {"k": {"type": "integer"}}}),
    ),
    (
        "const",
        _prop(GEMINI_OK, {"type": "string", "const": "x"}),
        "properties.a: Gemini does not accept 'const' (unknown schema field); use \"enum\"",
        _prop(GEMINI_OK, {"type": "string", "enum": ["x"]}),
    ),
    (
        "oneOf",
        _prop(GEMINI_OK, {"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        "properties.a: Gemini does not accept 'oneOf'",
        _prop(GEMINI_OK, {"anyOf": [{"type": "string"}, {"type": "integer"}]}),
    ),
    (
        "unknown-field",
        _prop(GEMINI_OK, {"type": "integer", "exclusiveMinimum": 0}),
        "properties.a: Gemini does not accept 'exclusiveMinimum' (unknown schema field); use minimum",
        _prop(GEMINI_OK, {"type": "integer", "minimum": 1}),
    ),
    (
        "type-list",
        _prop(GEMINI_OK, {"type": ["string", "null"]}),
        'properties.a: Gemini needs a single "type"',
        _prop(GEMINI_OK, {"type": "string", "nullable": True}),
    ),
    (
        "anyOf-null",
        _prop(GEMINI_OK, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        'properties.a: anyOf with {"type": "null"} is not accepted by Gemini',
        _prop(GEMINI_OK, {"type": "integer", "nullable": True}),
    ),
    (
        "null-type",
        _prop(GEMINI_OK, {"type": "null"}),
        'properties.a: Gemini has no "null" type',
        _prop(GEMINI_OK, {"type": "string", "nullable": True}),
    ),
    (
        "unknown-type",
        _prop(GEMINI_OK, {"type": "date"}),
        "properties.a: Gemini does not know the type 'date'",
        _prop(GEMINI_OK, {"type": "string", "format": "date-time"}),
    ),
    (
        "missing-type",
        _prop(GEMINI_OK, {"description": "anything"}),
        'properties.a: Gemini needs a "type" on every schema',
        _prop(GEMINI_OK, {"description": "anything", "type": "string"}),
    ),
    (
        "empty-object",
        _prop(GEMINI_OK, {"type": "object"}),
        "properties.a: Gemini rejects object schemas without properties; declare the fields",
        _prop(GEMINI_OK, {"type": "object", "properties": {"k": {"type": "string"}}}),
    ),
    (
        "empty-root",
        {"type": "object", "properties": {}},
        "(root): Gemini rejects object schemas without properties; omit parameters",
        GEMINI_OK,
    ),
    (
        "array-items",
        _prop(GEMINI_OK, {"type": "array"}),
        'properties.a: Gemini needs "items" on every array',
        _prop(GEMINI_OK, {"type": "array", "items": {"type": "string"}}),
    ),
    (
        "enum-not-string",
        _prop(GEMINI_OK, {"type": "integer", "enum": [1, 2]}),
        'properties.a: Gemini allows enum only with "type": "string"',
        _prop(GEMINI_OK, {"type": "string", "enum": ["1", "2"]}),
    ),
    (
        "string-format",
        _prop(GEMINI_OK, {"type": "string", "format": "email"}),
        "properties.a: Gemini accepts only the string formats enum and date-time, not 'email'",
        _prop(GEMINI_OK, {"type": "string", "format": "date-time"}),
    ),
    (
        "required-undeclared",
        {**GEMINI_OK, "required": ["a", "b"]},
        "(root): required names 'b', which is not a declared property",
        GEMINI_OK,
    ),
]

ANTHROPIC_RULES: list[tuple[str, Any, str, Any]] = [
    (
        "root-object",
        {"type": "string"},
        '(root): input_schema must have "type": "object" at the root',
        ANTHROPIC_OK,
    ),
    (
        "root-anyOf",
        {**ANTHROPIC_OK, "anyOf": [{"required": ["a"]}]},
        "(root): input_schema must not use anyOf at the root",
        ANTHROPIC_OK,
    ),
    (
        "root-oneOf",
        {**ANTHROPIC_OK, "oneOf": [{"required": ["a"]}]},
        "(root): input_schema must not use oneOf at the root",
        ANTHROPIC_OK,
    ),
    (
        "root-allOf",
        {**ANTHROPIC_OK, "allOf": [{"required": ["a"]}]},
        "(root): input_schema must not use allOf at the root",
        {**ANTHROPIC_OK, "required": ["a"]},
    ),
    (
        "ref-remote",
        _prop(ANTHROPIC_OK, {"$ref": "https://example.com/a.json"}),
        "properties.a: $ref 'https://example.com/a.json' points outside the schema",
        {**_prop(ANTHROPIC_OK, {"$ref": "#/$defs/A"}), "$defs": {"A": {"type": "string"}}},
    ),
    (
        "ref-dangling",
        _prop(ANTHROPIC_OK, {"$ref": "#/$defs/A"}),
        "properties.a: $ref '#/$defs/A' points to nothing",
        {**_prop(ANTHROPIC_OK, {"$ref": "#/$defs/A"}), "$defs": {"A": {"type": "string"}}},
    ),
    (
        "bad-type-name",
        _prop(ANTHROPIC_OK, {"type": "int"}),
        "properties.a: 'int' is not a JSON Schema type",
        _prop(ANTHROPIC_OK, {"type": "integer"}),
    ),
    (
        "duplicate-type",
        _prop(ANTHROPIC_OK, {"type": ["string", "string"]}),
        'properties.a: "type" lists a type twice',
        _prop(ANTHROPIC_OK, {"type": ["string", "null"]}),
    ),
    (
        "items-list",
        _prop(ANTHROPIC_OK, {"type": "array", "items": [{"type": "string"}]}),
        'properties.a: "items" must be one schema in draft 2020-12',
        _prop(ANTHROPIC_OK, {"type": "array", "prefixItems": [{"type": "string"}]}),
    ),
    (
        "exclusive-bool",
        _prop(ANTHROPIC_OK, {"type": "integer", "minimum": 0, "exclusiveMinimum": True}),
        "properties.a: exclusiveMinimum must be a number",
        _prop(ANTHROPIC_OK, {"type": "integer", "exclusiveMinimum": 0}),
    ),
    (
        "required-shape",
        {**ANTHROPIC_OK, "required": "a"},
        '(root): "required" must be a list of distinct property names',
        {**ANTHROPIC_OK, "required": ["a"]},
    ),
    (
        "properties-shape",
        {"type": "object", "properties": ["a"]},
        '(root): "properties" must be an object',
        ANTHROPIC_OK,
    ),
    (
        "empty-anyOf",
        _prop(ANTHROPIC_OK, {"anyOf": []}),
        'properties.a: "anyOf" must be a non-empty list',
        _prop(ANTHROPIC_OK, {"anyOf": [{"type": "string"}]}),
    ),
    (
        "additionalProperties-shape",
        {**ANTHROPIC_OK, "additionalProperties": "no"},
        '(root): "additionalProperties" must be a schema',
        {**ANTHROPIC_OK, "additionalProperties": False},
    ),
    (
        "enum-shape",
        _prop(ANTHROPIC_OK, {"enum": "ab"}),
        "(root)" if False else 'properties.a: "enum" must be a list',
        _prop(ANTHROPIC_OK, {"enum": ["a", "b"]}),
    ),
]

ALL_RULES = [
    *(("openai-strict", *rule) for rule in OPENAI_RULES),
    *(("gemini", *rule) for rule in GEMINI_RULES),
    *(("anthropic", *rule) for rule in ANTHROPIC_RULES),
]


@pytest.mark.parametrize(
    ("dialect", "rule", "bad", "expected", "good"),
    ALL_RULES,
    ids=[f"{dialect}-{rule}" for dialect, rule, *_ in ALL_RULES],
)
def test_rule_triggers_and_the_fix_is_clean(
    dialect: str, rule: str, bad: Any, expected: str, good: Any
) -> None:
    messages = [str(problem) for problem in schema_problems(bad, dialect)]
    assert any(message.startswith(expected) for message in messages), messages
    assert schema_problems(good, dialect) == []


def test_problem_is_a_readable_frozen_value() -> None:
    problem = SchemaProblem("gemini", "properties.limit", "anyOf with null ...")
    assert str(problem) == "properties.limit: anyOf with null ..."
    assert str(SchemaProblem("gemini", "", "x")) == "(root): x"
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.path = "elsewhere"  # type: ignore[misc]
    found = schema_problems({"type": "array"}, "anthropic")[0]
    assert (found.dialect, found.path) == ("anthropic", "")


def test_unknown_dialect_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"'bard'.*openai-strict, gemini, anthropic"):
        schema_problems(OPENAI_OK, "bard")
    assert DIALECTS == ("openai-strict", "gemini", "anthropic")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_not_a_schema_and_odd_values_do_not_crash(dialect: str) -> None:
    assert [str(p) for p in schema_problems([], dialect)] == [  # type: ignore[arg-type]
        "(root): a schema must be a JSON object, not list"
    ]
    odd = {
        "type": "object",
        "properties": {"a": True, "b": {"items": False, "anyOf": "x"}, "c": {"$ref": 3}},
        "required": [1, None],
        "$defs": [],
    }
    assert all(isinstance(p, SchemaProblem) for p in schema_problems(odd, dialect))
    cyclic: dict[str, Any] = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    assert isinstance(schema_problems(cyclic, dialect), list)


def test_each_problem_is_reported_once_in_schema_order() -> None:
    schema = _obj(b={"type": "string", "format": "uri"}, a={"type": "string", "format": "uri"})
    schema["properties"]["b"]["minLength"] = 2
    assert [str(p) for p in schema_problems(schema, "openai-strict")] == [
        "properties.b: the 'minLength' keyword is not supported in strict mode; remove it and "
        "check the length in the tool",
        "properties.b: format 'uri' is not supported in strict mode (supported: date, date-time, "
        "duration, email, hostname, ipv4, ipv6, time, uuid); remove it or use a pattern",
        "properties.a: format 'uri' is not supported in strict mode (supported: date, date-time, "
        "duration, email, hostname, ipv4, ipv6, time, uuid); remove it or use a pattern",
    ]


class Address(BaseModel):
    street: str
    zip_code: str = Field(pattern=r"^[0-9]{5}$")


def test_sdk_strict_schemas_are_clean_for_openai_and_anthropic() -> None:
    def register(address: Address, limit: int | None = None, mode: Literal["a", "b"] = "a") -> str:
        """Register."""
        return mode

    schema = function_schema(register).params_json_schema
    assert schema_problems(schema, "openai-strict") == []
    assert schema_problems(schema, "anthropic") == []
    gemini = [str(p) for p in schema_problems(schema, "gemini")]
    assert (
        "properties.address: Gemini does not accept '$ref' (unknown schema field); inline the referenced schema"
        in gemini
    )
    assert any(m.startswith('properties.limit: anyOf with {"type": "null"}') for m in gemini)
    # the null variant is reported once, on its anyOf, not again on its own
    assert not any(m.startswith("properties.limit.anyOf.1") for m in gemini)


def test_non_strict_sdk_schema_lists_what_openai_strict_rejects() -> None:
    def fetch(
        url: str, headers: dict[str, str] | None = None, pair: tuple[int, str] = (1, "a")
    ) -> str:
        """Fetch."""
        return url

    schema = function_schema(fetch, strict_json_schema=False).params_json_schema
    messages = [str(p) for p in schema_problems(schema, "openai-strict")]
    assert messages[:2] == [
        '(root): objects need "additionalProperties": false; use a model with fixed fields '
        "instead of dict[str, X], or turn strict mode off",
        "(root): every property must be required; missing from required: headers, pair "
        "(make optional ones nullable, e.g. int | None, instead of leaving them out)",
    ]
    assert any(m.startswith("properties.headers.anyOf.0: objects need") for m in messages)
    assert any(m.startswith("properties.pair: the 'prefixItems' keyword") for m in messages)


def test_untyped_parameter_is_flagged_for_openai_and_gemini() -> None:
    def anyp(a, b=None):  # type: ignore[no-untyped-def]
        return a

    schema = function_schema(anyp).params_json_schema
    assert next(str(p) for p in schema_problems(schema, "openai-strict")).startswith(
        "properties.a: strict mode needs a 'type'"
    )
    assert any(
        str(p).startswith('properties.b: Gemini needs a "type"')
        for p in schema_problems(schema, "gemini")
    )
    assert schema_problems(schema, "anthropic") == []
