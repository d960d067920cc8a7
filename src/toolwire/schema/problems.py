"""What a given client would reject in a tool's JSON schema, said in words, with a fix.

Three dialects: "openai-strict" (OpenAI strict function calling / structured outputs),
"gemini" (Gemini function declarations, an OpenAPI 3.0 subset) and "anthropic" (Claude tool
`input_schema`). The checks are static: they read the schema and never call a service.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DIALECTS", "SchemaProblem", "schema_problems"]

Dialect = Literal["openai-strict", "gemini", "anthropic"]
DIALECTS: tuple[str, ...] = ("openai-strict", "gemini", "anthropic")

# Keywords OpenAI's strict mode does not accept (its documented supported subset excludes them).
_OPENAI_UNSUPPORTED = (
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "if",
    "then",
    "else",
    "not",
    "dependentRequired",
    "dependentSchemas",
)
_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_GEMINI_UNSUPPORTED = ("$ref", "$defs", "definitions", "additionalProperties", "const", "oneOf")
_COMBINATORS = ("anyOf", "oneOf", "allOf")


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


def _walk(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sub-schema with its dotted path."""
    if not isinstance(node, dict):
        return
    yield path, node
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        children = node.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from _walk(child, _join(path, f"{key}.{name}"))
    for key in ("items", "additionalProperties", "not", "if", "then", "else"):
        child = node.get(key)
        if isinstance(child, dict):
            yield from _walk(child, _join(path, key))
    for key in (*_COMBINATORS, "prefixItems"):
        variants = node.get(key)
        if isinstance(variants, list):
            for index, child in enumerate(variants):
                yield from _walk(child, _join(path, f"{key}.{index}"))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_object(node: dict[str, Any]) -> bool:
    typ = node.get("type")
    return typ == "object" or (isinstance(typ, list) and "object" in typ) or "properties" in node


def _openai_strict(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    if schema.get("type") != "object":
        yield "", 'the root must be {"type": "object"}; wrap the value in an object property'
    if "anyOf" in schema:
        yield "", "the root must not use anyOf; make the choice a property of the root object"
    for path, node in _walk(schema, ""):
        if _is_object(node):
            if node.get("additionalProperties") is not False:
                yield (
                    path,
                    (
                        'objects need "additionalProperties": false; use a model with fixed fields '
                        "instead of dict[str, X], or turn strict mode off"
                    ),
                )
            properties = node.get("properties")
            if isinstance(properties, dict):
                missing = [name for name in properties if name not in node.get("required", [])]
                if missing:
                    yield (
                        path,
                        (
                            f"every property must be required; missing from required: "
                            f"{', '.join(missing)} (make optional ones nullable instead)"
                        ),
                    )
        for keyword in _OPENAI_UNSUPPORTED:
            if keyword in node:
                yield path, f"the {keyword!r} keyword is not supported in strict mode; remove it"
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _OPENAI_FORMATS:
            yield path, f"format {fmt!r} is not supported in strict mode; remove it"
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            yield path, f"$ref {ref!r} must point inside the schema (#/$defs/...)"


def _gemini(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for path, node in _walk(schema, ""):
        for keyword in _GEMINI_UNSUPPORTED:
            if keyword in node:
                yield (
                    path,
                    f"Gemini does not accept {keyword!r}; "
                    + {
                        "$ref": "inline the referenced schema",
                        "$defs": "inline the definitions where they are used",
                        "definitions": "inline the definitions where they are used",
                        "additionalProperties": "remove it (use fixed properties)",
                        "const": 'use "enum" with one value',
                        "oneOf": "use anyOf, or a single schema",
                    }[keyword],
                )
        typ = node.get("type")
        if isinstance(typ, list):
            yield path, 'Gemini needs a single "type", not a list; use "nullable": true for null'
        variants = node.get("anyOf")
        if isinstance(variants, list) and any(
            isinstance(v, dict) and v.get("type") == "null" for v in variants
        ):
            yield (
                path,
                (
                    'anyOf with {"type": "null"} is not accepted by Gemini; use the non-null '
                    'schema with "nullable": true (e.g. a default instead of Optional)'
                ),
            )
        if typ == "object" and not node.get("properties") and path != "":
            yield path, "Gemini rejects object schemas without properties; declare the fields"


def _anthropic(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    if schema.get("type") != "object":
        yield "", 'input_schema must have "type": "object" at the root'
    for keyword in _COMBINATORS:
        if keyword in schema:
            yield "", f"input_schema must not use {keyword} at the root; use properties instead"
    for path, node in _walk(schema, ""):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            yield path, f"$ref {ref!r} points outside the schema; inline it"


_CHECKS = {"openai-strict": _openai_strict, "gemini": _gemini, "anthropic": _anthropic}


def schema_problems(schema: dict[str, Any], dialect: str) -> list[SchemaProblem]:
    """List what `dialect`'s clients would reject in `schema` (empty when nothing).

    Args:
        schema: A tool's input (or output) JSON schema.
        dialect: "openai-strict", "gemini" or "anthropic".

    Returns:
        The problems, each with its path and a suggested fix.

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
