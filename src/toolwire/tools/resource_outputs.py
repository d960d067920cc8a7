"""Results that point at or carry an MCP resource: a link, or the resource's contents.

A tool or prompt returns a `ResourceLink` for a `resource_link` block or an `EmbeddedResource`
for a `resource` block; in a list with `ToolOutput*` values each becomes a block, in order.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = ["EmbeddedResource", "ResourceLink", "name_of_uri"]


def name_of_uri(uri: str, fallback: str) -> str:
    """The last segment of a URI's path (percent-decoded), or `fallback` when it has none."""
    path = urlsplit(uri).path.rstrip("/")
    return unquote(path.rsplit("/", 1)[-1]) or fallback


def _text_field(value: Any, label: str, owner: str) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{owner}: {label} must be a string, not {type(value).__name__}")


@dataclass(frozen=True, slots=True)
class ResourceLink:
    """A pointer to a resource the client may read (an MCP `resource_link` block).

    Args:
        uri: The resource's URI.
        name: Its name; the last segment of the URI's path when not given.
        title: A human-readable name.
        description: What it holds.
        mime_type: Its media type, when known.
        size: Its size in bytes, when known.
    """

    uri: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.uri, str) or not self.uri:
            raise TypeError(f"ResourceLink: uri must be a non-empty string, not {self.uri!r}")
        for label in ("name", "title", "description", "mime_type"):
            _text_field(getattr(self, label), label, "ResourceLink")
        if self.size is not None and (
            isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 0
        ):
            raise TypeError(f"ResourceLink: size must be a non-negative int, not {self.size!r}")

    def block(self) -> dict[str, Any]:
        """The MCP `resource_link` content block (the name derived from the URI when unset)."""
        block: dict[str, Any] = {
            "type": "resource_link",
            "uri": self.uri,
            "name": self.name or name_of_uri(self.uri, "resource"),
        }
        for key, value in (
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
            ("size", self.size),
        ):
            if value is not None:
                block[key] = value
        return block


@dataclass(frozen=True, slots=True)
class EmbeddedResource:
    """A resource's contents sent inline (an MCP `resource` block): text or bytes.

    Args:
        uri: The URI the contents belong to.
        text: The contents as text (exactly one of `text` and `blob`).
        blob: The contents as bytes (sent base64-encoded).
        mime_type: Their media type, when known.
    """

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.uri, str) or not self.uri:
            raise TypeError(f"EmbeddedResource: uri must be a non-empty string, not {self.uri!r}")
        if (self.text is None) == (self.blob is None):
            raise TypeError("EmbeddedResource: give exactly one of text and blob")
        _text_field(self.text, "text", "EmbeddedResource")
        _text_field(self.mime_type, "mime_type", "EmbeddedResource")
        if self.blob is not None and not isinstance(self.blob, bytes | bytearray | memoryview):
            raise TypeError(f"EmbeddedResource: blob must be bytes, not {type(self.blob).__name__}")

    def block(self) -> dict[str, Any]:
        """The MCP `resource` content block carrying `contents()`."""
        return {"type": "resource", "resource": self.contents()}

    def contents(self) -> dict[str, Any]:
        """The resource contents object (`uri`, `mimeType`, and `text` or `blob`)."""
        entry: dict[str, Any] = {"uri": self.uri}
        if self.mime_type is not None:
            entry["mimeType"] = self.mime_type
        if self.text is not None:
            entry["text"] = self.text
        else:
            assert self.blob is not None
            entry["blob"] = base64.b64encode(bytes(self.blob)).decode("ascii")
        return entry
