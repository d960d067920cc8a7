"""An `Mcp-Session-Id` that no process could have issued is a 404 without a look in the store.

With a Redis session store, such ids (too long, not hex, non-ASCII, control characters) cost
Redis no command, and while Redis is down they are still a plain 404: the value is not
echoed in a 503 naming the store, nor written to the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from typing import Any

import pytest
from tests._jsonrpc import tool_call_request
from tests.redis._server import RedisServer
from tests.transports.http._http_harness import serving

from toolwire import Server
from toolwire.redis import RedisSessionStore

pytestmark = pytest.mark.timeout(120)

FORGED = [
    b"a" * 10_000,
    b"F" * 32,  # upper-case hex: never issued
    b"0123456789abcdef0123456789abcdeg",
    b"route.with.dots.0123456789abcdef0123456789abcdef",
    b"\xff\xfe" + b"0" * 30,
    b"0" * 32 + b"\x1b[2J",
    b"../../etc/passwd",
]
WELL_FORMED_UNKNOWN = [b"0" * 32, b"web-1." + b"ab" * 16]


def _app(url: str) -> Any:
    server = Server("ids")

    @server.tool
    def ping() -> str:
        """Answer."""
        return "pong"

    store = RedisSessionStore(url, prefix="ids")
    return server.http_app(session_store=store, resumable=False)


def _post(base: str, session: bytes) -> tuple[int, bytes]:
    port = int(base.rsplit(":", 1)[1])
    body = json.dumps(tool_call_request("ping")).encode()
    head = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json\r\nMcp-Session-Id: " + session + b"\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    )
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(head + body)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    return int(raw.split(b" ", 2)[1]), raw.partition(b"\r\n\r\n")[2]


def _unparsed(status: int, body: bytes) -> bool:
    """Refused by uvicorn's parser before the app saw it (httptools refuses a control byte in a
    header value; h11 passes it on)."""
    return status == 400 and body == b"Invalid HTTP request received."


def _gets(url: str) -> int:
    async def read() -> int:
        from redis.asyncio import Redis

        client = Redis.from_url(url)
        try:
            stats = await client.info("commandstats")
        finally:
            await client.aclose()
        return int(stats.get("cmdstat_get", {}).get("calls", 0))

    return asyncio.run(read())


def test_forged_ids_cost_redis_nothing(redis_server: RedisServer) -> None:
    with serving(_app(redis_server.url)) as base:
        before = _gets(redis_server.url)
        for forged in FORGED:
            status, body = _post(base, forged)
            if not _unparsed(status, body):
                assert status == 404, (forged[:40], body)
                assert b"Session not found or expired" in body
        assert _gets(redis_server.url) == before
        for unknown in WELL_FORMED_UNKNOWN:  # these are looked up, as they must be
            assert _post(base, unknown)[0] == 404
        assert _gets(redis_server.url) == before + len(WELL_FORMED_UNKNOWN)


def test_forged_ids_stay_404_and_unlogged_while_redis_is_down(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    with serving(_app(redis_server.url)) as base, caplog.at_level(logging.DEBUG, "toolwire"):
        redis_server.kill()
        status, body = _post(base, WELL_FORMED_UNKNOWN[0])
        assert status == 503, body  # the store is down: an id it could hold cannot be judged
        for forged in FORGED:
            status, body = _post(base, forged)
            assert status == 404 or _unparsed(status, body), (forged[:40], body)
            assert forged not in body
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for forged in FORGED:
        assert forged.decode("latin-1") not in logged
