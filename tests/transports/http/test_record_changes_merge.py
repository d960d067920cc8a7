"""Two copies of one session on two apps sharing a Redis session store: a subscription made
through one copy is not written away by the other copy's next change, even when that copy
has not heard of it (no change bus here, so it never does)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from _http_harness import serving
from tests.scale._redis import RedisServer, start_redis

from toolwire import Server
from toolwire.transports.http.redis_sessions import RedisSessionStore

ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = start_redis()
    yield server
    server.stop()


def _app(url: str) -> Any:
    server = Server("merging")

    @server.resource("doc://{name}")
    def doc(name: str) -> str:
        """A document."""
        return name

    return server.http_app(session_store=RedisSessionStore(url, prefix="merge"), resumable=False)


def _post(base: str, headers: dict[str, str], method: str, params: Any, rid: int) -> None:
    message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    answer = httpx.post(f"{base}/mcp", json=message, headers=headers, timeout=30)
    assert answer.status_code == 200 and '"error"' not in answer.text, answer.text


def test_a_copy_that_missed_a_subscription_made_elsewhere_keeps_it_in_the_record(
    redis_server: RedisServer,
) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
    }
    with serving(_app(redis_server.url)) as one, serving(_app(redis_server.url)) as two:
        made = httpx.post(f"{one}/mcp", json=init, headers=ACCEPT, timeout=30)
        session_id = made.headers["mcp-session-id"]
        headers = {**ACCEPT, "mcp-session-id": session_id}
        _post(two, headers, "ping", {}, 2)  # the second app holds a copy from now on
        _post(one, headers, "resources/subscribe", {"uri": "doc://a"}, 3)
        _post(two, headers, "resources/subscribe", {"uri": "doc://b"}, 4)
        _post(one, headers, "logging/setLevel", {"level": "error"}, 5)
        _post(two, headers, "resources/unsubscribe", {"uri": "doc://a"}, 6)

    async def read() -> Any:
        store = RedisSessionStore(redis_server.url, prefix="merge")
        try:
            return await store.load(session_id)
        finally:
            await store.close()

    record = asyncio.run(read())
    assert record.resource_subscriptions == ["doc://b"]
    assert record.log_level == "error"
