"""The official `mcp` client (ClientSession over streamable_http_client) against a toolwire
server under a real uvicorn: every mode of the handshake era."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.transports.http._http_harness import serving

from toolwire import Server, ToolContext

MODES = [
    pytest.param({}, id="sessions-sse"),
    pytest.param({"json_response": True}, id="sessions-json"),
    pytest.param({"stateless": True}, id="stateless-sse"),
    pytest.param({"stateless": True, "json_response": True}, id="stateless-json"),
]


def make_server() -> Server:
    server = Server("demo", version="1.0", instructions="Adds numbers.")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def slow(ctx: ToolContext[Any], n: int) -> str:
        """Count to n, reporting progress."""
        for i in range(n):
            await ctx.report_progress(i + 1, n)
            await asyncio.sleep(0.01)
        return f"done {n}"

    return server


async def exercise(url: str) -> dict[str, Any]:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        tools = await session.list_tools()
        added = await session.call_tool("add", {"a": 2, "b": 3})
        slow = await session.call_tool("slow", {"n": 3}, progress_callback=on_progress)
        return {
            "version": init.protocol_version,
            "instructions": init.instructions,
            "tools": [tool.name for tool in tools.tools],
            "add": [block.text for block in added.content],
            "slow": [block.text for block in slow.content],
            "progress": progress,
        }


@pytest.mark.parametrize("options", MODES)
def test_official_client_lists_and_calls(options: dict[str, Any]) -> None:
    with serving(make_server().http_app(**options)) as base:
        seen = asyncio.run(asyncio.wait_for(exercise(base + "/mcp"), 30))
    assert seen["version"] == "2025-11-25"
    assert seen["instructions"] == "Adds numbers."
    assert seen["tools"] == ["add", "slow"]
    assert seen["add"] == ["5"]
    assert seen["slow"] == ["done 3"]
    # Progress travels on the call's SSE stream; a JSON body has no room for it.
    expected = [] if options.get("json_response") else [1.0, 2.0, 3.0]
    assert seen["progress"] == expected
