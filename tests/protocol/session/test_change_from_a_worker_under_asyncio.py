"""A tool-list change made in a worker thread reaches clients under a plain asyncio loop.

uvicorn runs the application with `asyncio.run`, not `anyio.run`: nothing marks the loop as
anyio's, so anyio can only tell which library runs it from the current task. The change is
handed to the loop's thread from the worker; it must be told from inside a task there (a bare
loop callback made anyio raise, and the notice was dropped as if the session were closing).
"""

from __future__ import annotations

import asyncio
from typing import Any

from toolwire.server import Server

from ..harness import handshake


def test_a_sync_tool_changing_the_tools_notifies_under_asyncio_run() -> None:
    server = Server("grower")

    @server.tool
    def grow() -> str:
        """Publish another tool, then take it back."""
        server.add_tool(lambda: "x", name="extra")
        server.remove_tool("extra")
        return "grown"

    async def main() -> list[dict[str, Any]]:
        async with handshake(server) as peer:
            reply = await peer.request(1, "tools/call", {"name": "grow", "arguments": {}})
            assert reply["result"]["content"] == [{"type": "text", "text": "grown"}]
            for _ in range(500):
                if len(peer.notifications("notifications/tools/list_changed")) == 2:
                    break
                await asyncio.sleep(0.01)
            return peer.notifications("notifications/tools/list_changed")

    assert asyncio.run(main()) == [{}, {}]
