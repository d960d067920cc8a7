"""Folding a one-entry `allOf` into the schema that holds it.

Pydantic writes `{"allOf": [{"$ref": ...}], "description": ...}` to attach a description to a
referenced model; strict mode wants the plain schema. Folding is safe only when the two sides do
not both constrain the same keyword differently, so any such keyword is an error naming it
instead of a silent change of the accepted values.
"""

from __future__ import annotations

from typing import Any

from . import _strict_errors as errors
from ._strict_refs import ANNOTATIONS


def same_json(left: object, right: object) -> bool:
    """JSON equality: 1 equals 1.0, but True is not 1; key order does not matter; NaN != NaN."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and left.keys() == right.keys()
            and all(same_json(value, right[key]) for key, value in left.items())
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(same_json(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    return type(left) is type(right) and left == right


def fold_single_all_of(
    node: dict[str, Any], entry: dict[str, Any], closed_as_written: bool
) -> None:
    """Replace `node` (visited, holding a one-entry `allOf`) by its union with `entry`, in place.

    `entry` is the visited entry, or what its `$ref` chain leads to. The entry's keys come
    first; the caller visits the union again. For a keyword both sides have, an annotation
    takes the parent's value (it is the more specific description); a constraint must agree,
    except that the parent's empty `properties` / `required` (filled in by strict conversion
    itself) give way.

    `closed_as_written` is whether the author wrote `additionalProperties: false` on the parent:
    such a parent with no properties accepts only `{}`, which an entry with properties would
    silently widen.
    """
    clashes: list[str] = []
    entry_properties = entry.get("properties")
    if (
        closed_as_written
        and node.get("properties", {}) == {}
        and isinstance(entry_properties, dict)
        and entry_properties
    ):
        clashes.append("properties")
    union = dict(entry)
    for key, value in node.items():
        if key == "allOf" or (key == "additionalProperties" and not closed_as_written):
            # a `false` the walk added itself is not the author's; the re-visit adds it again
            continue
        if key not in union or key in ANNOTATIONS:
            union[key] = value
        elif not (
            same_json(value, union[key])
            or (key == "properties" and value == {})
            or (key == "required" and value == [])
        ):
            clashes.append(key)
    if clashes:
        raise errors.all_of_conflict(clashes)
    node.clear()
    node.update(union)
