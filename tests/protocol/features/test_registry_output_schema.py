"""Output schemas inferred without pydantic equal pydantic's serialization-mode schemas.

`registry.infer_output_schema` writes the schema of simple return types itself (so a server's
start-up does not load pydantic); these tests hold it to what
`TypeAdapter(annotation).json_schema(mode="serialization")` says, key order included.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from toolwire.protocol.features.registry import _simple_output_schema, infer_output_schema

_LEAVES: list[Any] = [int, str, float, bool, Any, Literal["a", "b"], Literal[1, 2]]


def _annotations() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.sampled_from(_LEAVES),
        lambda inner: st.one_of(
            inner.map(lambda a: list[a]),  # type: ignore[valid-type]
            inner.filter(lambda a: a is not Any).map(lambda a: Optional[a]),  # noqa: UP045
            inner.map(lambda a: dict[str, a]),  # type: ignore[valid-type]
        ),
        max_leaves=4,
    )


def _pydantic(annotation: Any) -> dict[str, Any]:
    return TypeAdapter(annotation).json_schema(mode="serialization")


@settings(max_examples=300, deadline=None, database=None)
@given(_annotations())
def test_simple_output_schema_is_pydantics(annotation: Any) -> None:
    written = _simple_output_schema(annotation)
    if written is None:  # outside the simple grammar (e.g. Optional[Optional[...]])
        return
    assert json.dumps(written) == json.dumps(_pydantic(annotation))


@pytest.mark.parametrize(
    "annotation",
    [int, float, bool, list[int], dict[str, int], Optional[int], Literal["x", "y"]],  # noqa: UP045
)
def test_common_return_types_take_the_direct_path(annotation: Any) -> None:
    assert _simple_output_schema(annotation) == _pydantic(annotation)
    schema, wraps = infer_output_schema(annotation)
    expected = _pydantic(annotation)
    if expected.get("type") == "object":
        assert (schema, wraps) == (expected, False)
    else:
        assert wraps is True
        assert schema == {
            "type": "object",
            "properties": {"result": expected},
            "required": ["result"],
        }


@pytest.mark.parametrize("annotation", [dict[int, str], tuple[int, str], set[int], bytes])
def test_other_types_are_left_to_pydantic(annotation: Any) -> None:
    assert _simple_output_schema(annotation) is None
    schema, _ = infer_output_schema(annotation)
    assert schema is not None


@pytest.mark.parametrize("name", ["Plain", "a/b", "tilde~name", "with space"])
def test_a_root_ref_to_an_object_is_read_through_the_package_resolver(name: str) -> None:
    """An explicit output schema `{"$ref": ..., "$defs": ...}` whose target is an object is
    published object-rooted, whatever the definition's name (escaped names included)."""
    from toolwire.protocol.features.registry import normalize_output_schema

    escaped = name.replace("~", "~0").replace("/", "~1").replace(" ", "%20")
    target = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    schema = {"$ref": f"#/$defs/{escaped}", "$defs": {name: target}}
    published, wraps = normalize_output_schema(schema)
    assert wraps is False
    assert published == {**target, "$defs": {name: target}}
