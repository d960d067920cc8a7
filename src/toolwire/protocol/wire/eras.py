"""The two MCP protocol eras: their versions, negotiation, what each version knows, and the
2026-07-28 request envelope. `HANDSHAKE_VERSIONS` are negotiated by `initialize`; `MODERN_VERSIONS`
are stateless, every request carrying a `params._meta` envelope. `supports(version, feature)` tells
whether a version has a field or content type, so that no reply carries one its version lacks."""

from __future__ import annotations

from typing import Any, Literal

from .jsonrpc import (
    INVALID_PARAMS,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProtocolError,
    valid_id,
)

__all__ = [
    "HANDSHAKE_VERSIONS",
    "LATEST_HANDSHAKE",
    "LOG_LEVELS",
    "MODERN_VERSIONS",
    "Era",
    "check_envelope",
    "has_envelope",
    "invalid_params",
    "is_modern_request",
    "negotiate",
    "progress_token",
    "stamp",
    "stamp_for",
    "supports",
]

Era = Literal["handshake", "modern"]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# RFC 5424 severities, ascending, as MCP's LoggingLevel lists them.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

_SINCE = {
    "annotations": "2025-03-26",
    "audio": "2025-03-26",
    "completions": "2025-03-26",
    "title": "2025-06-18",
    "outputSchema": "2025-06-18",
    "structuredContent": "2025-06-18",
    "resource_link": "2025-06-18",
    "tool_meta": "2025-06-18",
    "icons": "2025-11-25",
}


def supports(version: str, feature: str) -> bool:
    """Whether `version` knows `feature` (a key of `_SINCE`)."""
    return version >= _SINCE[feature]  # ISO dates compare as strings


def negotiate(requested: Any) -> str:
    """The version to answer an `initialize` with: the client's if known, else the latest."""
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def invalid_params(detail: str) -> ProtocolError:
    """The SDK's surface-validation error (-32602 "Invalid request parameters"), with a reason."""
    return ProtocolError(INVALID_PARAMS, "Invalid request parameters", detail)


def has_envelope(params: dict[str, Any] | None) -> bool:
    """Whether a request claims the modern era: its `_meta` carries the protocol-version key
    (alone, as in the SDK, so a half-built envelope gets the error naming what is missing)."""
    if not params:
        return False
    meta = params.get("_meta")
    return isinstance(meta, dict) and META_VERSION in meta


def stamp(
    result: dict[str, Any], server_info: dict[str, Any], *, cacheable: bool = False
) -> dict[str, Any]:
    """Stamp a 2026-07-28 result in place: `resultType: "complete"`, the serverInfo `_meta`,
    and for a `cacheable` one the SDK's `ttlMs: 0` and `cacheScope: "private"`."""
    if cacheable:
        result["ttlMs"] = 0
        result["cacheScope"] = "private"
    result["resultType"] = "complete"
    meta = result.get("_meta")
    info = {META_SERVER_INFO: server_info}
    result["_meta"] = {**meta, **info} if isinstance(meta, dict) else info
    return result


def stamp_for(
    version: str, result: dict[str, Any], server_info: dict[str, Any], *, cacheable: bool = False
) -> dict[str, Any]:
    """`result`, stamped (see `stamp`) when `version` is a 2026-07-28 one, else untouched."""
    if version in MODERN_VERSIONS:
        stamp(result, server_info, cacheable=cacheable)
    return result


def progress_token(params: dict[str, Any], method: str) -> Any:
    """The `_meta.progressToken` a request carries (None without one); -32602 when `_meta`
    is not an object or the token neither a string nor an integer."""
    meta = params.get("_meta")
    if meta is None:
        return None
    if not isinstance(meta, dict):
        raise invalid_params(f"{method}: '_meta' must be an object")
    token = meta.get("progressToken")
    if token is not None and not valid_id(token):
        raise invalid_params(f"{method}: 'progressToken' must be a string or integer")
    return token


def is_modern_request(declared: str | None, message: Any) -> bool:
    """Whether a request a transport received is of the 2026-07-28 era: a known version
    `declared` by the framing (`MCP-Protocol-Version`) decides, else the envelope does."""
    if declared:
        declared = declared.strip(" \t")
        if declared in MODERN_VERSIONS:
            return True
        if declared in HANDSHAKE_VERSIONS:
            return False
    if not isinstance(message, dict) or message.get("method") in (None, "initialize"):
        return False
    params = message.get("params")
    return isinstance(params, dict) and has_envelope(params)


def check_envelope(params: dict[str, Any] | None) -> tuple[str, str | None]:
    """Validate a modern request's envelope (-32602, or -32022 for a version not served);
    return (protocol version, log level or None)."""
    meta = params.get("_meta") if params else None
    if not isinstance(meta, dict):
        raise ProtocolError(
            INVALID_PARAMS,
            "params._meta must be an object carrying the required "
            f"{META_VERSION!r} and {META_CAPABILITIES!r} envelope keys",
        )
    missing = [key for key in (META_VERSION, META_CAPABILITIES) if key not in meta]
    if missing:
        raise ProtocolError(
            INVALID_PARAMS,
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
        )
    version = meta[META_VERSION]
    if not isinstance(version, str):
        raise ProtocolError(INVALID_PARAMS, "the protocol-version envelope value must be a string")
    if version not in MODERN_VERSIONS:
        raise ProtocolError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(MODERN_VERSIONS), "requested": version},
        )
    if not isinstance(meta[META_CAPABILITIES], dict):
        raise invalid_params(f"params._meta[{META_CAPABILITIES!r}] must be an object")
    info = meta.get(META_CLIENT_INFO)
    if info is not None and not (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    ):
        raise invalid_params(
            f"params._meta[{META_CLIENT_INFO!r}] must be an object with string name and version"
        )
    level = meta.get(META_LOG_LEVEL)
    if level is not None and level not in LOG_LEVELS:
        raise invalid_params(
            f"params._meta[{META_LOG_LEVEL!r}] must be one of {', '.join(LOG_LEVELS)}"
        )
    return version, level


def check_initialize(params: dict[str, Any] | None) -> str:
    """Validate `initialize` params (`capabilities` and `clientInfo` may be missing, unlike
    in the SDK); return the requested version."""
    params = params or {}
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise invalid_params("initialize: 'protocolVersion' must be a string")
    for key in ("capabilities", "clientInfo"):
        if key in params and not isinstance(params[key], dict):
            raise invalid_params(f"initialize: {key!r} must be an object")
    return requested
