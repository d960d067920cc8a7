"""What a server publishes, kept in registries, and the tools among them. Every registry (tools,
prompts, resources) is a `NamedEntries`: entries by key in publication order, refusals that name the
kind, listeners told of each change; a subclass names its kind and keeps any bookkeeping of its own
in `_added`, `_removed` and `_changed`. A tool is a FunctionTool with its MCP options, listed per
version: `inputSchema` is its object-rooted `params_json_schema`; `outputSchema` the given one, else
the FunctionTool's, else one inferred from the return annotation (none for content results, a
non-object root wrapped under `result`). docs/decisions.md (registry.py) says why."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, UnionType
from typing import Any, Generic, TypeVar, Union, get_args, get_origin

from ...errors import UserError
from ...schema.refs import lookup_local_ref
from ...tools.function_tool import FunctionTool
from ...tools.resource_outputs import EmbeddedResource, ResourceLink
from ...tools.tool_result import loaded_output_classes, structured_annotation
from ..auth.identity import parse_scopes
from ..wire import eras
from ..wire.icons import normalize_icons

__all__ = [
    "NamedEntries",
    "RegisteredTool",
    "ToolRegistry",
    "infer_output_schema",
    "listing",
    "normalize_annotations",
    "normalize_output_schema",
    "optional_text",
]

E = TypeVar("E")


class NamedEntries(Mapping[str, E], Generic[E]):
    """Entries by name, in the order they were published; listeners hear of every change."""

    kind = "entry"  # in refusals: "A tool named 'x' is already registered ..."

    def __init__(self) -> None:
        self._entries: dict[str, E] = {}
        self.listeners: list[Callable[[], None]] = []

    def __getitem__(self, name: str) -> E:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, entry: E) -> None:
        """Publish `entry`; a key already taken is refused (a UserError unless `_taken` says)."""
        key = self._key(entry)
        if key in self._entries:
            raise self._taken(entry)
        self._entries[key] = entry
        self._added(entry)
        self._changed()

    def remove(self, key: str) -> E:
        """Stop publishing `key`; an unknown one is a KeyError naming the known ones."""
        entry = self._entries.pop(key, None)
        if entry is None:
            raise self._unknown(key)
        self._removed(entry)
        self._changed()
        return entry

    def view(self) -> Mapping[str, E]:
        """A read-only live view of the entries by key."""
        return MappingProxyType(self._entries)

    def entries(self) -> list[E]:
        """All entries, in order."""
        return list(self._entries.values())

    def _key(self, entry: E) -> str:
        name: str = getattr(entry, "name")  # noqa: B009 - tools and prompts have one
        return name

    def _taken(self, entry: E) -> Exception:
        name = self._key(entry)
        return UserError(f"A {self.kind} named {name!r} is already registered on this server")

    def _unknown(self, key: str) -> Exception:
        known = ", ".join(sorted(self._entries)) or "none"
        return KeyError(f"No {self.kind} named {key!r} on this server ({self.kind}s: {known})")

    def _added(self, entry: E) -> None:
        """Bookkeeping of a subclass for a new entry (before listeners hear of it)."""

    def _removed(self, entry: E) -> None:
        """Bookkeeping of a subclass for an entry gone (before listeners hear of it)."""

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()


def listing(version: str, fields: dict[str, Any], icons: Any, meta: Any) -> dict[str, Any]:
    """A listing entry: `fields` less its None values (and `title` where `version` lacks it),
    then `icons` and `_meta` where it knows them."""
    entry = {key: value for key, value in fields.items() if value is not None}
    if "title" in entry and not eras.supports(version, "title"):
        del entry["title"]
    if icons and eras.supports(version, "icons"):
        entry["icons"] = [dict(icon) for icon in icons]
    if meta and eras.supports(version, "tool_meta"):
        entry["_meta"] = dict(meta)
    return entry


def optional_text(value: Any, what: str) -> str | None:
    """`value` if it is a string or None; a UserError naming `what` otherwise."""
    if value is not None and not isinstance(value, str):
        raise UserError(f"{what} must be a string, not {type(value).__name__}")
    return value


ANNOTATION_KEYS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(eq=False)
class RegisteredTool:
    """One published tool: the FunctionTool that runs, and its MCP options (`output_schema`
    object-rooted, `wraps_result` when results go out as `{"result": value}`, `icons` as wire
    dicts)."""

    tool: FunctionTool
    title: str | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    wraps_result: bool = False
    timeout: float | None = None
    scopes: frozenset[str] = frozenset()
    icons: tuple[dict[str, Any], ...] | None = None
    _listing: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    name: str = field(init=False)
    """The tool's name (its `FunctionTool`'s)."""

    def __post_init__(self) -> None:
        self.name = self.tool.name

    @property
    def dynamic(self) -> bool:
        """Whether `is_enabled` is a callable, asked at every listing and call."""
        return not isinstance(self.tool.is_enabled, bool)

    def listing(self, version: str) -> dict[str, Any]:
        """The `tools/list` entry for a protocol version (computed once)."""
        cached = self._listing.get(version)
        if cached is not None:
            return cached
        annotations = dict(self.annotations or {})
        if self.title and not eras.supports(version, "title"):
            annotations.setdefault("title", self.title)
        fields = {
            "name": self.tool.name,
            "title": self.title or None,
            "description": self.tool.description or None,
            "inputSchema": self.tool.params_json_schema,
            "outputSchema": self.output_schema if eras.supports(version, "outputSchema") else None,
            "annotations": annotations or None if eras.supports(version, "annotations") else None,
        }
        cached = self._listing[version] = listing(version, fields, self.icons, self.meta)
        return cached


class ToolRegistry(NamedEntries[RegisteredTool]):
    """Published tools by name, in registration order; tells listeners about changes."""

    kind = "tool"

    def __init__(self) -> None:
        super().__init__()
        self.page_cache: dict[tuple[str, int], bytes] = {}
        self.dynamic = 0  # how many tools have a callable is_enabled
        self.scoped = 0  # how many tools require scopes
        self._all_scopes: frozenset[str] | None = None

    def _added(self, entry: RegisteredTool) -> None:
        self.dynamic += entry.dynamic
        self.scoped += bool(entry.scopes)

    def _removed(self, entry: RegisteredTool) -> None:
        self.dynamic -= entry.dynamic
        self.scoped -= bool(entry.scopes)

    def all_scopes(self) -> frozenset[str]:
        """Every scope some tool requires (computed once per change of the tool set)."""
        known = self._all_scopes
        if known is None:
            known = frozenset().union(*(entry.scopes for entry in self._entries.values()))
            self._all_scopes = known
        return known

    def _changed(self) -> None:
        self.page_cache.clear()
        self._all_scopes = None
        super()._changed()


def normalize_annotations(annotations: Any) -> dict[str, Any] | None:
    """Accept a dict (or an object with `model_dump`); refuse unknown keys and non-bool hints."""
    if annotations is None:
        return None
    if not isinstance(annotations, dict):
        dump = getattr(annotations, "model_dump", None)
        if not callable(dump):
            raise TypeError(f"annotations must be a dict, not {type(annotations).__name__}")
        annotations = dump(by_alias=True, exclude_none=True)
    unknown = sorted(set(annotations) - set(ANNOTATION_KEYS))
    if unknown:
        raise UserError(
            f"Unknown tool annotation(s) {', '.join(unknown)}; "
            f"MCP defines {', '.join(ANNOTATION_KEYS)}"
        )
    for key, value in annotations.items():
        if key == "title" and not isinstance(value, str):
            raise UserError("Tool annotation 'title' must be a string")
        if key != "title" and not isinstance(value, bool):
            raise UserError(f"Tool annotation {key!r} must be true or false")
    return {key: annotations[key] for key in ANNOTATION_KEYS if key in annotations}


def _is_content_annotation(annotation: Any, in_list: bool = False) -> bool:
    """Whether results of this type are content blocks (text/outputs), not structured data."""
    if annotation in (None, type(None)):
        return True
    if not in_list and (annotation in (inspect.Signature.empty, Any, str)):
        return True
    # The ToolOutput* classes are pydantic models the start-up path does not load; a return
    # annotation cannot name one unless their module has been imported.
    if isinstance(annotation, type) and issubclass(
        annotation, (*loaded_output_classes(), ResourceLink, EmbeddedResource)
    ):
        return True
    origin = get_origin(annotation)
    args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
    if origin is Union or origin is UnionType:
        return all(_is_content_annotation(arg, in_list) for arg in args)
    if origin in (list, tuple) and not in_list:
        return bool(args) and all(_is_content_annotation(arg, True) for arg in args)
    return False


def _object_rooted(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The schema with an object root (inlining a root `$ref`), or None if it is not one."""
    if schema.get("type") == "object":
        return schema
    ref = schema.get("$ref")
    defs = schema.get("$defs")
    if isinstance(ref, str) and isinstance(defs, dict) and set(schema) == {"$ref", "$defs"}:
        target = lookup_local_ref(schema, ref)
        if isinstance(target, dict) and target.get("type") == "object":
            # Keep every definition (the target too): a recursive model refers to itself.
            return {**target, "$defs": defs}
    return None


def _wrap(schema: dict[str, Any]) -> dict[str, Any]:
    inner = dict(schema)
    defs = inner.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped


def normalize_output_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(object-rooted schema, wraps_result) for an explicit output schema."""
    if not isinstance(schema, dict):
        raise UserError("output_schema must be a JSON schema object (a dict)")
    rooted = _object_rooted(schema)
    return (rooted, False) if rooted is not None else (_wrap(schema), True)


def infer_output_schema(return_annotation: Any) -> tuple[dict[str, Any] | None, bool]:
    """(output schema, wraps_result) for a return annotation; content-like returns get none,
    and `ToolResult[T]` gets `T`'s."""
    return_annotation = structured_annotation(return_annotation)[1]
    if _is_content_annotation(return_annotation):
        return None, False
    schema = _simple_output_schema(return_annotation)
    if schema is None:
        from pydantic import TypeAdapter

        try:
            schema = TypeAdapter(return_annotation).json_schema(mode="serialization")
        except Exception:
            return None, False
    return normalize_output_schema(schema)


def _simple_output_schema(annotation: Any) -> dict[str, Any] | None:
    """pydantic's schema for simple return types (int, list[str], dict[str, float]...), written
    here so that start-up need not load pydantic; None for anything else."""
    from ...schema.function_schema import simple_type_schema

    if get_origin(annotation) is dict:
        args = get_args(annotation)
        if len(args) == 2 and args[0] is str:
            values: Any = True if args[1] is Any else simple_type_schema(args[1])
            if values is not None:
                return {"additionalProperties": values, "type": "object"}
        return None
    return simple_type_schema(annotation)


def registered_tool(
    tool: FunctionTool,
    title: str | None,
    annotations: Any,
    meta: dict[str, Any] | None,
    output_schema: dict[str, Any] | None,
    timeout: float | None,
    scopes: str | Iterable[str] | None = None,
    icons: Any = None,
) -> RegisteredTool:
    """A tool with its MCP options checked (what `Server.tool` / `add_tool` publish): a
    UserError for a non-object input schema, `needs_approval` or guardrails (nothing here
    applies them), non-dict `meta` or a malformed icon, a ValueError for a bad `timeout` or
    scope name, a TypeError for `scopes` of another type."""
    if tool.params_json_schema.get("type") != "object":
        raise UserError(f"inputSchema of tool {tool.name!r} must have type 'object'")
    if tool.needs_approval is not False:
        raise UserError(
            f"tool {tool.name!r} sets needs_approval, which only an Agents SDK run enforces: an"
            " MCP server runs every call its client sends, so it would run unasked. Publish it"
            " with needs_approval=False and ask in the tool (ctx.elicit) or let the client ask"
            " (annotations={'destructiveHint': True})"
        )
    for kind in ("tool_input_guardrails", "tool_output_guardrails"):
        if getattr(tool, kind):
            raise UserError(
                f"tool {tool.name!r} has {kind}, which only an Agents SDK run applies: an MCP"
                " server would run every call without them. Make the checks in the tool itself"
                f" and publish it with {kind}=None"
            )
    if timeout is None:
        timeout = tool.timeout_seconds
    elif (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValueError(f"timeout of tool {tool.name!r} must be a positive number of seconds")
    if meta is not None and not isinstance(meta, dict):
        raise UserError(f"meta of tool {tool.name!r} must be a dict")
    optional_text(title, f"title of tool {tool.name!r}")
    schema: dict[str, Any] | None
    if output_schema is not None:
        schema, wraps = normalize_output_schema(output_schema)
    elif tool.output_json_schema is not None:
        schema, wraps = normalize_output_schema(tool.output_json_schema)
    else:
        schema, wraps = infer_output_schema(tool.return_annotation)
    return RegisteredTool(
        tool=tool,
        title=title,
        annotations=normalize_annotations(annotations),
        meta=dict(meta) if meta else None,
        output_schema=schema,
        wraps_result=wraps,
        timeout=float(timeout) if timeout is not None else None,
        scopes=parse_scopes(scopes, f"scopes of tool {tool.name!r}"),
        icons=normalize_icons(icons, f"tool {tool.name!r}"),
    )
