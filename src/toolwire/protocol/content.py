"""Tool results -> MCP `CallToolResult` content, and MCP content -> ToolOutput* (for clients)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ..tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from .registry import RegisteredTool, to_jsonable

_OUTPUT_TYPES = (ToolOutputText, ToolOutputImage, ToolOutputFileContent)


def _as_output(value: Any) -> ToolOutputText | ToolOutputImage | ToolOutputFileContent | None:
    if isinstance(value, _OUTPUT_TYPES):
        return value
    if isinstance(value, dict) and value.get("type") in ("text", "image", "file"):
        model: dict[str, type[ToolOutputText | ToolOutputImage | ToolOutputFileContent]] = {
            "text": ToolOutputText,
            "image": ToolOutputImage,
            "file": ToolOutputFileContent,
        }
        try:
            return model[value["type"]].model_validate(value)
        except Exception:
            return None
    return None


def _split_data_url(url: str) -> tuple[str, str] | None:
    """("image/png", base64 data) for a base64 data URL."""
    if not url.startswith("data:") or ";base64," not in url:
        return None
    header, data = url[5:].split(",", 1)
    return header.split(";", 1)[0] or "application/octet-stream", data


def output_block(
    output: ToolOutputText | ToolOutputImage | ToolOutputFileContent,
) -> dict[str, Any]:
    """One MCP content block for one structured output."""
    if isinstance(output, ToolOutputText):
        return {"type": "text", "text": output.text}
    if isinstance(output, ToolOutputImage):
        if output.image_url:
            parts = _split_data_url(output.image_url)
            if parts is not None:
                return {"type": "image", "data": parts[1], "mimeType": parts[0]}
            return {"type": "resource_link", "uri": output.image_url, "name": "image"}
        return {"type": "text", "text": f"image file_id: {output.file_id}"}
    name = output.filename or "file"
    if output.file_data is not None:
        parts = _split_data_url(output.file_data)
        mime, data = parts if parts else ("application/octet-stream", output.file_data)
        return {
            "type": "resource",
            "resource": {"uri": f"file:///{name}", "mimeType": mime, "blob": data},
        }
    if output.file_url is not None:
        return {"type": "resource_link", "uri": output.file_url, "name": name}
    return {"type": "text", "text": f"file_id: {output.file_id}"}


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def call_result(entry: RegisteredTool, output: Any, is_error: bool) -> dict[str, Any]:
    """The `tools/call` result for one outcome."""
    if is_error:
        return {"content": [{"type": "text", "text": str(output)}], "isError": True}
    if entry.output_schema is not None:
        data = to_jsonable(output)
        structured = {"result": data} if entry.wraps_result else data
        text = data if isinstance(data, str) else _text(data)
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": structured,
            "isError": False,
        }
    if isinstance(output, str):
        return {"content": [{"type": "text", "text": output}], "isError": False}
    single = _as_output(output)
    if single is not None:
        return {"content": [output_block(single)], "isError": False}
    if isinstance(output, list | tuple) and output:
        outputs = [_as_output(item) for item in output]
        if all(item is not None for item in outputs):
            blocks = [output_block(item) for item in outputs if item is not None]
            return {"content": blocks, "isError": False}
    if isinstance(output, dict | BaseModel) or _is_dataclass_instance(output):
        data = to_jsonable(output)
        if isinstance(data, dict):
            return {
                "content": [{"type": "text", "text": _text(data)}],
                "structuredContent": data,
                "isError": False,
            }
    if output is None:
        return {"content": [], "isError": False}
    try:
        text = output if isinstance(output, str) else _text(to_jsonable(output))
    except Exception:
        text = str(output)
    return {"content": [{"type": "text", "text": text}], "isError": False}


def _is_dataclass_instance(value: Any) -> bool:
    import dataclasses

    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def strip_version_fields(result: dict[str, Any], version: str) -> dict[str, Any]:
    """Drop result fields an older protocol version does not know."""
    if version < "2025-06-18" and "structuredContent" in result:
        result = {k: v for k, v in result.items() if k != "structuredContent"}
    if version < "2025-03-26":
        blocks = [b for b in result["content"] if b.get("type") in ("text", "image", "resource")]
        result = {**result, "content": blocks}
    return result
