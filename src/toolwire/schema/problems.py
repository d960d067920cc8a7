"""What a given client would reject in a tool's JSON schema, said in words, with a fix.

Three dialects: "openai-strict" (OpenAI strict function calling / structured outputs),
"gemini" (Gemini function declarations' `parameters`, an OpenAPI 3.0 schema subset) and
"anthropic" (Claude tool `input_schema`, JSON Schema draft 2020-12). The checks are static: they
read the schema and never call a service. The rule for each message lives next to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ._walk import is_object, iter_subschemas
from .refs import lookup_local_ref

__all__ = ["DIALECTS", "SchemaProblem", "schema_problems"]

DIALECTS: tuple[str, ...] = ("openai-strict", "gemini", "anthropic")

Found = Iterator[tuple[str, str]]
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


@dataclass(frozen=True)
class SchemaProblem:
    """One thing a client would reject.

    Args:
        dialect: The client dialect that rejects it.
        path: Where, as dotted keys from the root ("" for the root itself).
        message: What is wrong and how to fix it.
    """

    dialect: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(root)'}: {self.message}"


# -- OpenAI strict mode ----------------------------------------------------------------------
# Rules from OpenAI's "Supported schemas" for structured outputs: the root is an object and
# not anyOf; every object has additionalProperties: false and lists every property as
# required; only the documented keyword subset and string formats; $ref into #/$defs or "#";
# at most 10 levels of object nesting, 5000 properties and 1000 enum values in total.

_OPENAI_UNSUPPORTED = {
    "oneOf": "use anyOf (ensure_strict_json_schema converts oneOf for you)",
    "allOf": "merge the entries into one schema",
    "not": "remove it",
    "if": "remove it",
    "then": "remove it",
    "else": "remove it",
    "dependentRequired": "remove it",
    "dependentSchemas": "remove it",
    "patternProperties": "declare fixed properties instead",
    "propertyNames": "remove it",
    "unevaluatedProperties": "remove it (additionalProperties: false already closes the object)",
    "minProperties": "remove it",
    "maxProperties": "remove it",
    "minLength": "remove it and check the length in the tool",
    "maxLength": "remove it and check the length in the tool",
    "prefixItems": "use an array of one item type, or an object with named fields",
    "unevaluatedItems": "remove it",
    "contains": "remove it",
    "minContains": "remove it",
    "maxContains": "remove it",
    "uniqueItems": "remove it and deduplicate in the tool",
}
_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_OPENAI_MAX_OBJECT_DEPTH = 10
_OPENAI_MAX_PROPERTIES = 5000
_OPENAI_MAX_ENUM_VALUES = 1000


def _openai_strict(schema: dict[str, Any]) -> Found:
    if schema.get("type") != "object":
        yield "", 'the root must be {"type": "object"}; wrap the value in an object property'
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in schema:
            yield (
                "",
                f"the root must not use {combinator}; make the choice a property of the root",
            )
    total_properties = 0
    total_enum_values = 0
    for path, node, depth in iter_subschemas(schema):
        if is_object(node):
            if depth > _OPENAI_MAX_OBJECT_DEPTH:
                yield (
                    path,
                    f"objects are nested {depth} levels deep here; strict mode allows at most "
                    f"{_OPENAI_MAX_OBJECT_DEPTH}, so flatten the structure",
                )
            if node.get("additionalProperties") is not False:
                yield (
                    path,
                    'objects need "additionalProperties": false; use a model with fixed fields '
                    "instead of dict[str, X], or turn strict mode off",
                )
            yield from _openai_required(path, node)
        properties = node.get("properties")
        if isinstance(properties, dict):
            total_properties += len(properties)
        enum = node.get("enum")
        if isinstance(enum, list):
            total_enum_values += len(enum)
        if not _has_type_or_alternative(node):
            yield (
                path,
                "strict mode needs a 'type' on every schema; annotate the parameter "
                "(an unannotated one becomes an untyped schema)",
            )
        for keyword, fix in _OPENAI_UNSUPPORTED.items():
            if keyword in node and not (keyword == "allOf" and path == ""):
                yield path, f"the {keyword!r} keyword is not supported in strict mode; {fix}"
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _OPENAI_FORMATS:
            yield (
                path,
                f"format {fmt!r} is not supported in strict mode (supported: "
                f"{', '.join(sorted(_OPENAI_FORMATS))}); remove it or use a pattern",
            )
        yield from _openai_ref(schema, path, node)
    if total_properties > _OPENAI_MAX_PROPERTIES:
        yield (
            "",
            f"the schema declares {total_properties} properties; strict mode allows at most "
            f"{_OPENAI_MAX_PROPERTIES} in total, so split the tool",
        )
    if total_enum_values > _OPENAI_MAX_ENUM_VALUES:
        yield (
            "",
            f"the schema has {total_enum_values} enum values; strict mode allows at most "
            f"{_OPENAI_MAX_ENUM_VALUES} in total, so take a free string and validate it",
        )


def _openai_required(path: str, node: dict[str, Any]) -> Found:
    properties = node.get("properties")
    names = list(properties) if isinstance(properties, dict) else []
    required = node.get("required")
    required_names = required if isinstance(required, list) else []
    missing = [name for name in names if name not in required_names]
    if missing:
        yield (
            path,
            f"every property must be required; missing from required: {', '.join(missing)} "
            "(make optional ones nullable, e.g. int | None, instead of leaving them out)",
        )
    extra = [str(name) for name in required_names if name not in names]
    if extra:
        yield (
            path,
            f"required names properties that do not exist: {', '.join(extra)}; "
            "remove them from required",
        )


def _has_type_or_alternative(node: dict[str, Any]) -> bool:
    return any(key in node for key in ("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"))


def _openai_ref(root: dict[str, Any], path: str, node: dict[str, Any]) -> Found:
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return
    if ref != "#" and not ref.startswith("#/$defs/"):
        yield (
            path,
            f"$ref {ref!r} must be '#' or point into #/$defs; move the definition under $defs",
        )
    elif lookup_local_ref(root, ref) is None:
        yield path, f"$ref {ref!r} points to nothing; add the definition under $defs"
    siblings = sorted(set(node) - {"$ref"})
    if siblings:
        yield (
            path,
            f"a $ref must stand alone, but this one has {', '.join(siblings)}; inline the "
            "target (ensure_strict_json_schema does) or drop the extra keywords",
        )


# -- Gemini function declarations -----------------------------------------------------------
# `parameters` is an OpenAPI 3.0 Schema object with a fixed field set: any other key is an
# "Unknown name" error. One type per schema (nullable instead of null), non-empty properties
# for objects, items for arrays, enum only on strings, string format only enum/date-time.

_GEMINI_FIELDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)
_GEMINI_FIXES = {
    "$ref": "inline the referenced schema",
    "$defs": "inline the definitions where they are used",
    "definitions": "inline the definitions where they are used",
    "additionalProperties": "declare fixed properties instead (Gemini cannot express dict[str, X])",
    "const": 'use "enum" with one value',
    "oneOf": "use anyOf",
    "allOf": "merge the entries into one schema",
    "exclusiveMinimum": "use minimum",
    "exclusiveMaximum": "use maximum",
    "examples": 'use "example" with one value',
}
_GEMINI_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array"})


def _gemini(schema: dict[str, Any]) -> Found:
    null_variants: set[int] = set()  # reported once, on their anyOf
    for path, node, _depth in iter_subschemas(schema):
        for keyword in node:
            if keyword not in _GEMINI_FIELDS:
                fix = _GEMINI_FIXES.get(keyword, "remove it")
                if keyword == "additionalProperties" and node[keyword] is False:
                    fix = "remove it (Gemini accepts only the declared properties anyway)"
                yield path, f"Gemini does not accept {keyword!r} (unknown schema field); {fix}"
        typ = node.get("type")
        if isinstance(typ, list):
            yield path, 'Gemini needs a single "type", not a list; use "nullable": true for null'
        elif typ == "null" and id(node) not in null_variants:
            yield path, 'Gemini has no "null" type; mark the other schema "nullable": true'
        elif isinstance(typ, str) and typ not in _GEMINI_TYPES | {"null"}:
            yield path, f"Gemini does not know the type {typ!r}"
        elif typ is None and "anyOf" not in node and "$ref" not in node:
            yield path, 'Gemini needs a "type" on every schema; annotate the parameter'
        variants = node.get("anyOf")
        nulls = (
            [v for v in variants if isinstance(v, dict) and v.get("type") == "null"]
            if (isinstance(variants, list))
            else []
        )
        null_variants.update(id(v) for v in nulls)
        if nulls:
            yield (
                path,
                'anyOf with {"type": "null"} is not accepted by Gemini; use the non-null '
                'schema with "nullable": true',
            )
        properties = node.get("properties")
        if typ == "object" and not properties:
            fix = (
                "omit parameters for a tool without arguments"
                if path == ""
                else "declare the fields (a model instead of dict or object)"
            )
            yield path, f"Gemini rejects object schemas without properties; {fix}"
        if typ == "array" and "items" not in node:
            yield path, 'Gemini needs "items" on every array; annotate the element type'
        if "enum" in node and typ != "string":
            yield path, 'Gemini allows enum only with "type": "string"; use string values'
        fmt = node.get("format")
        if typ == "string" and isinstance(fmt, str) and fmt not in ("enum", "date-time"):
            yield (
                path,
                f"Gemini accepts only the string formats enum and date-time, not {fmt!r}; "
                "remove it",
            )
        required = node.get("required")
        if isinstance(required, list):
            declared = properties if isinstance(properties, dict) else {}
            for name in required:
                if name not in declared:
                    yield path, f"required names {name!r}, which is not a declared property"


# -- Anthropic tool input_schema ------------------------------------------------------------
# The root must be {"type": "object"} without anyOf/oneOf/allOf ("input_schema does not support
# oneOf, allOf, or anyOf at the top level"); the whole schema must be valid draft 2020-12.


def _anthropic(schema: dict[str, Any]) -> Found:
    if schema.get("type") != "object":
        yield "", 'input_schema must have "type": "object" at the root'
    for keyword in ("anyOf", "oneOf", "allOf"):
        if keyword in schema:
            yield "", f"input_schema must not use {keyword} at the root; use properties instead"
    for path, node, _depth in iter_subschemas(schema):
        yield from _draft_2020_12(path, node)
        ref = node.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#"):
                yield path, f"$ref {ref!r} points outside the schema; inline it"
            elif lookup_local_ref(schema, ref) is None:
                yield path, f"$ref {ref!r} points to nothing in the schema; add the target"


def _draft_2020_12(path: str, node: dict[str, Any]) -> Found:
    """Metaschema violations a draft 2020-12 validator reports for this node."""
    typ = node.get("type")
    types = typ if isinstance(typ, list) else [typ] if typ is not None else []
    for name in types:
        if name not in _JSON_TYPES:
            yield path, f"{name!r} is not a JSON Schema type; use one of {sorted(_JSON_TYPES)}"
    if isinstance(typ, list) and len(set(map(str, typ))) != len(typ):
        yield path, '"type" lists a type twice; list each once'
    if "items" in node and isinstance(node["items"], list):
        yield path, '"items" must be one schema in draft 2020-12; use "prefixItems" for tuples'
    for keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        value = node.get(keyword)
        if keyword in node and (isinstance(value, bool) or not isinstance(value, int | float)):
            yield (
                path,
                f"{keyword} must be a number in draft 2020-12 (the boolean form is draft 4); "
                "write the bound itself",
            )
    required = node.get("required")
    if "required" in node and (
        not isinstance(required, list)
        or not all(isinstance(name, str) for name in required)
        or len(set(required)) != len(required)
    ):
        yield path, '"required" must be a list of distinct property names'
    for keyword in ("properties", "$defs", "patternProperties"):
        if keyword in node and not isinstance(node[keyword], dict):
            yield path, f'"{keyword}" must be an object mapping names to schemas'
    for keyword in ("anyOf", "oneOf", "allOf"):
        if keyword in node and not (isinstance(node[keyword], list) and node[keyword]):
            yield path, f'"{keyword}" must be a non-empty list of schemas'
    for keyword in ("additionalProperties", "items", "not"):
        value = node.get(keyword)
        if keyword in node and not isinstance(value, dict | bool | list):
            yield path, f'"{keyword}" must be a schema (an object or a boolean)'
    if "enum" in node and not isinstance(node["enum"], list):
        yield path, '"enum" must be a list of values'


_CHECKS: dict[str, Callable[[dict[str, Any]], Found]] = {
    "openai-strict": _openai_strict,
    "gemini": _gemini,
    "anthropic": _anthropic,
}


def schema_problems(schema: dict[str, Any], dialect: str) -> list[SchemaProblem]:
    """List what `dialect`'s clients would reject in `schema` (empty when nothing).

    Args:
        schema: A tool's input JSON schema.
        dialect: "openai-strict", "gemini" or "anthropic".

    Returns:
        The problems in schema order, each with its path and a suggested fix.

    Raises:
        ValueError: If the dialect is not one of the three.
    """
    check = _CHECKS.get(dialect)
    if check is None:
        raise ValueError(
            f"unknown schema dialect {dialect!r}; expected one of {', '.join(DIALECTS)}"
        )
    if not isinstance(schema, dict):
        return [
            SchemaProblem(
                dialect, "", f"a schema must be a JSON object, not {type(schema).__name__}"
            )
        ]
    seen: set[tuple[str, str]] = set()
    problems: list[SchemaProblem] = []
    for path, message in check(schema):
        if (path, message) not in seen:
            seen.add((path, message))
            problems.append(SchemaProblem(dialect, path, message))
    return problems
