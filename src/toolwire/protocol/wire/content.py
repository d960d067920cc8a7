"""Tool results to MCP content and back: `call_result` for a server, `content_to_outputs` for a
client adapter. `call_result` turns what a tool returned into a `CallToolResult` dict for the
negotiated version, never with a field or block type that version lacks: structured data gets
`structuredContent` and a JSON text mirror (a `ToolResult` names its own content instead).
`content_to_outputs` maps MCP content blocks back to `ToolOutput*` values; a block it does not know
becomes its JSON as text."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from ...tools.resource_outputs import EmbeddedResource, ResourceLink, name_of_uri
from ...tools.tool_result import ToolResult, as_output
from . import eras
from .jsonrpc import compact_json, wire_json

if TYPE_CHECKING:
    from ...tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

    ToolOutput = (
        ToolOutputText | ToolOutputImage | ToolOutputFileContent | ResourceLink | EmbeddedResource
    )


class ResultShape(Protocol):
    """What shaping a tool's result needs to know of the tool (a registry entry)."""

    @property
    def name(self) -> str: ...
    @property
    def output_schema(self) -> dict[str, Any] | None: ...
    @property
    def wraps_result(self) -> bool: ...


__all__ = [
    "call_result",
    "content_to_outputs",
    "error_result",
    "fitted",
    "output_block",
    "to_jsonable",
]

logger = logging.getLogger("toolwire")


def to_jsonable(value: Any) -> Any:
    """Plain JSON data for a value (pydantic models, dataclasses, datetimes, ...)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    from pydantic_core import to_jsonable_python

    try:
        return to_jsonable_python(value)
    except Exception:
        # pydantic stops at a few hundred levels; plain JSON data deeper than that is sent as
        # it is (the json module goes deeper), anything else as its text.
        return value if _plain_json(value) else str(value)


def _plain_json(value: Any) -> bool:
    """Whether `value` is made of dicts with string keys, lists, and JSON scalars only."""
    pending = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if item is None or isinstance(item, str | int | float | bool):
            continue
        if id(item) in seen or not isinstance(item, dict | list):
            return False  # a cycle, or a type only pydantic knows how to write
        seen.add(id(item))
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            pending.extend(item.values())
        else:
            pending.extend(item)
    return True


def _mirror(value: Any) -> tuple[str, bool]:
    """The JSON text mirror of a result, and whether the value can go on the wire as it is
    (not when it holds NaN or Infinity); ValueError for an overlong integer or a cycle."""
    if type(value) is int:  # the commonest structured result; str() is what JSON writes
        return str(value), True
    try:
        return wire_json(value), True
    except ValueError:
        return compact_json(value), False


def _split_data_url(url: str) -> tuple[str, str] | None:
    """(mime type, base64 data) of a base64 data URL, else None."""
    if not url.startswith("data:"):
        return None
    header, sep, data = url[5:].partition(",")
    if not sep or not header.endswith(";base64"):
        return None
    return header[: -len(";base64")].split(";", 1)[0] or "application/octet-stream", data


def _link(uri: str, name: str, version: str) -> dict[str, Any]:
    return fitted({"type": "resource_link", "uri": uri, "name": name}, version)


def fitted(block: dict[str, Any], version: str) -> dict[str, Any]:
    """`block`, or its URI as text where `version` has no resource_link."""
    if block["type"] == "resource_link" and not eras.supports(version, "resource_link"):
        return {"type": "text", "text": block["uri"]}
    return block


def output_block(output: ToolOutput, version: str = eras.LATEST_HANDSHAKE) -> dict[str, Any]:
    """One MCP content block for one structured output, as `version` knows them."""
    if isinstance(output, ResourceLink | EmbeddedResource):
        return fitted(output.block(), version)
    from ...tools.outputs import ToolOutputImage, ToolOutputText

    if isinstance(output, ToolOutputText):
        return {"type": "text", "text": output.text}
    if isinstance(output, ToolOutputImage):
        if output.image_url is not None:
            parts = _split_data_url(output.image_url)
            if parts is not None:
                return {"type": "image", "data": parts[1], "mimeType": parts[0]}
            return _link(output.image_url, name_of_uri(output.image_url, "image"), version)
        return {"type": "text", "text": f"image file_id: {output.file_id}"}
    name = output.filename or "file"
    if output.file_data is not None:
        parts = _split_data_url(output.file_data)
        mime, data = parts if parts else ("application/octet-stream", output.file_data)
        if parts and mime.startswith("audio/") and eras.supports(version, "audio"):
            return {"type": "audio", "data": data, "mimeType": mime}
        return {
            "type": "resource",
            "resource": {"uri": "file:///" + quote(name), "mimeType": mime, "blob": data},
        }
    if output.file_url is not None:
        return _link(
            output.file_url, output.filename or name_of_uri(output.file_url, "file"), version
        )
    return {"type": "text", "text": f"file_id: {output.file_id}"}


def _is_structured(value: Any) -> bool:
    from pydantic import BaseModel

    return isinstance(value, dict | BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    )


def error_result(text: str) -> dict[str, Any]:
    """An `isError` result carrying `text`."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def call_result(entry: ResultShape, output: Any, version: str) -> dict[str, Any]:
    """The `tools/call` result of a successful call, shaped for `version`."""
    try:
        return _shaped_result(entry, output, version)
    except ValueError as error:
        logger.warning("tool %r: %s", entry.name, error)
        text = f"Tool '{entry.name}' returned a value that cannot be sent as JSON: {error}"
        return error_result(text)


def _with_content(entry: ResultShape, result: ToolResult[Any], version: str) -> dict[str, Any]:
    """A `ToolResult`: its structured part shaped as a plain return of it would be, then its
    content in place of that shape's content."""
    structured = result.structured
    if structured is None and not (entry.output_schema is not None and entry.wraps_result):
        shaped: dict[str, Any] = {"content": [], "isError": False}  # null is no object
    else:
        shaped = _shaped_result(entry, structured, version)
    if result.content is not None:
        shaped["content"] = _content_blocks(result.content, version)
    return shaped


def _content_blocks(content: Any, version: str) -> list[dict[str, Any]]:
    """The blocks of a `ToolResult`'s content (checked when the result was made)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    items = content if isinstance(content, list | tuple) else [content]
    blocks = []
    for item in items:
        output = as_output(item)
        # A dict changed since the check: its JSON, as a client shows a block it does not know.
        blocks.append(
            output_block(output, version)
            if output is not None
            else {"type": "text", "text": compact_json(to_jsonable(item))}
        )
    return blocks


_NUMBERS = frozenset({int, float, bool})


def _shaped_result(entry: ResultShape, output: Any, version: str) -> dict[str, Any]:
    if isinstance(output, ToolResult):
        return _with_content(entry, output, version)
    structured_ok = eras.supports(version, "structuredContent")
    blocks: list[dict[str, Any]] | None = None
    if isinstance(output, str):
        blocks = [{"type": "text", "text": output}]
    elif output is not None and type(output) not in _NUMBERS:  # a number is never an output
        single = as_output(output)
        if single is not None:
            blocks = [output_block(single, version)]
        elif isinstance(output, list | tuple) and output:
            outputs = [as_output(item) for item in output]
            if all(item is not None for item in outputs):
                blocks = [output_block(item, version) for item in outputs if item is not None]
    declared = entry.output_schema is not None
    if not declared and blocks is not None:
        return {"content": blocks, "isError": False}
    if not declared and output is None:
        return {"content": [], "isError": False}
    data = to_jsonable(output)
    text, sendable = (data, True) if isinstance(data, str) else _mirror(data)
    if blocks is None:
        blocks = [{"type": "text", "text": text}]
    result: dict[str, Any] = {"content": blocks}
    if structured_ok and (declared or (isinstance(data, dict) and _is_structured(output))):
        if sendable:
            result["structuredContent"] = {"result": data} if entry.wraps_result else data
        else:
            logger.warning(
                "tool %r returned NaN or Infinity, which JSON cannot carry: structuredContent "
                "is left out of this reply, which sends its text content only",
                entry.name,
            )
    result["isError"] = False
    return result


def _fetchable(uri: Any) -> bool:
    """Whether a model provider can fetch `uri` itself: else it would refuse the whole turn."""
    return isinstance(uri, str) and uri[:8].lower().startswith(("https://", "http://"))


def content_to_outputs(content: list[dict[str, Any]]) -> list[ToolOutput]:
    """MCP content blocks (wire dicts) -> toolwire outputs, for a client adapter."""
    from ...tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

    outputs: list[ToolOutput] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            outputs.append(ToolOutputText(text=str(block.get("text", ""))))
        elif kind == "image":
            url = f"data:{block.get('mimeType', 'image/png')};base64,{block.get('data', '')}"
            outputs.append(ToolOutputImage(image_url=url))
        elif kind == "audio":
            url = f"data:{block.get('mimeType', 'audio/wav')};base64,{block.get('data', '')}"
            outputs.append(ToolOutputFileContent(file_data=url))
        elif kind == "resource" and isinstance(block.get("resource"), dict):
            resource = block["resource"]
            uri = str(resource.get("uri", ""))
            if "blob" in resource:
                mime = resource.get("mimeType") or "application/octet-stream"
                outputs.append(
                    ToolOutputFileContent(
                        file_data=f"data:{mime};base64,{resource['blob']}",
                        filename=name_of_uri(uri, "file"),
                    )
                )
            else:
                outputs.append(ToolOutputText(text=str(resource.get("text", ""))))
        elif kind == "resource_link" and _fetchable(block.get("uri")):
            mime = block.get("mimeType")
            if isinstance(mime, str) and mime.startswith("image/"):
                outputs.append(ToolOutputImage(image_url=block["uri"]))
            else:
                name = block.get("name")
                outputs.append(
                    ToolOutputFileContent(
                        file_url=block["uri"], filename=name if isinstance(name, str) else None
                    )
                )
        else:
            outputs.append(ToolOutputText(text=compact_json(block)))
    return outputs
