"""Constants and helpers of strict JSON schema conversion (see strict.py).

Adapted from openai-agents 0.24.0 `agents/strict_schema.py` (MIT), kept line-for-line close
so the output and every message stay byte-identical to the SDK's.
"""

from __future__ import annotations

import copy
from typing import Any, TypeGuard, cast
from urllib.parse import unquote

from ..errors import UserError

_NOT_GIVEN = object()

_EMPTY_SCHEMA = {
    "additionalProperties": False,
    "type": "object",
    "properties": {},
    "required": [],
}

# Upper bound on how many schema nodes strict conversion will expand. Real schemas are far
# smaller; the limit only trips on pathological input such as a `$ref` fan-out that would
# otherwise expand exponentially -- a denial-of-service vector for untrusted schemas (for
# example, tool schemas advertised by a third-party MCP server).
_MAX_SCHEMA_NODES = 100_000

# Keep recursive copying and normalization comfortably below Python's recursion limit. This
# counts every nested dictionary or list, including schema maps such as `properties` and `$defs`.
_MAX_SCHEMA_DEPTH = 100

_ADDITIONAL_PROPERTIES_ERROR = (
    "additionalProperties should not be set for object types. This could be because "
    "you're using an older version of Pydantic, or because you configured additional "
    "properties to be allowed. If you really need this, update the function or output tool "
    "to not use a strict schema."
)

_OPEN_OBJECT_ERROR = (
    "JSON schema contains an object that permits undeclared properties and cannot be converted "
    "to a strict schema without changing its accepted values."
)

_UNVALIDATED_REF_ERROR = (
    "JSON schema contains a reference whose target was not validated for strict mode."
)
_NESTED_RESOURCE_REF_ERROR = (
    "JSON schema contains a reference owned by or crossing a nested `$id` resource that cannot "
    "be resolved against the document root."
)

_SCHEMA_DEPTH_ERROR = (
    "JSON schema is too deeply nested to process safely. Simplify or flatten the schema."
)


def _validate_json_schema_depth(schema: object) -> None:
    """Reject container nesting that is unsafe for recursive schema processing."""
    stack: list[tuple[object, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > _MAX_SCHEMA_DEPTH:
            raise UserError(_SCHEMA_DEPTH_ERROR)

        if isinstance(value, dict):
            stack.extend(
                (child, depth + 1) for child in value.values() if isinstance(child, dict | list)
            )
        elif isinstance(value, list):
            stack.extend((child, depth + 1) for child in value if isinstance(child, dict | list))


def _copy_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Copy a JSON schema only after verifying recursive copying is safe."""
    _validate_json_schema_depth(schema)
    return copy.deepcopy(schema)


# Keywords that may legally sit alongside a `$ref` without adding validation constraints.
# Definition maps are also allowed because they do not directly constrain an instance.
_REF_NON_CONSTRAINING_SIBLINGS = frozenset(
    {
        "$anchor",
        "$comment",
        "$defs",
        "$schema",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "default",
        "definitions",
        "deprecated",
        "description",
        "examples",
        "readOnly",
        "title",
        "writeOnly",
    }
)
_ROOT_REF_NON_CONSTRAINING_SIBLINGS = _REF_NON_CONSTRAINING_SIBLINGS | {"$id"}


class _NodeBudget:
    """Tracks conversion state across the recursion."""

    def __init__(self, limit: int, *, reject_open_objects: bool = False) -> None:
        self.remaining = limit
        self.reject_open_objects = reject_open_objects

    def spend(self) -> None:
        self.remaining -= 1
        if self.remaining < 0:
            raise UserError(
                "JSON schema is too large to convert to a strict schema. This can happen when a "
                "schema expands `$ref`s exponentially, which may indicate a malformed or malicious "
                "schema."
            )


def resolve_ref(*, root: dict[str, object], ref: str) -> object:
    if not ref.startswith("#/"):
        raise ValueError(f"Unexpected $ref format {ref!r}; Does not start with #/")

    # Decode the URI fragment before interpreting JSON Pointer separators and escapes.
    path = unquote(ref[2:], errors="strict").split("/")
    resolved = root
    for raw_key in path:
        key = raw_key.replace("~1", "/").replace("~0", "~")
        value = resolved[key]
        assert is_dict(value), (
            f"encountered non-dictionary entry while resolving {ref} - {resolved}"
        )
        resolved = value
        if _declares_schema_resource(resolved):
            raise UserError(_NESTED_RESOURCE_REF_ERROR)

    return resolved


def _declares_schema_resource(schema: dict[str, object]) -> bool:
    return isinstance(schema.get("$id"), str)


def _resolve_non_constraining_ref_chain(
    *,
    root: dict[str, object],
    schema: dict[str, Any],
    budget: _NodeBudget,
) -> dict[str, Any]:
    resolved = schema
    seen_refs: set[str] = set()
    carried_siblings: dict[str, Any] = {}
    while True:
        if "$ref" not in resolved:
            break
        if set(resolved) - {"$ref"} - _REF_NON_CONSTRAINING_SIBLINGS:
            break

        ref = resolved["$ref"]
        assert isinstance(ref, str), f"Received non-string $ref - {ref}"
        if ref in seen_refs:
            raise UserError("JSON schema contains a circular `$ref` chain.")
        seen_refs.add(ref)

        carried_siblings = {
            **{key: value for key, value in resolved.items() if key != "$ref"},
            **carried_siblings,
        }
        budget.spend()
        target = resolve_ref(root=root, ref=ref)
        if not is_dict(target):
            raise ValueError(f"Expected `$ref: {ref}` to resolve to a dictionary but got {target}")
        resolved = target
    return {**resolved, **carried_siblings}


def _merge_single_all_of(
    *,
    entry: dict[str, Any],
    parent: dict[str, Any],
) -> dict[str, Any]:
    merged = dict(entry)
    incompatible_overlaps: list[str] = []
    if (
        parent.get("additionalProperties") is False
        and ("properties" not in parent or parent["properties"] == {})
        and is_dict(entry.get("properties"))
        and entry["properties"] != {}
    ):
        # additionalProperties only sees properties declared in its own schema, not allOf.
        incompatible_overlaps.append("properties")
    for key, parent_value in parent.items():
        if key not in merged or key in _REF_NON_CONSTRAINING_SIBLINGS:
            merged[key] = parent_value
        elif (
            _json_values_equal(parent_value, merged[key])
            or (key == "properties" and parent_value == {})
            or (key == "required" and parent_value == [])
        ):
            continue
        else:
            incompatible_overlaps.append(key)

    if incompatible_overlaps:
        raise UserError(
            "JSON schema contains a singleton `allOf` entry with incompatible parent "
            f"keyword(s) ({', '.join(sorted(incompatible_overlaps))}) that cannot be merged "
            "without changing its accepted values."
        )
    return merged


def _json_values_equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list) or isinstance(right, list):
        if not isinstance(left, list) or not isinstance(right, list):
            return False
        return len(left) == len(right) and all(
            _json_values_equal(left_item, right_item)
            for left_item, right_item in zip(left, right, strict=False)
        )
    if isinstance(left, dict) or isinstance(right, dict):
        if not isinstance(left, dict) or not isinstance(right, dict):
            return False
        return left.keys() == right.keys() and all(
            _json_values_equal(left[key], right[key]) for key in left
        )
    if type(left) is not type(right):
        return False
    return cast("bool", left == right)


def is_dict(obj: object) -> TypeGuard[dict[str, object]]:
    # just pretend that we know there are only `str` keys
    # as that check is not worth the performance cost
    return isinstance(obj, dict)


def is_list(obj: object) -> TypeGuard[list[object]]:
    return isinstance(obj, list)


def has_more_than_n_keys(obj: dict[str, object], n: int) -> bool:
    return len(obj) > n
