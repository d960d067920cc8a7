"""What every dialect of `schema_problems` shares: the finding type and the `$ref` check."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .refs import lookup_local_ref

__all__ = ["JSON_TYPES", "Found", "ref_problems", "type_name_problems"]

# (dotted path, message) pairs, in schema order.
Found = Iterator[tuple[str, str]]

JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def ref_problems(root: dict[str, Any], path: str, node: dict[str, Any]) -> Found:
    """A `$ref` no provider can follow: to another document, or to nothing in this one.

    None of them fetches a remote schema (OpenAI: "Definitions are supported", as `$defs`
    inside the schema), and an unresolvable reference is an error for any JSON Schema
    consumer that evaluates it.
    """
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return
    if not ref.startswith("#"):
        yield path, f"$ref {ref!r} points outside the schema; put the definition under $defs"
    elif lookup_local_ref(root, ref) is None:
        yield path, f"$ref {ref!r} points to nothing; add the definition under $defs"


def type_name_problems(path: str, node: dict[str, Any]) -> Found:
    """A `type` naming something JSON Schema does not have (e.g. "int", "date")."""
    typ = node.get("type")
    for name in typ if isinstance(typ, list) else [typ] if typ is not None else []:
        if name not in JSON_TYPES:
            yield path, f"{name!r} is not a JSON Schema type; use one of {sorted(JSON_TYPES)}"
