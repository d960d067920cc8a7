"""The methods about the connection itself, not about what the server publishes.

`initialize`, `ping` and `logging/setLevel` (handshake era), `server/discover` and
`subscriptions/listen` (2026-07-28), each a route handler (see `methods.Route`). Capabilities
are those of the session's era table; `serverInfo` leaves out `icons` for versions before
2025-11-25, and 2024-11-05 names no `completions` capability though it serves the method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..wire import eras
from ..wire.jsonrpc import FrameKind, result_message

if TYPE_CHECKING:
    from ..wire.jsonrpc import RequestId
    from .methods import Session

__all__ = ["discover", "initialize", "listen", "ping", "set_level"]

Params = dict[str, Any] | None


async def initialize(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """Negotiate the version and remember what the client said about itself."""
    version = eras.negotiate(eras.check_initialize(params))
    session.protocol_version = version
    session.client_info = (params or {}).get("clientInfo")
    session.client_capabilities = (params or {}).get("capabilities")
    capabilities = session.capabilities()
    if not eras.supports(version, "completions"):
        capabilities.pop("completions", None)
    info = session.server.server_info
    if "icons" in info and not eras.supports(version, "icons"):
        info = {key: value for key, value in info.items() if key != "icons"}
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": info,
    }
    if session.server.instructions:
        result["instructions"] = session.server.instructions
    await session.send(result_message(request_id, result), FrameKind.REPLY, request_id)


async def ping(session: Session, request_id: RequestId, *_: Any) -> None:
    """Answer `{}`: the connection is alive."""
    await session.send(result_message(request_id, {}), FrameKind.REPLY, request_id)


async def set_level(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """Set the level below which a call's log messages are not sent (handshake era)."""
    level: Any = (params or {}).get("level")
    if level not in eras.LOG_LEVELS:
        raise eras.invalid_params(
            f"logging/setLevel: 'level' must be one of {', '.join(eras.LOG_LEVELS)}"
        )
    session.log_level = level
    await session.send(result_message(request_id, {}), FrameKind.REPLY, request_id)


async def discover(session: Session, request_id: RequestId, *_: Any) -> None:
    """Say which versions and capabilities this server serves (2026-07-28)."""
    result: dict[str, Any] = {
        "supportedVersions": list(eras.MODERN_VERSIONS),
        "capabilities": session.capabilities(),
    }
    if session.server.instructions:
        result["instructions"] = session.server.instructions
    eras.stamp(result, session.server.server_info, cacheable=True)
    await session.send(result_message(request_id, result), FrameKind.REPLY, request_id)


async def listen(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """Open a stream of change notifications (2026-07-28, see `subscriptions.py`)."""
    await session.listeners.listen(request_id, params)
