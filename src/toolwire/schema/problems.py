"""What a model provider would refuse in a tool's input schema, each with what to do about it.

`schema_problems` checks against "openai-strict", "gemini" or "anthropic" offline, reporting
only what the provider refuses, not what it ignores. Each rule quotes its source beside it
(docs/decisions.md names the documents).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .refs import lookup_local_ref

__all__ = ["DIALECTS", "SchemaProblem", "schema_problems"]

DIALECTS: tuple[str, ...] = ("openai-strict", "gemini", "anthropic")

# (dotted path, message) pairs, in schema order.
Found = Iterator[tuple[str, str]]


@dataclass(frozen=True)
class SchemaProblem:
    """One thing a provider would refuse, and the way out.

    Args:
        dialect: The provider dialect that refuses it.
        path: Where, as dotted keys from the root ("" for the root itself).
        message: What is wrong and what the author can do about it.
    """

    dialect: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(root)'}: {self.message}"


def schema_problems(schema: dict[str, Any], dialect: str) -> list[SchemaProblem]:
    """List what `dialect`'s provider would refuse in `schema` (empty when nothing).

    Args:
        schema: A tool's input JSON schema.
        dialect: "openai-strict", "gemini" or "anthropic".

    Returns:
        The problems in schema order, each with its path and what the author can do.

    Raises:
        ValueError: If the dialect is not one of the three.
    """
    check = _CHECKS.get(dialect) if isinstance(dialect, str) else None
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
    # dict.fromkeys: each (path, message) once, in the order found
    return [SchemaProblem(dialect, *found) for found in dict.fromkeys(check(schema))]


# Keywords whose value is a map of name -> sub-schema, one sub-schema, or a list of them.
_SCHEMA_MAPS = ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas")
_SCHEMA_VALUES = (
    *("items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems"),
    *("contains", "propertyNames", "not", "if", "then", "else"),
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")

_MAX_WALK_DEPTH = 200


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_object(node: dict[str, Any]) -> bool:
    typ = node.get("type")
    return typ == "object" or (isinstance(typ, list) and "object" in typ) or "properties" in node


def _subschemas(
    node: Any, path: str = "", depth: int = 0, steps: int = 0
) -> Iterator[tuple[str, dict[str, Any], int]]:
    """Every sub-schema, root first: (dotted path, schema, objects deep, `$defs` at 0)."""
    if not isinstance(node, dict) or steps > _MAX_WALK_DEPTH:
        return
    depth = depth + 1 if _is_object(node) else depth
    yield path, node, depth
    for key in _SCHEMA_MAPS:
        children = node.get(key)
        if isinstance(children, dict):
            child_depth = 0 if key in ("$defs", "definitions") else depth
            for name, child in children.items():
                yield from _subschemas(child, _join(path, f"{key}.{name}"), child_depth, steps + 1)
    for key in _SCHEMA_VALUES:
        child = node.get(key)
        if isinstance(child, dict):
            yield from _subschemas(child, _join(path, key), depth, steps + 1)
    for key in _SCHEMA_LISTS:
        variants = node.get(key)
        if isinstance(variants, list):
            for index, child in enumerate(variants):
                yield from _subschemas(child, _join(path, f"{key}.{index}"), depth, steps + 1)


_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def _ref_problems(root: dict[str, Any], path: str, node: dict[str, Any]) -> Found:
    """A `$ref` to another document, or to nothing in this one."""
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return
    if not ref.startswith("#"):
        yield path, f"$ref {ref!r} points outside the schema; put the definition under $defs"
    elif lookup_local_ref(root, ref) is None:
        yield path, f"$ref {ref!r} points to nothing; add the definition under $defs"


def _type_name_problems(path: str, node: dict[str, Any]) -> Found:
    """A `type` naming something JSON Schema does not have (e.g. "int", "date")."""
    typ = node.get("type")
    for name in typ if isinstance(typ, list) else [typ] if typ is not None else []:
        if not isinstance(name, str) or name not in _JSON_TYPES:
            yield path, f"{name!r} is not a JSON Schema type; use one of {sorted(_JSON_TYPES)}"


def _anthropic(schema: dict[str, Any]) -> Found:
    """What the Claude API refuses in `schema` sent as a tool's `input_schema`."""
    if schema.get("type") != "object":
        yield "", 'input_schema must have "type": "object" at the root; take named parameters'
    for keyword in ("anyOf", "oneOf", "allOf"):
        if keyword in schema:
            yield (
                "",
                f"input_schema must not use {keyword} at the root; make the alternatives one "
                "parameter's type, or split the tool",
            )
    for path, node, _depth in _subschemas(schema):
        yield from _draft_2020_12(path, node)
        yield from _ref_problems(schema, path, node)


def _draft_2020_12(path: str, node: dict[str, Any]) -> Found:
    """What the draft 2020-12 metaschema rejects in this one node."""
    yield from _type_name_problems(path, node)
    typ = node.get("type")
    if isinstance(typ, list) and len(set(map(str, typ))) != len(typ):
        yield path, '"type" lists a type twice; list each once'
    if isinstance(node.get("items"), list):
        yield path, '"items" must be one schema in draft 2020-12; use "prefixItems" for tuples'
    for keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        value = node.get(keyword)
        if keyword in node and (isinstance(value, bool) or not isinstance(value, int | float)):
            yield (
                path,
                f"{keyword} must be a number in draft 2020-12 (true/false is draft 4); write "
                "the bound itself",
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
        if keyword in node and not isinstance(node[keyword], dict | bool | list):
            yield path, f'"{keyword}" must be a schema (an object or a boolean)'
    if "enum" in node and not isinstance(node["enum"], list):
        yield path, '"enum" must be a list of values'


def _gemini(schema: dict[str, Any]) -> Found:
    """What Gemini refuses in `schema` sent as a function's `parametersJsonSchema`."""
    if schema.get("type") != "object":
        yield "", "parametersJsonSchema must describe an object; take the value as a parameter"
    for path, node, _depth in _subschemas(schema):
        yield from _type_name_problems(path, node)
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        # "If $ref is set on a sub-schema, no other properties, except for those starting
        # as a $, may be set."
        extra = sorted(str(key) for key in node if not str(key).startswith("$"))
        if extra:
            yield (
                path,
                f"Gemini accepts no keywords beside $ref, but this one has {', '.join(extra)}; "
                "serve the tool in strict mode (toolwire's default), which inlines it, or "
                "describe the model in its class docstring instead",
            )
        yield from _ref_problems(schema, path, node)
    # "Cyclic references are unrolled to a limited degree and, as such, may only be used
    # within non-required properties. (Nullable properties are not sufficient.)" So each
    # definition, and the root, is followed through its required parts back to itself.
    defs = schema.get("$defs")
    named = defs.items() if isinstance(defs, dict) else ()
    starts = [(f"#/$defs/{name}", f"$defs.{name}", value) for name, value in named]
    for ref, start, target in [*starts, ("#", "", schema)]:
        for path in _follow_required(schema, target, ref, start, {ref}, 0):
            yield (
                path,
                "this recursive reference is reached only through required properties, which "
                "Gemini cannot unroll; give the recursive field a default in a tool served "
                "with strict_mode=False, or flatten the structure (e.g. a list with parent ids)",
            )


_MAX_CYCLE_STEPS = 100


def _follow_required(
    root: dict[str, Any], node: Any, goal: str, path: str, expanded: set[str], steps: int
) -> Iterator[str]:
    """Each `$ref` back to `goal` in the parts of `node` an instance must contain (each
    reference followed once per goal)."""
    if not isinstance(node, dict) or steps > _MAX_CYCLE_STEPS:
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref == goal:
            yield path
        elif ref not in expanded:
            expanded.add(ref)
            target = lookup_local_ref(root, ref)
            yield from _follow_required(root, target, goal, path, expanded, steps + 1)
        return
    below: list[tuple[str, Any]] = []
    properties = node.get("properties")
    required = node.get("required")
    if isinstance(properties, dict) and isinstance(required, list):
        for name in required:
            child = properties.get(name) if isinstance(name, str) else None
            below.append((f"properties.{name}", child))
    below.append(("items", node.get("items")))
    for keyword in ("anyOf", "oneOf", "allOf"):
        variants = node.get(keyword)
        if isinstance(variants, list):
            below.extend((f"{keyword}.{index}", child) for index, child in enumerate(variants))
    for step, child in below:
        yield from _follow_required(root, child, goal, _join(path, step), expanded, steps + 1)


# "Some type-specific keywords are not yet supported: Composition: allOf, not,
# dependentRequired, dependentSchemas, if, then, else". `oneOf` is absent from "Supported
# types" (anyOf is the union there); the rest are in no supported list.
_OPENAI_UNSUPPORTED = {
    "allOf": "merge the entries into one model",
    "not": "drop it and check the value in the tool",
    "if": "drop the condition and check it in the tool",
    "then": "drop the condition and check it in the tool",
    "else": "drop the condition and check it in the tool",
    "dependentRequired": "drop it and check the combination in the tool",
    "dependentSchemas": "drop it and check the combination in the tool",
    "oneOf": "use a plain Union (anyOf); strict mode (toolwire's default) converts oneOf",
    "uniqueItems": "drop it and deduplicate in the tool (e.g. take a list, not a set)",
    "prefixItems": "use a list of one item type, or a model with named fields, not a tuple",
    "contains": "drop it and check the items in the tool",
    "minContains": "drop it and check the items in the tool",
    "maxContains": "drop it and check the items in the tool",
    "propertyNames": "declare fixed properties (a model) instead",
    "minProperties": "drop it; every property is required in strict mode anyway",
    "maxProperties": "drop it; every property is required in strict mode anyway",
    "unevaluatedProperties": 'drop it; "additionalProperties": false already closes the object',
    "unevaluatedItems": "drop it",
}
# "format — Predefined formats for strings. Currently supported: ..."
_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# "Objects have limitations on nesting depth and size", "Limitations on total string size",
# "Limitations on enum size".
_OPENAI_MAX_OBJECT_DEPTH = 10
_OPENAI_MAX_PROPERTIES = 5000
_OPENAI_MAX_STRING_TOTAL = 120_000
_OPENAI_MAX_ENUM_VALUES = 1000
_OPENAI_LONG_ENUM = 250
_OPENAI_MAX_LONG_ENUM_CHARS = 15_000


def _openai_strict(schema: dict[str, Any]) -> Found:
    """What OpenAI refuses in `schema` sent as a strict function's parameters."""
    # "Root objects must not be anyOf and must be an object".
    if schema.get("type") != "object":
        yield "", 'the root must be {"type": "object"}; take the value as a named parameter'
    if "anyOf" in schema:
        yield "", "the root must not use anyOf; make the alternatives one parameter's type"
    for path, node, depth in _subschemas(schema):
        if _is_object(node):
            if depth > _OPENAI_MAX_OBJECT_DEPTH:
                yield (
                    path,
                    f"objects are nested {depth} levels deep here; strict mode allows "
                    f"{_OPENAI_MAX_OBJECT_DEPTH}, so flatten the models",
                )
            # "additionalProperties: false must always be set in objects".
            if node.get("additionalProperties") is not False:
                yield (
                    path,
                    'objects need "additionalProperties": false; serve the tool in strict mode '
                    "(toolwire's default: drop strict_mode=False) and use a model with fixed "
                    "fields instead of dict[str, X]",
                )
            yield from _openai_required(path, node)
        # Not in the guide: the API answers a schema without one "schema must have a 'type'
        # key" (its 400 error message, seen for untyped parameters).
        if not any(key in node for key in ("type", "anyOf", "$ref", "enum", "const")):
            yield path, "strict mode needs a 'type' here; annotate the parameter with a type"
        for keyword, fix in _OPENAI_UNSUPPORTED.items():
            if keyword in node:
                yield path, f"the {keyword!r} keyword is not supported in strict mode; {fix}"
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _OPENAI_FORMATS:
            yield (
                path,
                f"format {fmt!r} is not supported in strict mode (supported: "
                f"{', '.join(sorted(_OPENAI_FORMATS))}); remove it or use a pattern",
            )
        yield from _ref_problems(schema, path, node)
    yield from _openai_totals(schema)


def _openai_required(path: str, node: dict[str, Any]) -> Found:
    # "All fields must be required" (the API's 400 says "'required' is required to be supplied
    # and to be an array including every key in properties"). The guide is silent on naming a
    # property that does not exist; the API refuses that too, as reported by its users.
    properties = node.get("properties")
    names = list(properties) if isinstance(properties, dict) else []
    required = node.get("required")
    listed = required if isinstance(required, list) else []
    missing = [str(name) for name in names if name not in listed]
    if missing:
        yield (
            path,
            f"every property must be required; missing from required: {', '.join(missing)}; "
            "serve the tool in strict mode (toolwire's default: drop strict_mode=False), "
            "which requires them all and makes optional ones nullable",
        )
    unknown = [str(name) for name in listed if name not in names]
    if unknown:
        yield (
            path,
            f"required names properties that do not exist: {', '.join(unknown)}; "
            "remove them from required",
        )


def _openai_totals(schema: dict[str, Any]) -> Found:
    """The guide's whole-schema limits."""
    properties = enum_values = string_chars = 0
    long_enums: list[tuple[str, int, int]] = []
    for path, node, _depth in _subschemas(schema):
        # "total string length of all property names, definition names, enum values, and
        # const values cannot exceed 120,000 characters".
        for key in ("properties", "$defs", "definitions"):
            names = node.get(key)
            if isinstance(names, dict):
                string_chars += sum(len(str(name)) for name in names)
                if key == "properties":
                    properties += len(names)
        if "const" in node:
            string_chars += len(str(node["const"]))
        enum = node.get("enum")
        if isinstance(enum, list):
            chars = sum(len(str(value)) for value in enum)
            enum_values += len(enum)
            string_chars += chars
            strings = all(isinstance(value, str) for value in enum)
            if strings and len(enum) > _OPENAI_LONG_ENUM:
                long_enums.append((path, len(enum), chars))
    if properties > _OPENAI_MAX_PROPERTIES:
        yield (
            "",
            f"the schema declares {properties} properties; strict mode allows "
            f"{_OPENAI_MAX_PROPERTIES} in all, so split the tool",
        )
    if enum_values > _OPENAI_MAX_ENUM_VALUES:
        yield (
            "",
            f"the schema has {enum_values} enum values; strict mode allows "
            f"{_OPENAI_MAX_ENUM_VALUES} in all, so take a plain string and check it in the tool",
        )
    for path, count, chars in long_enums:
        if chars > _OPENAI_MAX_LONG_ENUM_CHARS:
            yield (
                path,
                f"this enum has {count} strings of {chars} characters in all; strict mode "
                f"allows {_OPENAI_MAX_LONG_ENUM_CHARS} characters in an enum of more than "
                f"{_OPENAI_LONG_ENUM} values, so take a plain string and check it in the tool",
            )
    if string_chars > _OPENAI_MAX_STRING_TOTAL:
        yield (
            "",
            f"property names, definition names, enum and const values add up to "
            f"{string_chars} characters; strict mode allows "
            f"{_OPENAI_MAX_STRING_TOTAL}, so split the tool or shorten the enums",
        )


_CHECKS: dict[str, Callable[[dict[str, Any]], Found]] = {
    "openai-strict": _openai_strict,
    "gemini": _gemini,
    "anthropic": _anthropic,
}
