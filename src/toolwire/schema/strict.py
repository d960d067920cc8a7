"""Strict JSON schemas for OpenAI-style structured tool calls.

Adapted from openai-agents 0.24.0 `agents/strict_schema.py` (MIT), itself adapted from
openai-python; kept line-for-line close so the output stays byte-identical to the SDK's.
The constants and helpers live in _strict_support.py.
"""

from __future__ import annotations

import copy
from typing import Any

from ..errors import UserError
from ._strict_support import (
    _ADDITIONAL_PROPERTIES_ERROR,
    _EMPTY_SCHEMA,
    _MAX_SCHEMA_DEPTH,
    _MAX_SCHEMA_NODES,
    _NESTED_RESOURCE_REF_ERROR,
    _NOT_GIVEN,
    _OPEN_OBJECT_ERROR,
    _REF_NON_CONSTRAINING_SIBLINGS,
    _ROOT_REF_NON_CONSTRAINING_SIBLINGS,
    _SCHEMA_DEPTH_ERROR,
    _UNVALIDATED_REF_ERROR,
    _declares_schema_resource,
    _merge_single_all_of,
    _NodeBudget,
    _resolve_non_constraining_ref_chain,
    _validate_json_schema_depth,
    has_more_than_n_keys,
    is_dict,
    is_list,
    resolve_ref,
)

__all__ = ["ensure_strict_json_schema", "resolve_ref"]


def ensure_strict_json_schema(
    schema: dict[str, Any],
    *,
    _reject_open_objects: bool = False,
) -> dict[str, Any]:
    """Mutates the given JSON schema to ensure it conforms to the `strict` standard
    that the OpenAI API expects.
    """
    _validate_json_schema_depth(schema)
    if schema == {}:
        return copy.deepcopy(_EMPTY_SCHEMA)
    budget = _NodeBudget(_MAX_SCHEMA_NODES, reject_open_objects=_reject_open_objects)
    return _ensure_strict_root(
        _ensure_strict_json_schema(
            schema,
            path=(),
            root=schema,
            budget=budget,
        )
    )


def _ensure_strict_root(schema: dict[str, Any]) -> dict[str, Any]:
    if is_list(schema.get("anyOf")):
        raise UserError("The root of a strict JSON schema must not use `anyOf`.")

    typ = schema.get("type")
    if is_list(typ) and "object" in typ:
        if typ == ["object"]:
            schema["type"] = "object"
        else:
            raise UserError(
                "The root of a strict JSON schema must be a non-nullable object, but its type is "
                f"{typ}. Make the root a plain object, or update the function or output tool to "
                "not use a strict schema."
            )
    return schema


# Adapted from https://github.com/openai/openai-python/blob/main/src/openai/lib/_pydantic.py
def _ensure_strict_json_schema(
    json_schema: object,
    *,
    path: tuple[str, ...],
    root: dict[str, object],
    budget: _NodeBudget | None = None,
    depth: int = 1,
    inside_nested_resource: bool = False,
) -> dict[str, Any]:
    if depth > _MAX_SCHEMA_DEPTH:
        raise UserError(_SCHEMA_DEPTH_ERROR)

    if not is_dict(json_schema):
        raise TypeError(f"Expected {json_schema} to be a dictionary; path={path}")

    # Remember author-supplied closure before strict normalization adds its own.
    explicitly_closed = json_schema.get("additionalProperties") is False

    # Bound the total number of nodes we expand so a malicious `$ref` fan-out cannot expand
    # exponentially and exhaust CPU and memory.
    if budget is None:
        budget = _NodeBudget(_MAX_SCHEMA_NODES)
    budget.spend()
    next_depth = depth + 1
    inside_nested_resource = inside_nested_resource or (
        json_schema is not root and _declares_schema_resource(json_schema)
    )

    if "$ref" in json_schema:
        if inside_nested_resource:
            raise UserError(_NESTED_RESOURCE_REF_ERROR)
        allowed_siblings = (
            _ROOT_REF_NON_CONSTRAINING_SIBLINGS
            if json_schema is root
            else _REF_NON_CONSTRAINING_SIBLINGS
        )
        incompatible_siblings = set(json_schema) - {"$ref"} - allowed_siblings
        if incompatible_siblings:
            raise UserError(
                "JSON schema contains a `$ref` with incompatible sibling keyword(s) "
                f"({', '.join(sorted(incompatible_siblings))}) that cannot be merged "
                "without changing its accepted values."
            )

    defs = json_schema.get("$defs")
    if is_dict(defs):
        for def_name, def_schema in defs.items():
            _ensure_strict_json_schema(
                def_schema,
                path=(*path, "$defs", def_name),
                root=root,
                budget=budget,
                depth=next_depth,
                inside_nested_resource=inside_nested_resource,
            )

    definitions = json_schema.get("definitions")
    if is_dict(definitions):
        for definition_name, definition_schema in definitions.items():
            _ensure_strict_json_schema(
                definition_schema,
                path=(*path, "definitions", definition_name),
                root=root,
                budget=budget,
                depth=next_depth,
                inside_nested_resource=inside_nested_resource,
            )

    typ = json_schema.get("type")
    properties = json_schema.get("properties")
    if typ is None and is_dict(properties):
        typ = json_schema["type"] = "object"
    elif typ is None and json_schema.get("additionalProperties", False) is not False:
        raise UserError(_ADDITIONAL_PROPERTIES_ERROR)
    is_object = typ == "object" or (is_list(typ) and "object" in typ)
    has_no_declared_properties = "properties" not in json_schema or properties == {}
    if (
        budget.reject_open_objects
        and is_object
        and has_no_declared_properties
        and json_schema.get("additionalProperties") is not False
    ):
        raise UserError(_OPEN_OBJECT_ERROR)
    if is_object and "additionalProperties" not in json_schema:
        json_schema["additionalProperties"] = False
    elif (
        is_object
        and "additionalProperties" in json_schema
        # Compare with ``is not False`` rather than truthiness: OpenAPI/MCP schemas often use
        # ``additionalProperties: {}`` (an empty schema meaning "allow anything"). That value is
        # falsy in Python, so a truthiness check would silently leave a non-strict schema in place.
        and json_schema["additionalProperties"] is not False
    ):
        raise UserError(_ADDITIONAL_PROPERTIES_ERROR)

    # object types
    # { 'type': 'object', 'properties': { 'a':  {...} } }
    if is_dict(properties):
        json_schema["required"] = list(properties.keys())
        json_schema["properties"] = {
            key: _ensure_strict_json_schema(
                prop_schema,
                path=(*path, "properties", key),
                root=root,
                budget=budget,
                depth=next_depth,
                inside_nested_resource=inside_nested_resource,
            )
            for key, prop_schema in properties.items()
        }

    # arrays
    # { 'type': 'array', 'items': {...} }
    items = json_schema.get("items")
    if is_dict(items):
        json_schema["items"] = _ensure_strict_json_schema(
            items,
            path=(*path, "items"),
            root=root,
            budget=budget,
            depth=next_depth,
            inside_nested_resource=inside_nested_resource,
        )

    # unions
    any_of = json_schema.get("anyOf")
    if is_list(any_of):
        json_schema["anyOf"] = [
            _ensure_strict_json_schema(
                variant,
                path=(*path, "anyOf", str(i)),
                root=root,
                budget=budget,
                depth=next_depth,
                inside_nested_resource=inside_nested_resource,
            )
            for i, variant in enumerate(any_of)
        ]

    # oneOf is not supported by OpenAI's structured outputs in nested contexts,
    # so we convert it to anyOf which provides equivalent functionality for
    # discriminated unions
    one_of = json_schema.get("oneOf")
    if is_list(one_of):
        existing_any_of = json_schema.get("anyOf", [])
        if not is_list(existing_any_of):
            existing_any_of = []
        json_schema["anyOf"] = existing_any_of + [
            _ensure_strict_json_schema(
                variant,
                path=(*path, "oneOf", str(i)),
                root=root,
                budget=budget,
                depth=next_depth,
                inside_nested_resource=inside_nested_resource,
            )
            for i, variant in enumerate(one_of)
        ]
        json_schema.pop("oneOf")

    # intersections
    all_of = json_schema.get("allOf")
    if is_list(all_of):
        if len(all_of) == 1:
            entry = all_of[0]
            if (
                is_dict(entry)
                and "$ref" in entry
                and not (set(entry) - {"$ref"} - _REF_NON_CONSTRAINING_SIBLINGS)
            ):
                if inside_nested_resource:
                    raise UserError(_NESTED_RESOURCE_REF_ERROR)
                budget.spend()
                strict_entry = _resolve_non_constraining_ref_chain(
                    root=root,
                    schema=entry,
                    budget=budget,
                )
            else:
                strict_entry = _ensure_strict_json_schema(
                    entry,
                    path=(*path, "allOf", "0"),
                    root=root,
                    budget=budget,
                    depth=next_depth,
                    inside_nested_resource=inside_nested_resource,
                )
            json_schema.pop("allOf")
            if not explicitly_closed:
                # Close the final merged object below, after any remaining allOf is expanded.
                json_schema.pop("additionalProperties", None)
            merged = _merge_single_all_of(entry=strict_entry, parent=json_schema)
            json_schema.clear()
            json_schema.update(merged)
            return _ensure_strict_json_schema(
                json_schema,
                path=path,
                root=root,
                budget=budget,
                depth=next_depth,
                inside_nested_resource=inside_nested_resource,
            )
        else:
            json_schema["allOf"] = [
                _ensure_strict_json_schema(
                    entry,
                    path=(*path, "allOf", str(i)),
                    root=root,
                    budget=budget,
                    depth=next_depth,
                    inside_nested_resource=inside_nested_resource,
                )
                for i, entry in enumerate(all_of)
            ]

    # strip `None` defaults as there's no meaningful distinction here
    # the schema will still be `nullable` and the model will default
    # to using `None` anyway
    if json_schema.get("default", _NOT_GIVEN) is None:
        json_schema.pop("default")

    # we can't use `$ref`s if there are also other properties defined, e.g.
    # `{"$ref": "...", "description": "my description"}`
    #
    # so we unravel the ref
    # `{"type": "string", "description": "my description"}`
    ref = json_schema.get("$ref")
    if ref and has_more_than_n_keys(json_schema, 1):
        assert isinstance(ref, str), f"Received non-string $ref - {ref}"

        resolved = resolve_ref(root=root, ref=ref)
        if not is_dict(resolved):
            raise ValueError(
                f"Expected `$ref: {ref}` to resolve to a dictionary but got {resolved}"
            )

        # Pop the current `$ref` first so that if the resolved schema is itself a `$ref`
        # (chained refs), we preserve it for the recursive expansion below instead of
        # silently dropping it.
        json_schema.pop("$ref")
        # properties from the json schema take priority over the ones on the `$ref`
        json_schema.update({**resolved, **json_schema})
        # Since the schema expanded from `$ref` might not have `additionalProperties: false` applied
        # we call `_ensure_strict_json_schema` again to fix the inlined schema and ensure it's valid
        return _ensure_strict_json_schema(
            json_schema,
            path=path,
            root=root,
            budget=budget,
            depth=next_depth,
            inside_nested_resource=inside_nested_resource,
        )

    if budget.reject_open_objects and "$ref" in json_schema:
        raise UserError(_UNVALIDATED_REF_ERROR)

    return json_schema
