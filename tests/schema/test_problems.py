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
        "not",
        _prop(OPENAI_OK, {"type": "string", "not": {"enum": ["x"]}}),
        "properties.a: the 'not' keyword is not supported in strict mode",
        _prop(OPENAI_OK, {"type": "string"}),
    ),
    (
        "if-then",
        _prop(OPENAI_OK, {"type": "integer", "if": {"minimum": 1}, "then": {"maximum": 9}}),
        "properties.a: the 'if' keyword is not supported in strict mode",
        _prop(OPENAI_OK, {"type": "integer", "minimum": 1, "maximum": 9}),
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
        "format",
        _prop(OPENAI_OK, {"type": "string", "format": "uri"}),
        "properties.a: format 'uri' is not supported in strict mode",
        _prop(OPENAI_OK, {"type": "string", "format": "date-time"}),
    ),
    (
        "ref-remote",
        _prop(OPENAI_OK, {"$ref": "https://example.com/s.json"}),
        "properties.a: $ref 'https://example.com/s.json' points outside the schema",
        _prop(OPENAI_OK, {"$ref": "#"}),
    ),
    (
        "ref-dangling",
        _prop(OPENAI_OK, {"$ref": "#/$defs/Nope"}),
        "properties.a: $ref '#/$defs/Nope' points to nothing",
        {**_prop(OPENAI_OK, {"$ref": "#/$defs/Nope"}), "$defs": {"Nope": {"type": "string"}}},
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
    (
        "long-enum-chars",
        _prop(OPENAI_OK, {"type": "string", "enum": [f"{i:060d}" for i in range(251)]}),
        "properties.a: this enum has 251 strings of 15060 characters in all",
        _prop(OPENAI_OK, {"type": "string", "enum": [f"{i:060d}" for i in range(250)]}),
    ),
    (
        "string-total",
        _obj(**{f"{i:0120d}": {"type": "string"} for i in range(1001)}),
        "(root): property names, definition names, enum and const values add up to 120120",
        _obj(**{f"{i:0120d}": {"type": "string"} for i in range(1000)}),
    ),
]

# Refused by the rules before 2026-11-23, accepted by what the guide documents now: length
# bounds and patternProperties are unsupported for fine-tuned models only; a $ref may sit
# beside annotations and point into "definitions" (no rule about either in the guide).
OPENAI_ACCEPTED: list[tuple[str, Any]] = [
    ("minLength", _prop(OPENAI_OK, {"type": "string", "minLength": 1, "maxLength": 9})),
    (
        "patternProperties",
        _prop(OPENAI_OK, {**_obj(), "patternProperties": {"^x": {"type": "string"}}}),
    ),
    (
        "ref-into-definitions",
        {**_prop(OPENAI_OK, {"$ref": "#/definitions/B"}), "definitions": {"B": {"type": "string"}}},
    ),
    (
        "ref-with-description",
        {
            **_prop(OPENAI_OK, {"$ref": "#/$defs/B", "description": "d"}),
            "$defs": {"B": {"type": "string"}},
        },
    ),
    ("default-and-title", _prop(OPENAI_OK, {"type": "integer", "default": 3, "title": "A"})),
    ("number-bounds", _prop(OPENAI_OK, {"type": "number", "exclusiveMinimum": 0, "multipleOf": 2})),
]


RECURSIVE_REQUIRED: dict[str, Any] = {
    **_obj(tree={"$ref": "#/$defs/Node"}),
    "$defs": {
        "Node": _obj(
            name={"type": "string"}, kids={"type": "array", "items": {"$ref": "#/$defs/Node"}}
        )
    },
}
RECURSIVE_OPTIONAL: dict[str, Any] = {
    **_obj(tree={"$ref": "#/$defs/Node"}),
    "$defs": {
        "Node": {
            **_obj(name={"type": "string"}),
            "properties": {
                "name": {"type": "string"},
                "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
        }
    },
}

GEMINI_RULES: list[tuple[str, Any, str, Any]] = [
    (
        "root-object",
        {"type": "array", "items": {"type": "string"}},
        "(root): parametersJsonSchema must describe an object",
        GEMINI_OK,
    ),
    (
        "ref-siblings",
        {
            **_prop(GEMINI_OK, {"$ref": "#/$defs/B", "description": "d"}),
            "$defs": {"B": {"type": "string"}},
        },
        "properties.a: Gemini accepts no keywords beside $ref, but this one has description",
        {
            **_prop(GEMINI_OK, {"$ref": "#/$defs/B", "$comment": "only $-keywords"}),
            "$defs": {"B": {"type": "string", "description": "d"}},
        },
    ),
    (
        "recursion-through-required",
        RECURSIVE_REQUIRED,
        "$defs.Node.properties.kids.items: this recursive reference is reached only through "
        "required properties",
        RECURSIVE_OPTIONAL,
    ),
    (
        "root-recursion-through-required",
        _obj(child={"anyOf": [{"$ref": "#"}, {"type": "null"}]}),
        "properties.child.anyOf.0: this recursive reference is reached only through required",
        {**_obj(), "properties": {"child": {"$ref": "#"}}},
    ),
    (
        "unknown-type",
        _prop(GEMINI_OK, {"type": "date"}),
        "properties.a: 'date' is not a JSON Schema type",
        _prop(GEMINI_OK, {"type": "string", "format": "date-time"}),
    ),
    (
        "ref-dangling",
        _prop(GEMINI_OK, {"$ref": "#/$defs/Nope"}),
        "properties.a: $ref '#/$defs/Nope' points to nothing",
        {**_prop(GEMINI_OK, {"$ref": "#/$defs/Nope"}), "$defs": {"Nope": {"type": "string"}}},
    ),
]

# Each schema the OpenAPI-subset rules flagged before 2026-11-23. Gemini clients now send MCP
# tool schemas as parametersJsonSchema, which takes all of these (the older `parameters`
# field refuses them, and a client using it must convert the schema itself).
GEMINI_ACCEPTED: list[tuple[str, Any]] = [
    ("ref", {**_prop(GEMINI_OK, {"$ref": "#/$defs/B"}), "$defs": {"B": {"type": "string"}}}),
    ("defs", {**GEMINI_OK, "$defs": {"B": {"type": "string"}}}),
    ("additionalProperties-false", {**GEMINI_OK, "additionalProperties": False}),
    (
        "additionalProperties-dict",
        _prop(GEMINI_OK, {"type": "object", "additionalProperties": {"type": "integer"}}),
    ),
    ("const", _prop(GEMINI_OK, {"type": "string", "const": "x"})),
    ("oneOf", _prop(GEMINI_OK, {"oneOf": [{"type": "string"}, {"type": "integer"}]})),
    ("exclusiveMinimum", _prop(GEMINI_OK, {"type": "integer", "exclusiveMinimum": 0})),
    ("type-list", _prop(GEMINI_OK, {"type": ["string", "null"]})),
    ("anyOf-null", _prop(GEMINI_OK, {"anyOf": [{"type": "integer"}, {"type": "null"}]})),
    ("null-type", _prop(GEMINI_OK, {"type": "null"})),
    ("missing-type", _prop(GEMINI_OK, {"description": "anything"})),
    ("empty-object", _prop(GEMINI_OK, {"type": "object"})),
    ("empty-root", {"type": "object", "properties": {}}),
    ("array-items", _prop(GEMINI_OK, {"type": "array"})),
    ("enum-not-string", _prop(GEMINI_OK, {"type": "integer", "enum": [1, 2]})),
    ("string-format", _prop(GEMINI_OK, {"type": "string", "format": "email"})),
    ("required-undeclared", {**GEMINI_OK, "required": ["a", "b"]}),
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

# Valid draft 2020-12 that the API takes as is.
ANTHROPIC_ACCEPTED: list[tuple[str, Any]] = [
    (
        "open-object",
        _prop(ANTHROPIC_OK, {"type": "object", "additionalProperties": {"type": "integer"}}),
    ),
    ("constraints", _prop(ANTHROPIC_OK, {"type": "string", "minLength": 1, "pattern": "^a"})),
    ("nested-anyOf", _prop(ANTHROPIC_OK, {"anyOf": [{"type": "string"}, {"type": "null"}]})),
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


ALL_ACCEPTED = [
    *(("openai-strict", *case) for case in OPENAI_ACCEPTED),
    *(("gemini", *case) for case in GEMINI_ACCEPTED),
    *(("anthropic", *case) for case in ANTHROPIC_ACCEPTED),
]


@pytest.mark.parametrize(
    ("dialect", "case", "schema"),
    ALL_ACCEPTED,
    ids=[f"{dialect}-{case}" for dialect, case, _ in ALL_ACCEPTED],
)
def test_what_the_provider_accepts_is_not_reported(dialect: str, case: str, schema: Any) -> None:
    assert schema_problems(schema, dialect) == []


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


@pytest.mark.parametrize("dialect", [["gemini"], {"gemini": 1}, {"gemini"}])
def test_an_unhashable_dialect_is_named_as_unknown(dialect: Any) -> None:
    with pytest.raises(ValueError, match=r"unknown schema dialect .*gemini.*; expected one of"):
        schema_problems(OPENAI_OK, dialect)


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
    schema["properties"]["b"]["not"] = {"enum": ["x"]}
    assert [str(p) for p in schema_problems(schema, "openai-strict")] == [
        "properties.b: the 'not' keyword is not supported in strict mode; drop it and check the "
        "value in the tool",
        "properties.b: format 'uri' is not supported in strict mode (supported: date, date-time, "
        "duration, email, hostname, ipv4, ipv6, time, uuid); remove it or use a pattern",
        "properties.a: format 'uri' is not supported in strict mode (supported: date, date-time, "
        "duration, email, hostname, ipv4, ipv6, time, uuid); remove it or use a pattern",
    ]


class Address(BaseModel):
    street: str
    zip_code: str = Field(pattern=r"^[0-9]{5}$")


def test_sdk_strict_schemas_are_clean_for_every_dialect() -> None:
    def register(address: Address, limit: int | None = None, mode: Literal["a", "b"] = "a") -> str:
        """Register."""
        return mode

    schema = function_schema(register).params_json_schema
    assert schema["properties"]["address"] == {"$ref": "#/$defs/Address"}
    assert schema["properties"]["limit"]["anyOf"][1] == {"type": "null"}
    # Before 2026-11-23 the gemini dialect flagged this $ref and the null variant (rules of the
    # OpenAPI `parameters` field); parametersJsonSchema takes both.
    for dialect in DIALECTS:
        assert schema_problems(schema, dialect) == [], dialect


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


def test_recursive_model_is_flagged_for_gemini_only_when_strict() -> None:
    def plant(tree: Tree) -> str:
        """Plant."""
        return tree.label

    strict = function_schema(plant).params_json_schema
    assert [str(p) for p in schema_problems(strict, "gemini")] == [
        "$defs.Tree.properties.children.items: this recursive reference is reached only through "
        "required properties, which Gemini cannot unroll; give the recursive field a default in "
        "a tool served with strict_mode=False, or flatten the structure (e.g. a list with "
        "parent ids)"
    ]
    assert schema_problems(strict, "openai-strict") == []
    loose = function_schema(plant, strict_json_schema=False).params_json_schema
    assert schema_problems(loose, "gemini") == []


def test_described_model_parameter_is_flagged_for_gemini_only_when_not_strict() -> None:
    def ship(address: Address) -> str:
        """Ship.

        Args:
            address: Where to.
        """
        return address.street

    loose = function_schema(ship, strict_json_schema=False).params_json_schema
    assert loose["properties"]["address"] == {"$ref": "#/$defs/Address", "description": "Where to."}
    assert [str(p) for p in schema_problems(loose, "gemini")] == [
        "properties.address: Gemini accepts no keywords beside $ref, but this one has "
        "description; serve the tool in strict mode (toolwire's default), which inlines it, or "
        "describe the model in its class docstring instead"
    ]
    assert schema_problems(function_schema(ship).params_json_schema, "gemini") == []


def test_non_strict_sdk_schema_lists_what_openai_strict_rejects() -> None:
    def fetch(
        url: str, headers: dict[str, str] | None = None, pair: tuple[int, str] = (1, "a")
    ) -> str:
        """Fetch."""
        return url

    schema = function_schema(fetch, strict_json_schema=False).params_json_schema
    messages = [str(p) for p in schema_problems(schema, "openai-strict")]
    assert messages[:2] == [
        '(root): objects need "additionalProperties": false; serve the tool in strict mode '
        "(toolwire's default: drop strict_mode=False) and use a model with fixed fields instead "
        "of dict[str, X]",
        "(root): every property must be required; missing from required: headers, pair; serve "
        "the tool in strict mode (toolwire's default: drop strict_mode=False), which requires "
        "them all and makes optional ones nullable",
    ]
    assert any(m.startswith("properties.headers.anyOf.0: objects need") for m in messages)
    assert any(m.startswith("properties.pair: the 'prefixItems' keyword") for m in messages)


def test_untyped_parameter_is_flagged_for_openai_only() -> None:
    def anyp(a, b=None):  # type: ignore[no-untyped-def]
        return a

    schema = function_schema(anyp).params_json_schema
    assert next(str(p) for p in schema_problems(schema, "openai-strict")).startswith(
        "properties.a: strict mode needs a 'type'"
    )
    # Gemini flagged the untyped `b` before 2026-11-23; parametersJsonSchema accepts it.
    assert schema_problems(schema, "gemini") == []
    assert schema_problems(schema, "anthropic") == []


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "odd",
    [
        {"properties": {"a": {"type": [{}, "string"]}}},
        {"properties": {"a": {"type": {"x": 1}}}},
        {"properties": {"a": {"$ref": "#/$defs/l/²"}}, "$defs": {"l": [{}, {}, {}]}},
        {"properties": {"a": {"$ref": "#/$defs/A", 7: "seven"}}, "$defs": {"A": {}}},
    ],
)
def test_unhashable_types_odd_indices_and_keys_are_reported_not_raised(
    dialect: str, odd: dict[Any, Any]
) -> None:
    problems = schema_problems({"type": "object", **odd}, dialect)
    assert all(isinstance(p, SchemaProblem) for p in problems)


def test_a_type_that_is_not_a_name_is_reported_as_such() -> None:
    schema = {"type": "object", "properties": {"a": {"type": [{}, "string"]}}}
    for dialect in ("gemini", "anthropic"):
        assert [str(p) for p in schema_problems(schema, dialect)] == [
            "properties.a: {} is not a JSON Schema type; use one of "
            "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']"
        ]
