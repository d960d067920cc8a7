"""Declared tool outputs (`output_type`, `output_json_schema`), as the Agents SDK resolves them.

Adapted from openai-agents 0.24.0 `agents/tool.py` (MIT).
"""

from __future__ import annotations

import copy
import inspect
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..schema.strict import ensure_strict_json_schema
from ._callable import unwrap_annotated_type
from .failure import dont_log_tool_data

if TYPE_CHECKING:
    from pydantic import TypeAdapter


def json_schema_is_object(schema: dict[str, Any]) -> bool:
    """Whether a JSON schema resolves to an object at its root (following local $refs)."""
    current: Any = schema
    seen_refs: set[str] = set()
    while isinstance(current, dict):
        typ = current.get("type")
        if typ in ("object", ["object"]):
            return True
        ref = current.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/") or ref in seen_refs:
            return False
        seen_refs.add(ref)
        current = schema
        for part in ref[2:].split("/"):
            if not isinstance(current, dict):
                return False
            current = current.get(part.replace("~1", "/").replace("~0", "~"))
    return False


def _build_output_type(output_type: Any) -> tuple[dict[str, Any], TypeAdapter[Any]]:
    from pydantic import TypeAdapter

    try:
        adapter: TypeAdapter[Any] = TypeAdapter(output_type)
        schema = adapter.json_schema(mode="serialization")
        if not json_schema_is_object(schema):
            raise UserError("the generated JSON Schema is not an object schema")
        schema = ensure_strict_json_schema(copy.deepcopy(schema))
    except Exception as error:
        raise UserError(
            "Function tool output_type must define a strict JSON object schema. "
            "Use a Pydantic model, TypedDict, or dataclass, or provide output_json_schema "
            "directly."
        ) from error
    return schema, adapter


def resolve_function_tool_output(
    *,
    return_annotation: Any,
    allowed_callers: list[Any] | None,
    output_type: Any | None,
    output_json_schema: dict[str, Any] | None,
) -> tuple[dict[str, Any] | None, TypeAdapter[Any] | None]:
    """The output schema and validator a function tool declares, if any."""
    if output_type is not None and output_json_schema is not None:
        raise UserError("output_type and output_json_schema cannot both be provided.")
    if output_type is not None:
        return _build_output_type(output_type)
    if output_json_schema is not None:
        return copy.deepcopy(output_json_schema), None
    if allowed_callers is None or "programmatic" not in allowed_callers:
        return None, None
    plain = unwrap_annotated_type(return_annotation)
    if plain in (inspect.Signature.empty, Any, None, str, type(None)):
        return None, None
    try:
        return _build_output_type(return_annotation)
    except UserError as error:
        raise UserError(
            "A programmatic function tool return annotation must define a strict JSON object "
            "schema. Use a Pydantic model, TypedDict, or dataclass; annotate the return as "
            "str or Any for an untyped result; or provide output_type or output_json_schema."
        ) from error


def validate_output(tool_name: str, output: Any, adapter: TypeAdapter[Any] | None) -> Any:
    """Validate a typed output; errors leave the raw value out unless tool data may be logged."""
    if adapter is None:
        return output
    base_message = (
        f"Function tool {tool_name} returned an output that does not match its declared output type"
    )
    from pydantic import ValidationError

    try:
        return adapter.validate_python(output)
    except ValidationError as error:
        if not dont_log_tool_data():
            raise UserError(f"{base_message}: {error}") from error
    output = None
    raise UserError(base_message)
