"""Results of the methods answered inline: `initialize`, `server/discover` and `tools/list`.

Capabilities derive from the methods each era serves. `serverInfo` is the server's name and
version ("0.0.0" when it has none) with its icons where the version knows them; 2026-07-28
results carry `resultType: "complete"` and the serverInfo stamp, cacheable ones `ttlMs: 0` and
`cacheScope: "private"`. `tools/list` pages hold 100 tools behind an opaque cursor; any other
cursor is -32602 "Invalid cursor".
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from ..features.registry import is_enabled
from ..wire import eras
from ..wire.jsonrpc import INVALID_PARAMS, ProtocolError, encode_value

if TYPE_CHECKING:
    from ..features.registry import ToolRegistry
    from .app import ServedApp

__all__ = [
    "decode_cursor",
    "discover_result",
    "encode_cursor",
    "initialize_result",
    "list_tools_payload",
    "modern",
    "modern_cacheable",
]

PAGE_SIZE = 100
_CURSOR_PREFIX = "tw1:"
_CACHE = {"ttlMs": 0, "cacheScope": "private"}


def modern(result: dict[str, Any], server_info: dict[str, Any]) -> dict[str, Any]:
    """Stamp a modern-era result (in place): resultType and the serverInfo `_meta`."""
    result["resultType"] = "complete"
    meta = result.get("_meta")
    stamp = {eras.META_SERVER_INFO: server_info}
    result["_meta"] = {**meta, **stamp} if isinstance(meta, dict) else stamp
    return result


def modern_cacheable(result: dict[str, Any], server_info: dict[str, Any]) -> dict[str, Any]:
    """Stamp a cacheable modern-era result (a list, a read) in place: `modern` plus the
    caching hints."""
    result.update(_CACHE)
    return modern(result, server_info)


def initialize_result(
    server: ServedApp, version: str, capabilities: dict[str, Any]
) -> dict[str, Any]:
    """The `initialize` result for a negotiated version and what the era serves."""
    if "completions" in capabilities and not eras.supports(version, "completions"):
        # 2024-11-05 serves completion/complete without naming a capability for it.
        capabilities = {key: value for key, value in capabilities.items() if key != "completions"}
    info = server.server_info
    if "icons" in info and not eras.supports(version, "icons"):
        info = {key: value for key, value in info.items() if key != "icons"}
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": info,
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return result


def discover_result(server: ServedApp, capabilities: dict[str, Any]) -> dict[str, Any]:
    """The `server/discover` result (modern era), with what the era serves."""
    result: dict[str, Any] = {
        "supportedVersions": list(eras.MODERN_VERSIONS),
        "capabilities": capabilities,
        **_CACHE,
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return modern(result, server.server_info)


def encode_cursor(offset: int) -> str:
    """An opaque cursor for the page starting at `offset`."""
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{offset}".encode()).decode("ascii")


def decode_cursor(cursor: Any) -> int:
    """The offset a cursor names; -32602 for anything this server did not issue."""
    try:
        if not isinstance(cursor, str) or len(cursor) > 64:
            raise ValueError
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
        if not text.startswith(_CURSOR_PREFIX):
            raise ValueError
        digits = text[len(_CURSOR_PREFIX) :]
        if not digits.isdigit():
            raise ValueError
        return int(digits)
    except (ValueError, UnicodeError, binascii.Error):
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor}) from None


async def list_tools_payload(
    server: ServedApp, registry: ToolRegistry, version: str, params: dict[str, Any] | None
) -> bytes:
    """The encoded `tools/list` result for `version` (cached per page while tools are static)."""
    cursor = params.get("cursor") if params else None
    offset = 0 if cursor is None else decode_cursor(cursor)
    cacheable = not registry.dynamic
    if cacheable:
        cached = registry.page_cache.get((version, offset))
        if cached is not None:
            return cached
    if cacheable:
        tools = [entry for entry in registry.entries() if entry.tool.is_enabled]
    else:
        tools = [entry for entry in registry.entries() if await is_enabled(entry)]
    if offset > len(tools) or (offset and offset == len(tools)):
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})
    page = tools[offset : offset + PAGE_SIZE]
    result: dict[str, Any] = {"tools": [entry.listing(version) for entry in page]}
    if offset + PAGE_SIZE < len(tools):
        result["nextCursor"] = encode_cursor(offset + PAGE_SIZE)
    if version in eras.MODERN_VERSIONS:
        result.update(_CACHE)
        modern(result, server.server_info)
    payload = encode_value(result)
    if cacheable:
        registry.page_cache[(version, offset)] = payload
    return payload
