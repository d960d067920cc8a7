"""Strict JSON schemas: the form OpenAI's structured tool calls accept (`strict: true`).

`ensure_strict_json_schema` gives the Agents SDK's results and refusals byte for byte. One walk
rewrites every sub-schema in place, re-visiting a schema one level deeper after folding a `$ref`
or a one-entry `allOf` into it; the order of steps in a visit is observable and follows the SDK.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError
from .refs import pointer_tokens

__all__ = ["ensure_strict_json_schema", "resolve_ref"]

Path = tuple[str, ...]

_MAX_DEPTH = 100  # containers from the root (1), and visits (each inlining adds one)
_MAX_VISITS = 100_000  # in one conversion, re-visits of inlined `$ref` targets included

# Keywords that do not narrow what a schema accepts, so they may sit beside a `$ref`.
_ANNOTATIONS = frozenset(
    {
        *("title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"),
        *("$schema", "$comment", "$anchor", "$defs", "definitions"),
        *("contentEncoding", "contentMediaType", "contentSchema"),
    }
)
_ROOT_ANNOTATIONS = _ANNOTATIONS | {"$id"}

_TOO_DEEP = "JSON schema is too deeply nested to process safely. Simplify or flatten the schema."
_NESTED_RESOURCE_REF = (
    "JSON schema contains a reference owned by or crossing a nested `$id` resource that cannot "
    "be resolved against the document root."
)


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
    _check_nesting(schema)
    if schema == {}:
        return {"additionalProperties": False, "type": "object", "properties": {}, "required": []}
    _StrictPass(schema, _reject_open_objects).visit(schema, (), 1, False)
    # The rules only the top level has: the arguments of a call are one plain object.
    if isinstance(schema.get("anyOf"), list):
        raise UserError("The root of a strict JSON schema must not use `anyOf`.")
    declared = schema.get("type")
    if isinstance(declared, list) and "object" in declared:
        if declared != ["object"]:
            raise UserError(
                "The root of a strict JSON schema must be a non-nullable object, but its type is "
                f"{declared}. Make the root a plain object, or update the function or output "
                "tool to not use a strict schema."
            )
        schema["type"] = "object"
    return schema


def _check_nesting(document: object) -> None:
    """Refuse containers nested deeper than `_MAX_DEPTH`, before any recursion."""
    pending: list[tuple[object, int]] = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > _MAX_DEPTH:
            raise UserError(_TOO_DEEP)
        if isinstance(value, dict | list):
            children = value.values() if isinstance(value, dict) else value
            pending.extend(
                (child, depth + 1) for child in children if isinstance(child, dict | list)
            )


class _StrictPass:
    """One conversion of one document: its root, the open-object policy, the visits left."""

    __slots__ = ("reject_open_objects", "root", "visits_left")

    def __init__(self, root: dict[str, Any], reject_open_objects: bool) -> None:
        self.root = root
        self.reject_open_objects = reject_open_objects
        self.visits_left = _MAX_VISITS

    def spend(self) -> None:
        self.visits_left -= 1
        if self.visits_left < 0:
            raise UserError(
                "JSON schema is too large to convert to a strict schema. This can happen when a "
                "schema expands `$ref`s exponentially, which may indicate a malformed or "
                "malicious schema."
            )

    def visit(
        self, node: object, path: Path, depth: int, in_resource: bool, keep_ref: bool = False
    ) -> dict[str, Any]:
        """Make `node` (at `path`) strict in place and return it; `in_resource`: inside a
        nested `$id`; `keep_ref`: the node's own `$ref` is left to the caller."""
        if depth > _MAX_DEPTH:
            raise UserError(_TOO_DEEP)
        if not isinstance(node, dict):
            raise TypeError(f"Expected {node} to be a dictionary; path={path}")
        self.spend()
        # only an author's `false` (not the walk's) closes a property-less allOf parent
        closed_as_written = node.get("additionalProperties") is False
        is_root = node is self.root
        if not is_root and _starts_resource(node):
            in_resource = True
        if "$ref" in node:
            if in_resource:
                raise UserError(_NESTED_RESOURCE_REF)
            constraints = node.keys() - (_ROOT_ANNOTATIONS if is_root else _ANNOTATIONS) - {"$ref"}
            if constraints:
                raise UserError(
                    "JSON schema contains a `$ref` with incompatible sibling keyword(s) "
                    f"({', '.join(sorted(constraints))}) that cannot be merged "
                    "without changing its accepted values."
                )

        child_depth = depth + 1
        for table_key in ("$defs", "definitions"):
            table = node.get(table_key)
            if isinstance(table, dict):
                for name, sub in table.items():
                    self.visit(sub, (*path, table_key, name), child_depth, in_resource)

        self._close_object(node)

        properties = node.get("properties")
        if isinstance(properties, dict):
            node["required"] = list(properties)
            for name, sub in properties.items():
                self.visit(sub, (*path, "properties", name), child_depth, in_resource)

        items = node.get("items")
        if isinstance(items, dict):
            self.visit(items, (*path, "items"), child_depth, in_resource)

        self._visit_variants(node, "anyOf", path, child_depth, in_resource)
        if self._visit_variants(node, "oneOf", path, child_depth, in_resource):
            # anyOf accepts the same values when the variants are disjoint (tagged unions)
            variants = node.pop("oneOf")
            earlier = node.get("anyOf")
            node["anyOf"] = earlier + variants if isinstance(earlier, list) else variants

        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            entry = all_of[0]
            # the fold needs a `$ref` entry's target keys, so its chain is read first
            folded = entry
            if isinstance(entry, dict) and not in_resource:
                folded = self._follow_annotation_chain(entry)
            self.visit(entry, (*path, "allOf", "0"), child_depth, in_resource, keep_ref=True)
            _fold_single_all_of(node, folded, closed_as_written)
            return self.visit(node, path, child_depth, in_resource)
        self._visit_variants(node, "allOf", path, child_depth, in_resource)

        if "default" in node and node["default"] is None:
            del node["default"]

        if "$ref" in node and not keep_ref:
            if len(node) > 1:
                self._inline_ref(node)
                return self.visit(node, path, child_depth, in_resource)
            if self.reject_open_objects:
                raise UserError(
                    "JSON schema contains a reference whose target was not validated for strict "
                    "mode."
                )
        return node

    def _visit_variants(
        self, node: dict[str, Any], key: str, path: Path, depth: int, in_resource: bool
    ) -> bool:
        """Visit each schema of a list keyword; False when `key` holds no list."""
        variants = node.get(key)
        if not isinstance(variants, list):
            return False
        for index, sub in enumerate(variants):
            self.visit(sub, (*path, key, str(index)), depth, in_resource)
        return True

    def _close_object(self, node: dict[str, Any]) -> None:
        """Close an object schema (`additionalProperties: false`), or refuse an open one."""
        declared = node.get("type")
        if declared is None and isinstance(node.get("properties"), dict):
            node["type"] = declared = "object"
        is_object = declared == "object" or (isinstance(declared, list) and "object" in declared)
        closed = node.get("additionalProperties") is False
        if (
            self.reject_open_objects
            and is_object
            and not closed
            and node.get("properties", {}) == {}
        ):
            # a free-form map: closed, it would accept only `{}`
            raise UserError(
                "JSON schema contains an object that permits undeclared properties and cannot be "
                "converted to a strict schema without changing its accepted values."
            )
        if "additionalProperties" in node:
            if not closed and (is_object or declared is None):
                raise UserError(
                    "additionalProperties should not be set for object types. This could be "
                    "because you're using an older version of Pydantic, or because you "
                    "configured additional properties to be allowed. If you really need this, "
                    "update the function or output tool to not use a strict schema."
                )
            return
        if is_object:
            node["additionalProperties"] = False

    def _inline_ref(self, node: dict[str, Any]) -> None:
        """Replace an annotated `$ref` by its target's keys, the node's own winning."""
        target = _resolved_object(self.root, node["$ref"])
        del node["$ref"]
        node.update({**target, **node})

    def _follow_annotation_chain(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The first schema along `schema`'s chain of annotation-only references, with the
        annotations met on the way laid over it (the nearest winning); a cycle is refused."""
        followed: set[str] = set()
        current = schema
        while "$ref" in current and current.keys() - {"$ref"} <= _ANNOTATIONS:
            ref = _string_ref(current["$ref"])
            if ref in followed:
                raise UserError("JSON schema contains a circular `$ref` chain.")
            followed.add(ref)
            self.spend()
            notes = {key: value for key, value in current.items() if key != "$ref"}
            current = {**_resolved_object(self.root, ref), **notes}
        return current


def _starts_resource(node: dict[str, Any]) -> bool:
    return isinstance(node.get("$id"), str)


def _string_ref(ref: object) -> str:
    if not isinstance(ref, str):
        raise AssertionError(f"Received non-string $ref - {ref}")
    return ref


def _resolved_object(root: dict[str, Any], ref: object) -> dict[str, Any]:
    """The schema object a `$ref` names, refused as the SDK refuses it otherwise."""
    ref = _string_ref(ref)
    target = resolve_ref(root=root, ref=ref)
    if not isinstance(target, dict):
        raise ValueError(f"Expected `$ref: {ref}` to resolve to a dictionary but got {target}")
    return target


def _stepped_into_non_object(ref: object, container: object) -> AssertionError:
    return AssertionError(f"encountered non-dictionary entry while resolving {ref} - {container}")


def resolve_ref(*, root: dict[str, object], ref: str) -> object:
    """The schema object a `#/...` pointer names in `root`: every step onto an object, none
    into a nested `$id` resource; failures raise the exceptions the Agents SDK raises."""
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise ValueError(f"Unexpected $ref format {ref!r}; Does not start with #/")
    target: object = root
    for token in pointer_tokens(ref):  # a bad percent-escape: UnicodeDecodeError, as in the SDK
        if not isinstance(target, dict):
            raise _stepped_into_non_object(ref, target)
        if token not in target:
            raise KeyError(token)
        value = target[token]
        if not isinstance(value, dict):
            raise _stepped_into_non_object(ref, target)
        if _starts_resource(value):
            raise UserError(_NESTED_RESOURCE_REF)
        target = value
    return target


def _fold_single_all_of(
    node: dict[str, Any], entry: dict[str, Any], closed_as_written: bool
) -> None:
    """Replace `node` by its union with its one `allOf` entry, in place.

    Annotations take the parent's value; constraints must agree, except the parent's empty
    `properties` / `required` (the walk's own). A parent closed as written with no properties
    accepts only `{}`, which an entry with properties would widen.
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
            continue
        if key not in union or key in _ANNOTATIONS:
            union[key] = value
        elif not (
            _same_json(value, union[key])
            or (key == "properties" and value == {})
            or (key == "required" and value == [])
        ):
            clashes.append(key)
    if clashes:
        raise UserError(
            "JSON schema contains a singleton `allOf` entry with incompatible parent "
            f"keyword(s) ({', '.join(sorted(clashes))}) that cannot be merged "
            "without changing its accepted values."
        )
    node.clear()
    node.update(union)


def _same_json(left: object, right: object) -> bool:
    """JSON equality: 1 equals 1.0, but True is not 1; key order does not matter; NaN != NaN."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and left.keys() == right.keys()
            and all(_same_json(value, right[key]) for key, value in left.items())
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(_same_json(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    return type(left) is type(right) and left == right
