"""Strict JSON schemas: the form OpenAI's structured tool calls accept (`strict: true`).

`ensure_strict_json_schema` has the Agents SDK's name, signature and results, byte for byte;
the differential tests in tests/schema/ hold it to that. The work is split by concept:
`_strict_pass.py` walks and rewrites the sub-schemas, `_strict_refs.py` and `refs.py` read
`$ref`s, `_strict_allof.py` folds a one-entry `allOf`, `_strict_limits.py` bounds depth and
size, and `_strict_errors.py` holds what a refused schema is told.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError
from . import _strict_errors as errors
from ._strict_limits import check_nesting
from ._strict_pass import StrictPass
from ._strict_refs import resolve_ref

__all__ = ["ensure_strict_json_schema", "resolve_ref"]


def ensure_strict_json_schema(
    schema: dict[str, Any],
    *,
    _reject_open_objects: bool = False,
) -> dict[str, Any]:
    """Rewrite `schema` in place into a strict JSON schema and return it.

    Every object gets `additionalProperties: false` and all its properties listed in
    `required`; `oneOf` becomes `anyOf`; null defaults go; a `$ref` with annotations beside it,
    and a one-entry `allOf`, are replaced by the schema they point to. The root must be a plain
    object. An empty schema gives a new empty object schema (the input is left alone).

    Args:
        schema: A JSON schema document (changed in place).
        _reject_open_objects: Refuse objects that accept undeclared keys, and `$ref`s left in
            place, instead of closing them (which would change the values they accept).

    Returns:
        The converted document (`schema` itself, except for the empty schema).

    Raises:
        UserError: A schema strict mode cannot express without changing its meaning, or one
            too deep or too large to convert safely.
        TypeError: A sub-schema that is not an object.
        KeyError, ValueError, AssertionError: A `$ref` that strict conversion cannot follow.
    """
    check_nesting(schema)
    if schema == {}:
        return {"additionalProperties": False, "type": "object", "properties": {}, "required": []}
    StrictPass(schema, reject_open_objects=_reject_open_objects).visit(schema, (), 1, False)
    return _check_root(schema)


def _check_root(schema: dict[str, Any]) -> dict[str, Any]:
    """Apply the rules only the top level has: the arguments of a call are one plain object."""
    if isinstance(schema.get("anyOf"), list):
        raise UserError(errors.ROOT_ANY_OF)
    declared = schema.get("type")
    if isinstance(declared, list) and "object" in declared:
        if declared != ["object"]:
            raise errors.root_not_plain_object(declared)
        schema["type"] = "object"
    return schema
