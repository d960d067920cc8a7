"""JSON-RPC request bodies the tests send as a client would, as dicts (for `json=` or `frame`).

Every test that opens an MCP session starts with the same `initialize` request and most go on
to a `tools/call`; spelling those out each time hid what a test changed from the usual (the
protocol version, the capabilities it offers).
"""

from __future__ import annotations

import json
from typing import Any

VERSION = "2025-11-25"
ACCEPT_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
}


def initialize_request(
    request_id: int | str = 1,
    *,
    version: str = VERSION,
    capabilities: dict[str, Any] | None = None,
    client: str = "c",
) -> dict[str, Any]:
    """An `initialize` request from a client named `client` offering `capabilities` (none)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": client, "version": "1"},
        },
    }


def tool_call_request(
    name: str, arguments: dict[str, Any] | None = None, request_id: int | str = 2
) -> dict[str, Any]:
    """A `tools/call` request for tool `name` with `arguments` (none)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments or {}},
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def encoded_request(
    method: str, params: dict[str, Any] | None = None, request_id: Any = 1
) -> bytes:
    """A JSON-RPC request as the bytes of a body (a notification when `request_id` is None;
    no `params` member when `params` is None)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()
