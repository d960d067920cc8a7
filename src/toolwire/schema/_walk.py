"""Walking a JSON schema's sub-schemas with dotted paths (`$ref`s are read by refs.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Keywords whose value is a map of name -> sub-schema, one sub-schema, or a list of them.
_SCHEMA_MAPS = ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas")
_SCHEMA_VALUES = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")

# Far deeper than any real schema; it only keeps a self-referencing dict from recursing forever.
_MAX_WALK_DEPTH = 200


def join(path: str, key: str) -> str:
    """`path` extended by one dotted key."""
    return f"{path}.{key}" if path else key


def is_object(node: dict[str, Any]) -> bool:
    """Whether the schema describes a JSON object."""
    typ = node.get("type")
    return typ == "object" or (isinstance(typ, list) and "object" in typ) or "properties" in node


def iter_subschemas(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], int]]:
    """Every sub-schema (the root first) as (dotted path, schema, object nesting depth).

    The depth counts the object schemas from the root down to and including this one; `$defs`
    start again at zero because a definition's depth depends on where it is used.
    """
    yield from _walk(schema, "", 0, 0)


def _walk(
    node: Any, path: str, depth: int, steps: int
) -> Iterator[tuple[str, dict[str, Any], int]]:
    if not isinstance(node, dict) or steps > _MAX_WALK_DEPTH:
        return
    depth = depth + 1 if is_object(node) else depth
    yield path, node, depth
    for key in _SCHEMA_MAPS:
        children = node.get(key)
        if isinstance(children, dict):
            child_depth = 0 if key in ("$defs", "definitions") else depth
            for name, child in children.items():
                yield from _walk(child, join(path, f"{key}.{name}"), child_depth, steps + 1)
    for key in _SCHEMA_VALUES:
        child = node.get(key)
        if isinstance(child, dict):
            yield from _walk(child, join(path, key), depth, steps + 1)
    for key in _SCHEMA_LISTS:
        variants = node.get(key)
        if isinstance(variants, list):
            for index, child in enumerate(variants):
                yield from _walk(child, join(path, f"{key}.{index}"), depth, steps + 1)
