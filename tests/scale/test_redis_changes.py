"""Tool-list changes cross processes on the Redis change bus: a tool added on one toolwire
process is announced to clients listening on another, on a handshake-era session's GET
stream and on a 2026-07-28 `subscriptions/listen` stream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from tests.scale._infra import Backend, backends_on_one_redis
from tests.scale._shared import TARGET, call, initialize, session_headers, sse_messages

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
CHANGED = "notifications/tools/list_changed"


@pytest.fixture
def two_backends() -> Iterator[tuple[Backend, Backend]]:
    with backends_on_one_redis(TARGET) as (_, first, second):
        yield first, second


def _grow_on(url: str, name: str) -> None:
    # A session of its own on the other process; the tool adds a tool there.
    session_id = initialize(url, client="grower")
    answer = call(url, session_id, "grow", {"name": name})
    assert answer.status_code == 200, answer.text


def test_a_change_on_one_process_reaches_a_get_stream_on_another(
    two_backends: tuple[Backend, Backend],
) -> None:
    first, second = two_backends
    listener = initialize(second.url, client="listener")
    heard: list[dict[str, Any]] = []

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with (
                httpx.AsyncClient(timeout=60) as client,
                client.stream("GET", second.url, headers=session_headers(listener)) as stream,
            ):
                assert stream.status_code == 200
                await anyio.sleep(0.3)  # the stream is attached on the second process
                await anyio.to_thread.run_sync(_grow_on, first.url, "grown_on_first")
                async for message in sse_messages(stream):
                    heard.append(message)
                    if message.get("method") == CHANGED:
                        return

    anyio.run(scenario)
    assert heard[-1] == {"jsonrpc": "2.0", "method": CHANGED, "params": {}}


def test_a_change_on_one_process_reaches_a_listen_stream_on_another(
    two_backends: tuple[Backend, Backend],
) -> None:
    first, second = two_backends
    heard: list[dict[str, Any]] = []
    listen = {
        "jsonrpc": "2.0",
        "id": 41,
        "method": "subscriptions/listen",
        "params": {"_meta": ENVELOPE, "notifications": {"toolsListChanged": True}},
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "subscriptions/listen",
    }

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with (
                httpx.AsyncClient(timeout=60) as client,
                client.stream(
                    "POST", second.url, headers=headers, content=json.dumps(listen)
                ) as stream,
            ):
                assert stream.status_code == 200
                async for message in sse_messages(stream):
                    heard.append(message)
                    if message.get("method") == "notifications/subscriptions/acknowledged":
                        await anyio.to_thread.run_sync(_grow_on, first.url, "grown_for_listen")
                    if message.get("method") == CHANGED:
                        return

    anyio.run(scenario)
    assert [m.get("method") for m in heard] == ["notifications/subscriptions/acknowledged", CHANGED]
    assert heard[-1]["params"] == {"_meta": {"io.modelcontextprotocol/subscriptionId": 41}}
