"""A tool as the server publishes it: the FunctionTool plus its MCP options, and the
per-era `tools/list` entry computed once."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from ..tools.function_tool import FunctionTool
from ..tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from .eras import at_least

_ANNOTATION_KEYS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_CONTENT_TYPES = (ToolOutputText, ToolOutputImage, ToolOutputFileContent)


@dataclass
class RegisteredTool:
    """One published tool.

    Args:
        tool: The FunctionTool that runs.
        title: A human-readable display name.
        annotations: MCP hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint).
        meta: Free-form `_meta` for the tool listing.
        output_schema: The JSON schema of structured results (object-rooted), or None.
        wraps_result: Whether results are sent as `{"result": value}`.
        timeout: Seconds after which a call is answered with a timeout error.
    """

    tool: FunctionTool
    title: str | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    wraps_result: bool = False
    timeout: float | None = None
    _listing: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.tool.name

    def listing(self, version: str) -> dict[str, Any]:
        """The `tools/list` entry for a protocol version (cached)."""
        cached = self._listing.get(version)
        if cached is None:
            cached = self._listing[version] = self._build_listing(version)
        return cached

    def _build_listing(self, version: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": self.tool.name}
        title = self.title or (self.annotations or {}).get("title")
        if title and at_least(version, "2025-06-18"):
            entry["title"] = title
        if self.tool.description:
            entry["description"] = self.tool.description
        entry["inputSchema"] = self.tool.params_json_schema
        if self.output_schema is not None and at_least(version, "2025-06-18"):
            entry["outputSchema"] = self.output_schema
        if self.annotations and at_least(version, "2025-03-26"):
            entry["annotations"] = dict(self.annotations)
        if self.meta and at_least(version, "2025-06-18"):
            entry["_meta"] = dict(self.meta)
        return entry


def normalize_annotations(annotations: Any) -> dict[str, Any] | None:
    """Accept a dict (or an object with the same attributes); refuse unknown keys by name."""
    if annotations is None:
        return None
    if not isinstance(annotations, dict):
        dumped = getattr(annotations, "model_dump", None)
        if callable(dumped):
            annotations = dumped(by_alias=True, exclude_none=True)
        else:
            raise TypeError(f"annotations must be a dict, not {type(annotations).__name__}")
    unknown = sorted(set(annotations) - set(_ANNOTATION_KEYS))
    if unknown:
        raise ValueError(
            f"unknown tool annotation(s) {', '.join(unknown)}; "
            f"MCP defines {', '.join(_ANNOTATION_KEYS)}"
        )
    return dict(annotations)


def _is_content_annotation(annotation: Any) -> bool:
    if annotation in (inspect.Signature.empty, None, type(None), Any, str):
        return True
    if isinstance(annotation, type) and issubclass(annotation, _CONTENT_TYPES):
        return True
    args = get_args(annotation)
    return (
        bool(args)
        and get_origin(annotation) is not dict
        and all(_is_content_annotation(arg) for arg in args)
    )


def infer_output_schema(return_annotation: Any) -> tuple[dict[str, Any] | None, bool]:
    """(output schema, wraps_result) for a return annotation; content-like returns get none."""
    if _is_content_annotation(return_annotation):
        return None, False
    from pydantic import TypeAdapter

    try:
        schema = TypeAdapter(return_annotation).json_schema(mode="serialization")
    except Exception:
        return None, False
    if schema.get("type") == "object" or ("$ref" in schema and _resolves_to_object(schema)):
        return schema, False
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped, True


def _resolves_to_object(schema: dict[str, Any]) -> bool:
    ref = schema.get("$ref", "")
    target = schema.get("$defs", {}).get(ref.rsplit("/", 1)[-1], {})
    return isinstance(target, dict) and target.get("type") == "object" and len(schema) == 2


def to_jsonable(value: Any) -> Any:
    """Plain JSON data for structuredContent (pydantic models, dataclasses and the rest)."""
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        if isinstance(value, dict | list):
            from pydantic_core import to_jsonable_python

            return to_jsonable_python(value)
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        from pydantic_core import to_jsonable_python

        return to_jsonable_python(value)
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)
