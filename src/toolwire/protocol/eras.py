"""The two MCP protocol eras: the handshake era and the stateless 2026-07-28 era."""

from __future__ import annotations

from typing import Any

from .jsonrpc import INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION, ProtocolError

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def negotiate(requested: Any) -> str:
    """The version to answer an `initialize` with: the client's if known, else the latest."""
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def is_enveloped(params: Any) -> bool:
    """Whether a request carries the 2026-07-28 per-request envelope."""
    if not isinstance(params, dict):
        return False
    meta = params.get("_meta")
    return isinstance(meta, dict) and META_VERSION in meta


def check_envelope(params: Any) -> dict[str, Any]:
    """Validate a modern request's `_meta` envelope; return it."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if (
        not isinstance(meta, dict)
        or not isinstance(meta.get(META_VERSION), str)
        or not isinstance(meta.get(META_CAPABILITIES), dict)
    ):
        raise ProtocolError(
            INVALID_PARAMS,
            "params._meta must be an object carrying the required "
            f"'{META_VERSION}' and '{META_CAPABILITIES}' envelope keys",
        )
    if meta[META_VERSION] not in MODERN_VERSIONS:
        raise ProtocolError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(MODERN_VERSIONS), "requested": meta[META_VERSION]},
        )
    return meta


def at_least(version: str, minimum: str) -> bool:
    """Whether `version` is `minimum` or newer (dates compare as strings)."""
    return version >= minimum
