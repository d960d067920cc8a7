"""Opening a handshake-era MCP session over HTTP with httpx, as the tests' raw clients do."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2
from tests._jsonrpc import INITIALIZED, initialize_request


def open_session(
    client: httpx2.Client,
    headers: Mapping[str, str],
    initialize: dict[str, Any] | None = None,
    *,
    url: str = "/mcp",
) -> dict[str, str]:
    """Send `initialize` (the default one) then `notifications/initialized`, checking both
    were accepted; `headers` plus the new session's id, for the session's later requests."""
    made = client.post(url, json=initialize or initialize_request(), headers=dict(headers))
    assert made.status_code == 200, made.text
    session = {**headers, "mcp-session-id": made.headers["mcp-session-id"]}
    done = client.post(url, json=INITIALIZED, headers=session)
    assert done.status_code == 202, done.text
    return session
