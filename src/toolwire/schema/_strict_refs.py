"""How strict conversion reads a `$ref`: which siblings it may carry, and where it may point.

Strict conversion resolves a reference against the root document only. A nested `$id` starts a
new resource whose own references would resolve elsewhere, so a reference inside one, or one
whose path steps into one, is refused rather than resolved wrongly. Pointer parsing itself is
`refs.py`'s; this module adds the strict rules on top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UserError
from . import _strict_errors as errors
from .refs import RefError, walk_pointer

# Annotations and containers: keywords that describe a value without narrowing what it accepts,
# so they can sit beside a `$ref` (and win over the target's) without changing its meaning.
_DESCRIBING = ("title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly")
_CORE = ("$schema", "$comment", "$anchor")
_DEFINITION_TABLES = ("$defs", "definitions")
_CONTENT = ("contentEncoding", "contentMediaType", "contentSchema")
ANNOTATIONS = frozenset(_DESCRIBING + _CORE + _DEFINITION_TABLES + _CONTENT)
# The root's own `$id` names the document every pointer is resolved in, so it is harmless there.
ROOT_ANNOTATIONS = ANNOTATIONS | {"$id"}


def starts_resource(node: dict[str, Any]) -> bool:
    """Whether `node` declares a schema resource of its own (a string `$id`)."""
    return isinstance(node.get("$id"), str)


def resolve_ref(*, root: dict[str, object], ref: str) -> object:
    """The schema object a `#/...` pointer names in `root`, under strict conversion's rules.

    Every step must land on an object (list indices are not followed) and no step may enter a
    nested `$id` resource. Failures raise what the Agents SDK raises: ValueError for a pointer
    that does not start with `#/`, KeyError for a missing name, AssertionError for a step into a
    non-object, UserError for a nested resource.
    """
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise errors.bad_ref_format(ref)
    target: object = root
    try:
        for container, _token, value in walk_pointer(root, ref, through_lists=False):
            if not isinstance(value, dict):
                raise errors.stepped_into_non_object(ref, container)
            if starts_resource(value):
                raise UserError(errors.NESTED_RESOURCE_REF)
            target = value
    except RefError as error:
        raise errors.from_ref_error(error) from None
    return target


def resolve_annotation_chain(
    root: dict[str, Any], schema: dict[str, Any], on_step: Callable[[], None]
) -> dict[str, Any]:
    """Follow `schema` through references that carry nothing but annotations.

    `{"$ref": A}` where A is `{"$ref": B, "title": "x"}` stands for B with that title. The
    annotations met on the way are laid over each target, the nearest one winning; a chain that
    comes back to a reference it already followed is an error rather than an endless loop.
    Stops at the first schema that is not such a reference and returns it (possibly a new dict).
    `on_step` is called before each reference is followed (strict conversion counts them
    against its size budget).
    """
    followed: set[str] = set()
    current = schema
    while "$ref" in current and current.keys() - {"$ref"} <= ANNOTATIONS:
        ref = current["$ref"]
        if not isinstance(ref, str):
            raise errors.non_string_ref(ref)
        if ref in followed:
            raise UserError(errors.CIRCULAR_CHAIN)
        followed.add(ref)
        on_step()
        notes = {key: value for key, value in current.items() if key != "$ref"}
        target = resolve_ref(root=root, ref=ref)
        if not isinstance(target, dict):
            raise errors.target_not_object(ref, target)
        current = {**target, **notes}
    return current
