"""FastMCP's own `Client` talking to a toolwire server over a stdio subprocess."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest
from tests.interop._support import (
    ADD_INPUT_SCHEMA,
    DEFAULT_FAILURE,
    KITCHEN_TOOLS,
    PIXEL_PNG,
    ROOT,
    command,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(launcher: str) -> Any:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    executable, args = command(launcher)
    transport = StdioTransport(command=executable, args=args, cwd=str(ROOT), keep_alive=False)
    return Client(transport, timeout=30)


@pytest.mark.parametrize("launcher", ["script", "cli"])
async def test_fastmcp_client_lists_and_calls(launcher: str) -> None:
    from fastmcp.exceptions import ToolError

    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    with anyio.fail_after(60):
        async with _client(launcher) as client:
            # (No ping: FastMCP's Client negotiates 2026-07-28, which has no `ping` method;
            # the official server answers it with -32601 too.)
            assert client.protocol_version == "2026-07-28"
            assert client.server_info.name == "kitchen"
            tools = {tool.name: tool for tool in await client.list_tools()}
            assert set(tools) == KITCHEN_TOOLS
            assert tools["add"].input_schema == ADD_INPUT_SCHEMA
            assert tools["wipe"].annotations.destructive_hint is True

            added = await client.call_tool("add", {"a": 5, "b": 6})
            assert added.is_error is False
            assert added.structured_content == {"result": 11}
            # FastMCP unwraps {"result": ...} only when the schema carries its own
            # "x-fastmcp-wrap-result" marker; toolwire's plain schema gives the object.
            assert added.data.result == 11
            assert added.content[0].text == "11"

            profile = await client.call_tool("profile", {"name": "Bo", "age": 2, "tags": ["t"]})
            assert profile.structured_content == {"name": "Bo", "age": 2, "tags": ["t"]}

            echoed = await client.call_tool("echo", {"text": "naïve"})
            assert echoed.content[0].text == "naïve"

            image = await client.call_tool("pixel", {})
            assert image.content[0].type == "image"
            assert base64.b64decode(image.content[0].data) == PIXEL_PNG

            done = await client.call_tool("progress", {"steps": 4}, progress_handler=on_progress)
            assert done.content[0].text == "done 4"
            assert progress == [1.0, 2.0, 3.0, 4.0]

            with pytest.raises(ToolError, match="An error occurred while running the tool"):
                await client.call_tool("boom", {"reason": "x"})
            failed = await client.call_tool("boom", {"reason": "x"}, raise_on_error=False)
            assert failed.is_error is True
            assert failed.content[0].text == DEFAULT_FAILURE
