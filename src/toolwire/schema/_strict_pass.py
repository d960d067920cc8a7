"""The walk that rewrites every sub-schema of a document into its strict form, in place.

Strict mode (OpenAI structured outputs) wants every object closed and every property required,
no `oneOf`, no null defaults, and no `$ref` with keywords beside it. Each visit fixes one schema
object, then descends into the keywords that hold sub-schemas. A `$ref` with annotations beside
it and a one-entry `allOf` are folded into the schema holding them, which is then visited again
(one level deeper, as the inlined target may itself need work).

The order of the steps inside a visit is observable: it decides which error a schema with
several problems reports, and where added keys land in the output. It follows the Agents SDK.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError
from . import _strict_errors as errors
from ._strict_allof import fold_single_all_of
from ._strict_limits import MAX_DEPTH, VisitBudget
from ._strict_refs import (
    ANNOTATIONS,
    ROOT_ANNOTATIONS,
    resolve_annotation_chain,
    resolve_ref,
    starts_resource,
)

Path = tuple[str, ...]


class StrictPass:
    """One conversion of one document: its root, the open-object policy, and the visit budget.

    Args:
        root: The document; `$ref`s are resolved against it.
        reject_open_objects: Refuse objects that accept undeclared keys (a `dict[str, X]`, a
            bare `{"type": "object"}`) and every `$ref` left in place, instead of closing them.
            Closing would change which values the schema accepts.
    """

    __slots__ = ("budget", "reject_open_objects", "root")

    def __init__(self, root: dict[str, Any], *, reject_open_objects: bool) -> None:
        self.root = root
        self.reject_open_objects = reject_open_objects
        self.budget = VisitBudget()

    def visit(
        self, node: object, path: Path, depth: int, in_resource: bool, keep_ref: bool = False
    ) -> dict[str, Any]:
        """Make `node` strict in place and return it.

        Args:
            node: The sub-schema found at `path`.
            path: Keys from the root, for the error that names a non-object sub-schema.
            depth: 1 for the root; one more per sub-schema and per re-visit after folding.
            in_resource: Whether an enclosing sub-schema declared its own `$id`.
            keep_ref: Leave the node's own `$ref` as it is (the caller resolves it).
        """
        if depth > MAX_DEPTH:
            raise UserError(errors.TOO_DEEP)
        if not isinstance(node, dict):
            raise errors.not_a_schema(node, path)
        self.budget.spend()
        # read before the walk closes objects: only an author's `false` makes a property-less
        # parent reject an allOf entry's properties
        closed_as_written = node.get("additionalProperties") is False
        is_root = node is self.root
        if not is_root and starts_resource(node):
            in_resource = True
        if "$ref" in node:
            self._check_ref_neighbours(node, is_root, in_resource)

        child_depth = depth + 1
        for table_key in ("$defs", "definitions"):
            table = node.get(table_key)
            if isinstance(table, dict):
                for name, sub in table.items():
                    self.visit(sub, (*path, table_key, name), child_depth, in_resource)

        self._close_object(node)

        properties = node.get("properties")
        if isinstance(properties, dict):
            # strict mode has no optional keys: optional ones stay nullable via their own type
            node["required"] = list(properties)
            for name, sub in properties.items():
                self.visit(sub, (*path, "properties", name), child_depth, in_resource)

        items = node.get("items")
        if isinstance(items, dict):
            self.visit(items, (*path, "items"), child_depth, in_resource)

        self._visit_variants(node, "anyOf", path, child_depth, in_resource)
        if self._visit_variants(node, "oneOf", path, child_depth, in_resource):
            # strict mode has no oneOf; anyOf accepts the same values when the variants are
            # disjoint, as in the tagged unions pydantic writes
            variants = node.pop("oneOf")
            earlier = node.get("anyOf")
            node["anyOf"] = earlier + variants if isinstance(earlier, list) else variants

        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            entry = all_of[0]
            # a `$ref` entry is read through its chain before anything else (the fold needs the
            # target's keys, not an inlined copy) and stays a reference through its own visit;
            # inside a nested resource the visit refuses the `$ref` instead
            folded = entry
            if isinstance(entry, dict) and not in_resource:
                folded = resolve_annotation_chain(self.root, entry, self.budget.spend)
            self.visit(entry, (*path, "allOf", "0"), child_depth, in_resource, keep_ref=True)
            fold_single_all_of(node, folded, closed_as_written)
            return self.visit(node, path, child_depth, in_resource)
        self._visit_variants(node, "allOf", path, child_depth, in_resource)

        if "default" in node and node["default"] is None:
            # every key is required in strict mode, so a null default can never apply
            del node["default"]

        if "$ref" in node and not keep_ref:
            if len(node) > 1:
                self._inline_ref(node)
                return self.visit(node, path, child_depth, in_resource)
            if self.reject_open_objects:
                # a bare `$ref` is kept as is, and nothing proves its target closed
                raise UserError(errors.UNVALIDATED_REF)
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

    def _check_ref_neighbours(self, node: dict[str, Any], is_root: bool, in_resource: bool) -> None:
        """Refuse a `$ref` that cannot be resolved against the root, or not merged with its
        siblings without narrowing or widening what it accepts."""
        if in_resource:
            raise UserError(errors.NESTED_RESOURCE_REF)
        allowed = ROOT_ANNOTATIONS if is_root else ANNOTATIONS
        constraints = node.keys() - allowed - {"$ref"}
        if constraints:
            raise errors.ref_siblings_conflict(constraints)

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
            # an object declaring no properties is a free-form map, and closing it would leave
            # it accepting only `{}`
            raise UserError(errors.OPEN_OBJECT)
        if "additionalProperties" in node:
            if not closed and (is_object or declared is None):
                raise UserError(errors.ADDITIONAL_PROPERTIES)
            return
        if is_object:
            node["additionalProperties"] = False

    def _inline_ref(self, node: dict[str, Any]) -> None:
        """Replace a `$ref` that has annotations beside it by its target's keys, in place.

        The node's own keys keep their places and values; the target's other keys follow. The
        node's `$ref` is dropped before the keys are merged, so a target that is itself a
        reference carries its `$ref` over and the re-visit follows it (a node pointing at
        itself just loses its `$ref`).
        """
        ref = node["$ref"]
        if not isinstance(ref, str):
            raise errors.non_string_ref(ref)
        target = resolve_ref(root=self.root, ref=ref)
        if not isinstance(target, dict):
            raise errors.target_not_object(ref, target)
        del node["$ref"]
        node.update({**target, **node})
