"""Many clients resuming one stream at once: exactly one carries it, the others get 409.

A call ends its SSE response early (`ctx.close_sse_stream()`) and goes on; 20 GETs then
resume its stream with the same `Last-Event-ID`, all at once, over real sockets. Whatever
the event store (memory, Redis, or one of the user's that takes its time to read, so that
every resumption waits on it between its check and its taking the stream), one response
carries the rest of the stream to the call's reply, and every other one is refused with 409,
never left open with nothing coming.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from tests._jsonrpc import ACCEPT_HEADERS, tool_call_request
from tests.redis._server import RedisServer
from tests.transports.http._http_harness import serving
from tests.transports.http._sessions import open_session

from toolwire import Server, ToolContext
from toolwire.redis import RedisBackplane
from toolwire.transports.http.streamable.events import MemoryEventStore, ReplaySink

pytestmark = pytest.mark.timeout(120)

RESUMERS = 20


class SlowStore(MemoryEventStore):
    """The memory store, read as slowly as a remote one might be."""

    async def replay_after(self, last_event_id: str, sink: ReplaySink) -> str | None:
        await asyncio.sleep(0.05)
        return await super().replay_after(last_event_id, sink)


def _app(store: str, redis_url: str | None) -> Any:
    server = Server("resume-race")

    @server.tool
    async def held(ctx: ToolContext[Any]) -> str:
        """End the response early, then answer a while later."""
        await ctx.close_sse_stream()
        await asyncio.sleep(2.0)
        return "answered on the resumed stream"

    if store == "slow":
        return server.http_app(event_store=SlowStore())
    if redis_url is None:
        return server.http_app()
    return server.http_app(backplane=RedisBackplane(redis_url, prefix="race"))


@pytest.fixture(params=["memory", "slow", "redis"])
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    url = None
    if request.param == "redis":
        redis_server: RedisServer = request.getfixturevalue("redis_server")
        url = redis_server.url
    with serving(_app(request.param, url)) as served:
        yield served


async def _resume(port: int, session: str, last: str, go: asyncio.Event) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        await go.wait()  # every client connected: they all send at once
        writer.write(
            (
                "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                f"Mcp-Session-Id: {session}\r\nLast-Event-ID: {last}\r\n"
                "Connection: close\r\n\r\n"
            ).encode()
        )
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 15)  # to the end of the response
    finally:
        writer.close()
    return int(raw.split(b" ", 2)[1]), raw.partition(b"\r\n\r\n")[2]


def test_one_resumption_carries_the_stream_the_others_get_409(base: str) -> None:
    with httpx2.Client(base_url=base, timeout=30) as client:
        session = open_session(client, ACCEPT_HEADERS)
        first = client.post("/mcp", json=tool_call_request("held"), headers=session)
    assert first.status_code == 200
    ids = [line[4:] for line in first.text.splitlines() if line.startswith("id: ")]
    assert ids and '"result"' not in first.text  # ended early, the reply still to come
    port = int(base.rsplit(":", 1)[1])

    async def race() -> list[tuple[int, bytes]]:
        go = asyncio.Event()
        resumers = [
            asyncio.create_task(_resume(port, session["mcp-session-id"], ids[-1], go))
            for _ in range(RESUMERS)
        ]
        await asyncio.sleep(0.2)
        go.set()
        return await asyncio.gather(*resumers)

    answers = asyncio.run(race())
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [409] * (RESUMERS - 1), statuses
    (carried,) = [body for status, body in answers if status == 200]
    assert b"answered on the resumed stream" in carried
    for status, body in answers:
        if status == 409:
            assert "already being received" in json.loads(body)["error"]["message"]
