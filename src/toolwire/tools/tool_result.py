"""A tool's output: `ToolResult`, when what the model reads is not its structured data, and the
output a function tool declares (its JSON schema, and the check of a result against it).

`structured` is treated as a plain return of it would be; `content` replaces the JSON text that
would mirror it. The `ToolOutput*` models are looked at only when a content item might be one.
As in the Agents SDK, `output_type`, `output_json_schema` or (for a tool a program may call) a
structured return annotation declare the output; the schema must describe an object and survive
the strict rewrite. Refusals and mismatch messages are the SDK's.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, get_args, get_origin

from ..errors import UserError
from ..schema.context_types import unwrap_annotated
from ..schema.refs import lookup_local_ref
from ..schema.strict import ensure_strict_json_schema
from .failure import dont_log_tool_data
from .resource_outputs import EmbeddedResource, ResourceLink

if TYPE_CHECKING:
    from typing import TypeAlias

    from pydantic import TypeAdapter

    from .outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

    # The strict JSON schema (or None), and a validator of results when a Python type declared it.
    Declared: TypeAlias = tuple[dict[str, Any] | None, TypeAdapter[Any] | None]

    ToolOutput: TypeAlias = (
        ToolOutputText | ToolOutputImage | ToolOutputFileContent | ResourceLink | EmbeddedResource
    )
    ContentItem: TypeAlias = ToolOutput | dict[str, Any]

__all__ = [
    "ToolResult",
    "as_output",
    "check_output",
    "declared_output",
    "loaded_output_classes",
    "strict_output_json_schema",
    "structured_annotation",
]

StructuredT = TypeVar("StructuredT")

_OUTPUTS_MODULE = "toolwire.tools.outputs"
_OUTPUT_DICT_KINDS = {
    "text": "ToolOutputText",
    "image": "ToolOutputImage",
    "file": "ToolOutputFileContent",
}


@dataclass(frozen=True)
class ToolResult(Generic[StructuredT]):
    """A tool's result whose text for the model differs from its structured content.

    `structured` goes where a plain return value would (checked against a declared output,
    sent as `structuredContent`, given to a program calling the tool); `content`, what the
    model reads, replaces the JSON text mirroring it. `ToolResult[Model]` as the return
    annotation infers the output schema from `Model`. See docs/server.md, "Tool results: text
    for the model, data for programs".

    Example:
        ```python
        @server.tool(output_schema=REPORT_SCHEMA)
        def report(path: str) -> ToolResult[dict]:
            counts = count_lines(path)
            return ToolResult(counts, content=f"{path}: {counts['lines']} lines")
        ```

    Args:
        structured: The structured data; None sends no `structuredContent` (unless the
            schema wraps the result, which then holds null).
        content: What the model reads: a string, a `ToolOutput*` (or its dict form), a
            `ResourceLink` or `EmbeddedResource`, or a list of those but strings; None keeps
            the JSON text of `structured`.

    Raises:
        TypeError: `content` is none of the accepted kinds (the error names the item), or
            `structured` is a `ToolResult`.
    """

    structured: StructuredT | None = None
    content: str | ContentItem | Sequence[ContentItem] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.structured, ToolResult):
            raise TypeError("ToolResult structured cannot itself be a ToolResult")
        content = self.content
        if content is None or isinstance(content, str):
            return
        if isinstance(content, list | tuple):
            for index, item in enumerate(content):
                _check_item(item, f"ToolResult content[{index}]")
            return
        _check_item(content, "ToolResult content")


def as_output(value: Any) -> ToolOutput | None:
    """The tool output a value is (a `ToolOutput*`, its dict form, a `ResourceLink` or an
    `EmbeddedResource`), else None. The `ToolOutput*` models load only for a dict that names
    one: until their module is loaded, no other value can be one of them."""
    if isinstance(value, ResourceLink | EmbeddedResource):
        return value
    if isinstance(value, dict):
        model = _dict_model(value)
        try:
            return None if model is None else model.model_validate(value)
        except Exception:
            return None
    classes = loaded_output_classes()
    if classes and isinstance(value, classes):
        return cast("ToolOutput", value)
    return None


def loaded_output_classes() -> tuple[type, ...]:
    """The `ToolOutput*` classes once their module is loaded, else ()."""
    if _OUTPUTS_MODULE not in sys.modules:
        return ()
    # Imported, not read from sys.modules: another thread may still be initializing it.
    from . import outputs

    return (outputs.ToolOutputText, outputs.ToolOutputImage, outputs.ToolOutputFileContent)


def _dict_model(value: dict[Any, Any]) -> Any:
    """The `ToolOutput*` model a dict's 'type' names (loading them), or None."""
    kind = value.get("type")
    class_name = _OUTPUT_DICT_KINDS.get(kind) if isinstance(kind, str) else None
    if class_name is None:
        return None
    from . import outputs

    return getattr(outputs, class_name)


def _check_item(item: Any, where: str) -> None:
    """Refuse a content item that is no tool output, saying why."""
    if isinstance(item, dict):
        model = _dict_model(item)
        if model is None:
            raise TypeError(
                f"{where} is a dict whose 'type' is {item.get('type')!r}; a tool output's dict "
                "form has 'type' 'text', 'image' or 'file'"
            )
        try:
            model.model_validate(item)
        except Exception as error:
            raise TypeError(f"{where} is not a valid {model.__name__}: {error}") from None
    elif as_output(item) is None:
        raise TypeError(
            f"{where} must be a ToolOutputText, ToolOutputImage, ToolOutputFileContent, "
            f"ResourceLink or EmbeddedResource, not {type(item).__name__}"
            + (" (a str is accepted as the whole content only)" if isinstance(item, str) else "")
        )


def structured_annotation(annotation: Any) -> tuple[bool, Any]:
    """`(True, T)` for `ToolResult[T]` (T is Any when bare), else `(False, annotation)`."""
    bare, _ = unwrap_annotated(annotation)
    if bare is ToolResult or get_origin(bare) is ToolResult:
        return True, (*get_args(bare), Any)[0]
    return False, annotation


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
