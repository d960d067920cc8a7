"""Icons (MCP 2025-11-25): pictures a client may show next to a server, tool or prompt. Authors give
`Icon` objects, dicts spelled as on the wire, or anything with a pydantic `model_dump` (mcp's own
`Icon`); `normalize_icons` checks each once, when the owner is declared, and the error names what is
wrong."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ...errors import UserError

__all__ = ["Icon", "normalize_icons"]

_SCHEMES = ("https:", "http:", "data:")
_THEMES = ("light", "dark")
_KEYS = ("src", "mimeType", "sizes", "theme")


@dataclass(frozen=True, slots=True)
class Icon:
    """One picture for a server, tool or prompt.

    Args:
        src: Where the picture is: an http(s) URL or a `data:` URI.
        mime_type: Its media type (`image/png`, `image/svg+xml`, ...), when known.
        sizes: The sizes it comes in, as `"WxH"` strings, or `["any"]` for a vector image.
        theme: The background it is drawn for: "light" or "dark".
    """

    src: str
    mime_type: str | None = None
    sizes: tuple[str, ...] | list[str] | None = None
    theme: Literal["light", "dark"] | None = None

    def wire(self) -> dict[str, Any]:
        """The icon as MCP spells it (absent fields left out)."""
        sizes = None if self.sizes is None else list(self.sizes)
        entry = {"src": self.src, "mimeType": self.mime_type, "sizes": sizes, "theme": self.theme}
        return {key: value for key, value in entry.items() if value is not None}


def _as_mapping(icon: Any, owner: str) -> dict[str, Any]:
    if isinstance(icon, Icon):
        return icon.wire()
    if isinstance(icon, dict):
        return dict(icon)
    dump = getattr(icon, "model_dump", None)
    if callable(dump):
        dumped = dump(by_alias=True, exclude_none=True, mode="json")
        if isinstance(dumped, dict):
            return dumped
    raise UserError(f"icons of {owner} must be toolwire.Icon objects or dicts, not {icon!r}")


def _checked(icon: Any, owner: str) -> dict[str, Any]:
    entry = _as_mapping(icon, owner)
    unknown = sorted(set(entry) - set(_KEYS))
    if unknown:
        raise UserError(
            f"icon of {owner} has unknown key(s) {', '.join(unknown)}; "
            f"MCP defines {', '.join(_KEYS)}"
        )
    src = entry.get("src")
    if not isinstance(src, str) or not src.lower().startswith(_SCHEMES):
        raise UserError(
            f"icon of {owner}: 'src' must be an https:, http: or data: URI, not {src!r}"
        )
    mime = entry.get("mimeType")
    if mime is not None and not isinstance(mime, str):
        raise UserError(f"icon of {owner}: 'mimeType' must be a string")
    sizes = entry.get("sizes")
    if sizes is not None:
        listed = None if isinstance(sizes, str) or not isinstance(sizes, Iterable) else list(sizes)
        if listed is None or not all(isinstance(size, str) and size for size in listed):
            raise UserError(f"icon of {owner}: 'sizes' must be a list of strings such as '48x48'")
        entry["sizes"] = listed
    theme = entry.get("theme")
    if theme is not None and theme not in _THEMES:
        raise UserError(f"icon of {owner}: 'theme' must be 'light' or 'dark', not {theme!r}")
    return {key: entry[key] for key in _KEYS if entry.get(key) is not None}


def normalize_icons(icons: Any, owner: str) -> tuple[dict[str, Any], ...] | None:
    """A declaration's icons (`Icon`s or dicts) as wire dicts, None when there are none; a
    UserError naming `owner` ("tool 'add'") and the problem when one is malformed."""
    if icons is None:
        return None
    if isinstance(icons, str | bytes | dict | Icon) or not isinstance(icons, Iterable):
        raise UserError(f"icons of {owner} must be a list of icons, not {type(icons).__name__}")
    checked = tuple(_checked(icon, owner) for icon in icons)
    return checked or None
