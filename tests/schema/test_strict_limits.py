"""Strict conversion's depth and size limits against the Agents SDK's, at and one past each.

The limits count containers from the root (a dict or a list, the root being 1; the limit is
100), schema visits in the walk (every inlined `$ref` and folded `allOf` re-visits its node one
level deeper) and visits in all (100,000, re-visits included).
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.schema._strict_oracle import STR, same_as_sdk, with_properties

# -- limits ------------------------------------------------------------------------------------


def _nested_objects(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = dict(STR)
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def _nested_items(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = dict(STR)
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return with_properties({"a": schema})


def _nested_default(levels: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return with_properties({"a": {"default": value}})


# the limit is 100 nested containers, root included: these sit exactly at it and one past
@pytest.mark.parametrize(
    ("build", "levels"),
    [
        (_nested_objects, 49),
        (_nested_objects, 50),
        (_nested_items, 97),
        (_nested_items, 98),
        (_nested_default, 97),
        (_nested_default, 98),
    ],
)
def test_container_depth_limit_at_and_past(build: Any, levels: int) -> None:
    kind, _, message = same_as_sdk(build(levels))
    assert (kind == "raised") == (levels in (50, 98)), message


def _annotated_chain(length: int, *, bare: bool, newest_first: bool) -> dict[str, Any]:
    defs: dict[str, Any] = {"D0": dict(STR)}
    for i in range(1, length + 1):
        link: dict[str, Any] = {"$ref": f"#/$defs/D{i - 1}"}
        if not bare:
            link["title"] = f"t{i}"
        defs[f"D{i}"] = link
    if newest_first:
        defs = dict(reversed(list(defs.items())))
    return with_properties({"a": {"$ref": f"#/$defs/D{length}", "description": "d"}}, **defs)


# every inlining re-visits the node one level deeper: a long chain meets the depth limit
@pytest.mark.parametrize("length", [96, 97, 98, 99])
@pytest.mark.parametrize("bare", [True, False])
@pytest.mark.parametrize("newest_first", [True, False])
def test_ref_chain_depth_limit(length: int, bare: bool, newest_first: bool) -> None:
    same_as_sdk(_annotated_chain(length, bare=bare, newest_first=newest_first))


def _growing_definitions(count: int) -> dict[str, Any]:
    defs: dict[str, Any] = {"D0": dict(STR)}
    for i in range(1, count + 1):
        ref = {"$ref": f"#/$defs/D{i - 1}", "title": "t"}
        defs[f"D{i}"] = {"type": "object", "properties": {"x": ref}}
    return with_properties({}, **defs)


@pytest.mark.parametrize("count", [97, 98])
def test_inlined_targets_deepen_until_the_depth_limit(count: int) -> None:
    kind, _, _ = same_as_sdk(_growing_definitions(count))
    assert (kind == "raised") == (count == 98)


# the budget is 100,000 visits; the root is one, each property one more
@pytest.mark.parametrize("count", [99_999, 100_000])
def test_visit_budget_at_and_past(count: int) -> None:
    schema = with_properties({f"p{i}": {} for i in range(count)})
    kind, _, message = same_as_sdk(schema, reject_open=False)
    assert (kind == "raised") == (count == 100_000), message


@pytest.mark.parametrize("count", [49_999, 50_000])
def test_each_inlined_ref_costs_a_visit(count: int) -> None:
    schema = with_properties(
        {f"p{i}": {"$ref": "#/$defs/S", "title": "t"} for i in range(count)}, S=STR
    )
    kind, _, _ = same_as_sdk(schema, reject_open=False)
    assert (kind == "raised") == (count == 50_000)


@pytest.mark.parametrize("count", [33_333, 33_334])
def test_a_folded_all_of_costs_two_visits(count: int) -> None:
    schema = with_properties({f"p{i}": {"allOf": [{}]} for i in range(count)})
    kind, _, _ = same_as_sdk(schema, reject_open=False)
    assert (kind == "raised") == (count == 33_334)


def test_a_bad_sub_schema_at_the_last_visit_is_named_before_the_budget() -> None:
    schema = with_properties({f"p{i}": {} for i in range(99_999)})
    schema["properties"]["last"] = 5
    kind, cls, _ = same_as_sdk(schema, reject_open=False)
    assert (kind, cls) == ("raised", "TypeError")


def test_exponential_fan_out_is_refused() -> None:
    defs: dict[str, Any] = {"D0": {"type": "object", "properties": {"v": STR}}}
    for i in range(1, 18):
        ref = {"$ref": f"#/$defs/D{i - 1}", "title": "t"}
        defs[f"D{i}"] = {"type": "object", "properties": {"l": ref, "r": dict(ref)}}
    kind, _, message = same_as_sdk(
        with_properties({"top": {"$ref": "#/$defs/D17", "title": "x"}}, **defs)
    )
    assert kind == "raised" and "too large" in message


def _all_of_ref_schema(count: int, entry: dict[str, Any]) -> dict[str, Any]:
    target = {"type": "object", "properties": {f"x{j}": {} for j in range(4)}}
    return with_properties(
        {f"p{i}": {"allOf": [dict(entry)]} for i in range(count)},
        A=target,
        B={"$ref": "#/$defs/A"},
        C={"$ref": "#/$defs/B"},
    )


# a one-entry allOf holding a `$ref`: the parent twice, the entry once, each followed reference
# once, and the target's properties once (in the folded parent); the root and `$defs` first
@pytest.mark.parametrize(
    ("entry", "per_entry", "fixed"),
    [
        ({"$ref": "#/$defs/A"}, 8, 8),
        ({"$ref": "#/$defs/A", "title": "t"}, 8, 8),
        ({"$ref": "#/$defs/C"}, 10, 8),
    ],
)
@pytest.mark.parametrize("past", [False, True])
def test_a_folded_all_of_ref_costs(
    entry: dict[str, Any], per_entry: int, fixed: int, past: bool
) -> None:
    fitting = (100_000 - fixed) // per_entry
    kind, _, _ = same_as_sdk(_all_of_ref_schema(fitting + past, entry), reject_open=False)
    assert (kind == "raised") == past
