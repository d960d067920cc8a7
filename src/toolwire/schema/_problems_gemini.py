"""Gemini function declarations in JSON Schema form: what `schema_problems` reports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._problems_common import Found, ref_problems, type_name_problems
from ._walk import iter_subschemas
from .refs import lookup_local_ref

__all__ = ["gemini_problems"]

# Sources, checked 2026-11-23: Gemini API reference, FunctionDeclaration.parametersJsonSchema
# (https://ai.google.dev/api/caching#FunctionDeclaration: "The schema must describe an object
# where the properties are the parameters to the function"; its example carries
# "additionalProperties": false), and
# GenerationConfig.responseJsonSchema, which states the JSON Schema subset the API supports
# (https://ai.google.dev/api/generate-content#generationconfig): "$id, $defs, $ref, $anchor,
# type, format, title, description, enum, items, prefixItems, minItems, maxItems, minimum,
# maximum, anyOf, oneOf, properties, additionalProperties, required" and propertyOrdering.
# Other keywords are accepted and not enforced ("While the full JSON Schema may be sent, not
# all features are supported"), so what is refused is a root that is not an object, a `type`
# JSON Schema does not have, and the two structural limits on $ref below.


def gemini_problems(schema: dict[str, Any]) -> Found:
    """What Gemini refuses in `schema` sent as a function's `parametersJsonSchema`.

    Args:
        schema: A tool's input schema.

    Yields:
        (dotted path, message) for each refusal, in schema order.
    """
    if schema.get("type") != "object":
        yield "", "parametersJsonSchema must describe an object; take the value as a parameter"
    for path, node, _depth in iter_subschemas(schema):
        yield from type_name_problems(path, node)
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        # "If $ref is set on a sub-schema, no other properties, except for those starting
        # as a $, may be set."
        extra = sorted(key for key in node if not key.startswith("$"))
        if extra:
            yield (
                path,
                f"Gemini accepts no keywords beside $ref, but this one has {', '.join(extra)}; "
                "serve the tool in strict mode (toolwire's default), which inlines it, or "
                "describe the model in its class docstring instead",
            )
        yield from ref_problems(schema, path, node)
    # "Cyclic references are unrolled to a limited degree and, as such, may only be used
    # within non-required properties. (Nullable properties are not sufficient.)"
    for path in _required_cycles(schema):
        yield (
            path,
            "this recursive reference is reached only through required properties, which "
            "Gemini cannot unroll; give the recursive field a default in a tool served with "
            "strict_mode=False, or flatten the structure (e.g. a list with parent ids)",
        )


def _required_cycles(schema: dict[str, Any]) -> Iterator[str]:
    """Paths of `$ref`s that lead back to a schema they are inside, all steps required."""
    found: list[str] = []
    targets: dict[str, Any] = {}
    defs = schema.get("$defs")
    if isinstance(defs, dict):
        targets.update({f"#/$defs/{name}": value for name, value in defs.items()})
    targets["#"] = schema
    for ref, target in targets.items():
        if isinstance(target, dict):
            start = "" if ref == "#" else f"$defs.{ref.removeprefix('#/$defs/')}"
            _follow_required(schema, target, ref, start, {ref}, found, 0)
    yield from dict.fromkeys(found)


_MAX_CYCLE_STEPS = 100  # far beyond a real schema; only a malformed one gets this deep


def _follow_required(
    root: dict[str, Any],
    node: Any,
    goal: str,
    path: str,
    expanded: set[str],
    found: list[str],
    steps: int,
) -> None:
    """Walk the parts of `node` an instance must contain; record a `$ref` back to `goal`.

    Each reference is followed once per goal (`expanded`), which keeps the walk linear in the
    schema's size: one path to a cycle is enough to report it.
    """
    if not isinstance(node, dict) or steps > _MAX_CYCLE_STEPS:
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref == goal:
            found.append(path)
        elif ref not in expanded:
            expanded.add(ref)
            target = lookup_local_ref(root, ref)
            _follow_required(root, target, goal, path, expanded, found, steps + 1)
        return
    properties = node.get("properties")
    required = node.get("required")
    if isinstance(properties, dict) and isinstance(required, list):
        for name in required:
            child = properties.get(name) if isinstance(name, str) else None
            step = f"{path}.properties.{name}" if path else f"properties.{name}"
            _follow_required(root, child, goal, step, expanded, found, steps + 1)
    items = node.get("items")
    if isinstance(items, dict):
        step = f"{path}.items" if path else "items"
        _follow_required(root, items, goal, step, expanded, found, steps + 1)
    for keyword in ("anyOf", "oneOf", "allOf"):
        variants = node.get(keyword)
        if isinstance(variants, list):
            for index, variant in enumerate(variants):
                step = f"{path}.{keyword}.{index}" if path else f"{keyword}.{index}"
                _follow_required(root, variant, goal, step, expanded, found, steps + 1)
