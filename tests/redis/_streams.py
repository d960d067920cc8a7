"""A slow streaming call broken off mid-way: what the Redis event-store tests resume."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2 as httpx
from tests._jsonrpc import ACCEPT_HEADERS as ACCEPT
from tests.transports.http._sessions import open_session

from toolwire import Server, ToolContext

__all__ = ["break_off", "open_streaming_session", "slow_server"]


def slow_server() -> Server:
    """A server with one tool, `slow`, that reports 40 steps of progress 0.1 s apart."""
    server = Server("follow")

    @server.tool
    async def slow(ctx: ToolContext[Any], steps: int = 40) -> str:
        """Report progress every 0.1 s, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps)
            await asyncio.sleep(0.1)
        return "done"

    return server


def open_streaming_session(client: httpx.Client) -> dict[str, str]:
    """Open a handshake-era session; the headers its requests carry."""
    return {**open_session(client, ACCEPT), "mcp-protocol-version": "2025-11-25"}


def break_off(client: httpx.Client, headers: dict[str, str]) -> str:
    """Start a slow call, read its first progress, drop the connection: the last id read."""
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}},
    }
    last_id = None
    with client.stream("POST", "/mcp", json=call, headers=headers) as answer:
        assert answer.status_code == 200
        for line in answer.iter_lines():
            if line.startswith("id:"):
                last_id = line[3:].strip()
            if line.startswith("data:") and "progress" in line:
                break
    assert last_id is not None
    return last_id
