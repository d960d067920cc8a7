"""A function tool's declared output: its JSON schema, and checking a result against it.

As in the Agents SDK, `output_type`, `output_json_schema` or (for a tool a program may call) a
structured return annotation declare it; the schema must describe an object and survive the
strict rewrite. Refusals and mismatch messages are the SDK's.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..schema.context_types import unwrap_annotated
from ..schema.refs import lookup_local_ref
from ..schema.strict import ensure_strict_json_schema
from .failure import dont_log_tool_data
from .tool_result import ToolResult, structured_annotation

if TYPE_CHECKING:
    from typing import TypeAlias

    from pydantic import TypeAdapter

    # The strict JSON schema (or None), and a validator of results when a Python type declared it.
    Declared: TypeAlias = tuple[dict[str, Any] | None, TypeAdapter[Any] | None]

__all__ = ["check_output", "declared_output", "strict_output_json_schema"]

# Return annotations that declare nothing: the result is free text or anything at all.
_UNDECLARED_RETURNS: tuple[Any, ...] = (inspect.Signature.empty, Any, None, str, type(None))

_OUTPUT_TYPE_REFUSED = (
    "Function tool output_type must define a strict JSON object schema. Use a Pydantic model, "
    "TypedDict, or dataclass, or provide output_json_schema directly."
)
_RETURN_ANNOTATION_REFUSED = (
    "A programmatic function tool return annotation must define a strict JSON object schema. "
    "Use a Pydantic model, TypedDict, or dataclass; annotate the return as str or Any for an "
    "untyped result; or provide output_type or output_json_schema."
)


def declared_output(
    output_type: Any | None,
    output_json_schema: dict[str, Any] | None,
    *,
    return_annotation: Any,
    allowed_callers: list[Any] | None,
) -> Declared:
    """A tool's declared output from `function_tool`'s arguments."""
    if output_type is not None and output_json_schema is not None:
        raise UserError("output_type and output_json_schema cannot both be provided.")
    if output_type is not None:
        return _from_python_type(output_type, _OUTPUT_TYPE_REFUSED)
    if output_json_schema is not None:
        return copy.deepcopy(output_json_schema), None
    if allowed_callers is None or "programmatic" not in allowed_callers:
        return None, None
    return_annotation = structured_annotation(return_annotation)[1]
    if unwrap_annotated(return_annotation)[0] in _UNDECLARED_RETURNS:
        return None, None
    return _from_python_type(return_annotation, _RETURN_ANNOTATION_REFUSED)


def _from_python_type(python_type: Any, refusal: str) -> Declared:
    from pydantic import TypeAdapter

    try:
        validator: TypeAdapter[Any] = TypeAdapter(python_type)
        generated = validator.json_schema(mode="serialization")
        if not is_object_schema(generated):
            raise ValueError(f"{python_type!r} is not serialised as a JSON object")
        schema = ensure_strict_json_schema(generated)
    except Exception as error:
        raise UserError(refusal) from error
    return schema, validator


def is_object_schema(schema: Any) -> bool:
    """Whether a schema's root has type "object", directly or through `#/...` references."""
    node = schema
    followed: set[str] = set()
    while isinstance(node, dict):
        if node.get("type") in ("object", ["object"]):
            return True
        target = node.get("$ref")
        if not isinstance(target, str) or not target.startswith("#/") or target in followed:
            return False
        followed.add(target)
        node = lookup_local_ref(schema, target, through_lists=False, percent_decoded=False)
    return False


def strict_output_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A strict copy of a declared `output_json_schema`, which must describe an object."""
    if not isinstance(schema, dict) or not is_object_schema(schema):
        raise UserError("Function tool output_json_schema must define a JSON object schema.")
    try:
        return ensure_strict_json_schema(copy.deepcopy(schema))
    except Exception as error:
        raise UserError(
            "Function tool output_json_schema must define a strict JSON object schema."
        ) from error


def check_output(tool_name: str, result: Any, validator: TypeAdapter[Any]) -> Any:
    """The result (a `ToolResult`'s structured part) validated, or `UserError` naming the tool
    (with pydantic's details only when tool data may be logged)."""
    from pydantic import ValidationError

    wrapper = result if isinstance(result, ToolResult) else None
    try:
        if wrapper is None:
            return validator.validate_python(result)
        checked = validator.validate_python(wrapper.structured)
        return dataclasses.replace(wrapper, structured=checked)
    except ValidationError as error:
        mismatch = error
    headline = (
        f"Function tool {tool_name} returned an output that does not match its declared output type"
    )
    # Raised outside the except block and without the result in the frame, when redacted.
    if dont_log_tool_data():
        del mismatch, result, wrapper
        raise UserError(headline)
    raise UserError(f"{headline}: {mismatch}") from mismatch
