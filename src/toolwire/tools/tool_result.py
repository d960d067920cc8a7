"""`ToolResult`: a tool's answer when what the model reads is not its structured data.

`structured` is treated as a plain return of it would be; `content` replaces the JSON text that
would mirror it. The `ToolOutput*` models are looked at only when a content item might be one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, get_args, get_origin

from ..schema.context_types import unwrap_annotated
from .resource_outputs import EmbeddedResource, ResourceLink

if TYPE_CHECKING:
    from typing import TypeAlias

    from .outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

    ToolOutput: TypeAlias = (
        ToolOutputText | ToolOutputImage | ToolOutputFileContent | ResourceLink | EmbeddedResource
    )
    ContentItem: TypeAlias = ToolOutput | dict[str, Any]

__all__ = ["ToolResult", "as_output", "loaded_output_classes", "structured_annotation"]

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
