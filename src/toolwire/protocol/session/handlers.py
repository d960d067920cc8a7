"""Results of `initialize` and `server/discover`, the 2026-07-28 stamps, and list cursors.

Capabilities derive from the methods each era serves. `serverInfo` is the server's name and
version ("0.0.0" when it has none) with its icons where the version knows them; 2026-07-28
results carry `resultType: "complete"` and the serverInfo stamp, cacheable ones `ttlMs: 0` and
`cacheScope: "private"`. List pages hold `PAGE_SIZE` entries behind an opaque cursor; any
other cursor is -32602 "Invalid cursor".
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from ..wire import eras
from ..wire.jsonrpc import INVALID_PARAMS, ProtocolError

if TYPE_CHECKING:
    from .app import ServedApp

__all__ = [
    "decode_cursor",
    "discover_result",
    "encode_cursor",
    "initialize_result",
]

PAGE_SIZE = 100
_CURSOR_PREFIX = "tw1:"


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
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return eras.stamp(result, server.server_info, cacheable=True)


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
