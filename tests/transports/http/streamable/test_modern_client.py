"""The official `mcp` client (2.3, auto mode: it probes `server/discover` and speaks
2026-07-28) against a toolwire server over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from tests.transports.http._modern_support import Served, build_server

mcp = pytest.importorskip("mcp")


@pytest.fixture(scope="module", params=[False, True], ids=["sse", "json"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Served, bool]]:
    server, _ = build_server()
    with Served(server.http_app(json_response=request.param)) as running:
        yield running, request.param


def run(coroutine: Any) -> Any:
    return anyio.run(coroutine)


def test_auto_mode_speaks_2026_07_28_and_calls_tools(served: tuple[Served, bool]) -> None:
    running, json_response = served
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def scenario() -> dict[str, Any]:
        async with mcp.Client(running.url) as client:
            tools = await client.list_tools()
            added = await client.call_tool("add", {"a": 20, "b": 22})
            stepped = await client.call_tool(
                "progress", {"steps": 3}, progress_callback=on_progress
            )
            mirrored = await client.call_tool(
                "where", {"region": "Hello, 世界", "count": 7, "flag": True}
            )
            return {
                "version": client.protocol_version,
                "instructions": client.instructions,
                "tools": [tool.name for tool in tools.tools],
                "added": added.structured_content,
                "stepped": stepped.content[0].text,
                "mirrored": mirrored.content[0].text,
            }

    seen = run(scenario)
    assert seen["version"] == "2026-07-28"
    assert seen["instructions"] == "Use the tools."
    assert seen["tools"][:3] == ["add", "progress", "chatty"]
    assert seen["added"] == {"result": 42}
    assert seen["stepped"] == "done 3"
    # The client mirrors `region` (non-ASCII: base64 sentinel), `count` and `flag` into
    # Mcp-Param-* headers; the server checked them against the body and served the call.
    assert seen["mirrored"] == "Hello, 世界 7 True"
    if json_response:
        assert progress == []  # one JSON answer: no stream to carry them
    else:
        assert progress == [(1.0, 3.0, "step 1/3"), (2.0, 3.0, "step 2/3"), (3.0, 3.0, "step 3/3")]


def test_protocol_errors_reach_the_client_as_errors(served: tuple[Served, bool]) -> None:
    running, _ = served

    async def scenario() -> str:
        async with mcp.Client(running.url) as client:
            with pytest.raises(mcp.MCPError) as caught:
                await client.call_tool("nope", {})
            return str(caught.value)

    assert run(scenario) == "Unknown tool: nope"


def test_listen_hears_the_tool_list_change(served: tuple[Served, bool]) -> None:
    running, _ = served

    async def scenario() -> tuple[dict[str, Any], list[str]]:
        async with mcp.Client(running.url) as client:
            heard: list[str] = []
            with anyio.fail_after(20):
                async with client.listen(tools_list_changed=True) as subscription:
                    await client.call_tool("grow", {})
                    async for event in subscription:
                        heard.append(type(event).__name__)
                        break
            return {k: v for k, v in dict(subscription.honored).items() if v is not None}, heard

    honored, heard = run(scenario)
    assert honored == {"tools_list_changed": True}
    assert len(heard) == 1
