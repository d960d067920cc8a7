"""Claude tool use, `input_schema`: what `schema_problems` reports."""

from __future__ import annotations

from typing import Any

from ._problems_common import Found, ref_problems, type_name_problems
from ._walk import iter_subschemas

__all__ = ["anthropic_problems"]

# Sources, checked 2026-11-23: Claude API reference, Messages, `tools[].input_schema`: "JSON
# schema (https://json-schema.org/draft/2020-12) for this tool's input", with "type": "object"
# required (the same text is in anthropic-sdk-python's types/tool_param.py); and the API's own
# 400 answers, which the docs do not list: "input_schema does not support oneOf, allOf, or
# anyOf at the top level" and "JSON schema is invalid. It must match JSON Schema draft
# 2020-12". Strict tool use (`strict: true`) has a narrower subset, but a client opts into it
# per tool and an MCP tool listing carries no such flag, so it is not a dialect here.


def anthropic_problems(schema: dict[str, Any]) -> Found:
    """What the Claude API refuses in `schema` sent as a tool's `input_schema`.

    Args:
        schema: A tool's input schema.

    Yields:
        (dotted path, message) for each refusal, in schema order.
    """
    if schema.get("type") != "object":
        yield "", 'input_schema must have "type": "object" at the root; take named parameters'
    for keyword in ("anyOf", "oneOf", "allOf"):
        if keyword in schema:
            yield (
                "",
                f"input_schema must not use {keyword} at the root; make the alternatives one "
                "parameter's type, or split the tool",
            )
    for path, node, _depth in iter_subschemas(schema):
        yield from _draft_2020_12(path, node)
        yield from ref_problems(schema, path, node)


def _draft_2020_12(path: str, node: dict[str, Any]) -> Found:
    """What the draft 2020-12 metaschema rejects in this one node."""
    yield from type_name_problems(path, node)
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
