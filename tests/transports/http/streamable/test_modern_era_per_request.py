"""One endpoint, both eras, chosen per request: a handshake-era session and 2026-07-28
requests side by side on the same `Server.http_app()`, neither disturbing the other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from tests.transports.http._modern_support import (
    Served,
    body,
    build_server,
    enveloped,
    headers_for,
    sse_frames,
)

mcp = pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server, _ = build_server()
    with Served(server.http_app()) as running:
        yield running.url


def test_a_handshake_session_and_modern_clients_side_by_side(url: str) -> None:
    handshake_progress: list[float] = []
    modern_progress: list[float] = []

    async def on_handshake(done: float, total: float | None, message: str | None) -> None:
        handshake_progress.append(done)

    async def on_modern(done: float, total: float | None, message: str | None) -> None:
        modern_progress.append(done)

    async def scenario() -> dict[str, Any]:
        async with mcp.Client(url, mode="legacy") as handshake, mcp.Client(url) as modern:
            seen: dict[str, Any] = {
                "versions": (handshake.protocol_version, modern.protocol_version)
            }
            seen["sums"] = [
                (await handshake.call_tool("add", {"a": 1, "b": 2})).structured_content,
                (await modern.call_tool("add", {"a": 3, "b": 4})).structured_content,
                (await handshake.call_tool("add", {"a": 5, "b": 6})).structured_content,
            ]
            async with anyio.create_task_group() as group:
                group.start_soon(
                    lambda: handshake.call_tool(
                        "progress", {"steps": 2}, progress_callback=on_handshake
                    )
                )
                group.start_soon(
                    lambda: modern.call_tool("progress", {"steps": 3}, progress_callback=on_modern)
                )
            with anyio.fail_after(20):
                async with modern.listen(tools_list_changed=True) as subscription:
                    grown = await handshake.call_tool(
                        "grow", {}
                    )  # the change comes from the session
                    async for _event in subscription:
                        break
            seen["grown"] = grown.content[0].text
            seen["modern tools"] = [tool.name for tool in (await modern.list_tools()).tools]
            seen["handshake tools"] = [tool.name for tool in (await handshake.list_tools()).tools]
            return seen

    seen = anyio.run(scenario)
    assert seen["versions"] == ("2025-11-25", "2026-07-28")
    assert seen["sums"] == [{"result": 3}, {"result": 7}, {"result": 11}]
    assert handshake_progress == [1.0, 2.0]
    assert modern_progress == [1.0, 2.0, 3.0]
    assert seen["grown"] in seen["modern tools"]
    assert seen["grown"] in seen["handshake tools"]


def test_a_modern_request_ignores_a_session_id_and_leaves_the_session_alone(url: str) -> None:
    handshake = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    opened = httpx.post(url, headers=handshake, content=body("initialize", init), timeout=20)
    assert opened.status_code == 200
    session_id = opened.headers["mcp-session-id"]
    in_session = {**handshake, "Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"}
    done = httpx.post(
        url, headers=in_session, content=body("notifications/initialized", None, None), timeout=20
    )
    assert done.status_code == 202

    modern_headers = headers_for("tools/list", **{"Mcp-Session-Id": session_id})
    answer = httpx.post(
        url, headers=modern_headers, content=body("tools/list", enveloped(), 5), timeout=20
    )
    assert answer.status_code == 200
    assert "mcp-session-id" not in answer.headers
    assert answer.json()["result"]["cacheScope"] == "private"  # a 2026-07-28 result

    listed = httpx.post(url, headers=in_session, content=body("tools/list", None, 6), timeout=20)
    assert listed.status_code == 200
    frames = (
        sse_frames(listed.text)
        if listed.headers["content-type"] == "text/event-stream"
        else [listed.json()]
    )
    result = frames[-1]["result"]
    assert "cacheScope" not in result and "resultType" not in result  # a handshake-era result
    assert {tool["name"] for tool in result["tools"]} >= {"add", "where"}

    # A modern request naming a handshake-era version in its header belongs to that era.
    wrong_era = headers_for("tools/list", **{"MCP-Protocol-Version": "2025-11-25"})
    refused = httpx.post(
        url, headers=wrong_era, content=body("tools/list", enveloped(), 7), timeout=20
    )
    # Without a session id it is served on its own (as OpenAI's clients need), in the era
    # its header names, which refuses the envelope.
    frames = (
        sse_frames(refused.text)
        if refused.headers["content-type"] == "text/event-stream"
        else [refused.json()]
    )
    assert frames[-1]["id"] == 7
    assert frames[-1]["error"]["code"] == -32600
    assert "handshake protocol era" in frames[-1]["error"]["message"]
