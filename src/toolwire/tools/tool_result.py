"""`ToolResult`: a tool's answer when what the model reads is not its structured data.

A tool usually returns one value, and toolwire derives both the text a model reads and, for
structured data, the `structuredContent` from it. Returning `ToolResult(structured, content)`
keeps the two apart: `structured` is treated exactly as a plain return of it would be (checked
against a declared output, sent as `structuredContent`), while `content` replaces the JSON text
mirror. The module loads nothing heavy: the `ToolOutput*` models are looked at only when a
content item might be one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_args, get_origin

from ..schema.context_types import unwrap_annotated
from .resource_outputs import EmbeddedResource, ResourceLink

if TYPE_CHECKING:
    from typing import TypeAlias

    from .outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

    ContentItem: TypeAlias = (
        ToolOutputText
        | ToolOutputImage
        | ToolOutputFileContent
        | ResourceLink
        | EmbeddedResource
        | dict[str, Any]
    )

__all__ = ["ToolResult", "structured_annotation"]

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

    `structured` goes where a plain return value would: it is checked against the tool's
    declared output (`output_type`), sent as `structuredContent` when the tool has an output
    schema (as `{"result": ...}` when that schema wraps a non-object type), and is what a
    program calling the tool receives. `content` is what the model reads: a string, a
    `ToolOutput*` value, a `ResourceLink` or `EmbeddedResource` (or the dict form of a
    `ToolOutput*`), or a list of those (strings aside), in place of the JSON text that mirrors
    `structured`.

    Annotate a tool's return as `ToolResult[Model]` to have its output schema inferred from
    `Model`. A client on a protocol version without `structuredContent` (2025-03-26 and
    before) gets `content` alone. Inside an Agents SDK run (`FunctionTool.to_agents()`) the
    model reads `content` and a program calling the tool gets `structured`; so does the model
    for a tool that declares its output to the SDK (`output_type` or `output_json_schema`),
    since the SDK gives the model the JSON of such a tool's output.

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
        content: What the model reads; None keeps the JSON text of `structured`.

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


def _check_item(item: Any, where: str) -> None:
    """Refuse a content item that is no tool output."""
    if isinstance(item, ResourceLink | EmbeddedResource):
        return
    if isinstance(item, dict):
        kind = item.get("type")
        class_name = _OUTPUT_DICT_KINDS.get(kind) if isinstance(kind, str) else None
        if class_name is None:
            raise TypeError(
                f"{where} is a dict whose 'type' is {kind!r}; a tool output's dict form has "
                "'type' 'text', 'image' or 'file'"
            )
        from . import outputs

        model: Any = getattr(outputs, class_name)
        try:
            model.model_validate(item)
        except Exception as error:
            raise TypeError(f"{where} is not a valid {class_name}: {error}") from None
        return
    # A ToolOutput* instance exists only once its module was imported by whoever made it.
    loaded = sys.modules.get(_OUTPUTS_MODULE)
    if loaded is not None and isinstance(
        item, loaded.ToolOutputText | loaded.ToolOutputImage | loaded.ToolOutputFileContent
    ):
        return
    raise TypeError(
        f"{where} must be a ToolOutputText, ToolOutputImage, ToolOutputFileContent, "
        f"ResourceLink or EmbeddedResource, not {type(item).__name__}"
        + (" (a str is accepted as the whole content only)" if isinstance(item, str) else "")
    )


def structured_annotation(annotation: Any) -> tuple[bool, Any]:
    """`(True, T)` for a return annotation `ToolResult[T]`, `(True, Any)` for a bare
    `ToolResult`, `(False, annotation)` for anything else (`Annotated` is looked through)."""
    bare, _ = unwrap_annotated(annotation)
    if bare is ToolResult:
        return True, Any
    if get_origin(bare) is ToolResult:
        args = get_args(bare)
        return True, args[0] if args else Any
    return False, annotation
