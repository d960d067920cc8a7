"""The demo server driven by the official `mcp` client over a real stdio subprocess."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params() -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "servers.demo"], cwd=str(ROOT))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_list_and_call_every_kind_of_result(mode: str) -> None:
    from mcp import Client

    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    with anyio.fail_after(60):
        async with Client(_params(), mode=mode) as client:
            expected_version = "2026-07-28" if mode == "auto" else "2025-11-25"
            assert client.protocol_version == expected_version
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {
                "shout",
                "word_stats",
                "swatch",
                "countdown",
                "list_notes",
                "delete_note",
            }
            assert tools["delete_note"].annotations.destructive_hint is True
            assert tools["word_stats"].output_schema["properties"]["words"] == {
                "title": "Words",
                "type": "integer",
            }
            assert tools["shout"].input_schema["additionalProperties"] is False

            shout = await client.call_tool("shout", {"text": "héllo"})
            assert shout.is_error is False
            assert shout.content[0].text == "HÉLLO"

            stats = await client.call_tool("word_stats", {"text": "a b\nc"})
            assert stats.structured_content == {"characters": 5, "words": 3, "lines": 2}

            image = await client.call_tool("swatch", {"red": 1, "green": 2, "blue": 3})
            assert image.content[0].type == "image"
            assert image.content[0].mime_type == "image/png"

            countdown = await client.call_tool(
                "countdown", {"steps": 3}, progress_callback=on_progress
            )
            assert countdown.content[0].text == "lift-off after 3 steps"
            assert [p[0] for p in progress] == [1, 2, 3]

            bad = await client.call_tool("shout", {"text": 5})
            assert bad.is_error is True
            assert bad.content[0].text == (
                "An error occurred while running the tool. Please try again."
            )


async def test_unknown_tool_is_a_protocol_error() -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    with anyio.fail_after(60):
        async with Client(_params(), mode="legacy") as client:
            with pytest.raises(MCPError, match="Unknown tool: nope"):
                await client.call_tool("nope", {})


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
async def test_every_handshake_version_validates_against_mcp_types(version: str) -> None:
    """Raw JSON-RPC per version; every result must validate against the official models."""
    import json

    from mcp_types import CallToolResult, InitializeResult, ListToolsResult

    proc = await anyio.open_process([sys.executable, "-m", "servers.demo"], cwd=str(ROOT))
    async with proc:
        assert proc.stdin is not None and proc.stdout is not None
        buffered = b""

        async def ask(message: dict[str, Any]) -> dict[str, Any]:
            nonlocal buffered
            await proc.stdin.send(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            while b"\n" not in buffered:
                buffered += await proc.stdout.receive()  # type: ignore[union-attr]
            line, buffered = buffered.split(b"\n", 1)
            return dict(json.loads(line))

        with anyio.fail_after(30):
            init = await ask(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": version,
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                }
            )
            assert init["result"]["protocolVersion"] == version
            InitializeResult.model_validate(init["result"])
            await proc.stdin.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            listed = await ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            ListToolsResult.model_validate(listed["result"])
            has_output_schema = any("outputSchema" in t for t in listed["result"]["tools"])
            assert has_output_schema == (version >= "2025-06-18")
            has_annotations = any("annotations" in t for t in listed["result"]["tools"])
            assert has_annotations == (version >= "2025-03-26")
            called = await ask(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "word_stats", "arguments": {"text": "x y"}},
                }
            )
            CallToolResult.model_validate(called["result"])
            assert ("structuredContent" in called["result"]) == (version >= "2025-06-18")
        await proc.stdin.aclose()  # type: ignore[union-attr]
        with anyio.fail_after(10):
            assert await proc.wait() == 0
