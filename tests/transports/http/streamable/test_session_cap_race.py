"""The session cap holds exactly when hundreds of clients race for its last slots.

300 clients connect first, then all send at once over real sockets: an `initialize` each
(memory store, Redis store), a request each for a session another app made (rebuilt from its
Redis record), a legacy SSE stream each. With a cap of 50, exactly 50 are served and every
other one gets the documented refusal; the 50 sessions admitted all work afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests._jsonrpc import initialize_request, tool_call_request
from tests.redis._server import RedisServer
from tests.transports.http._http_harness import serving

from toolwire import Server
from toolwire.redis import RedisSessionStore

CLIENTS = 300
CAP = 50
FULL = f"Service Unavailable: the server holds its maximum of {CAP} sessions; retry later"

pytestmark = pytest.mark.timeout(120)


def _server() -> Server:
    server = Server("cap")

    @server.tool
    def ping() -> str:
        """Answer."""
        return "pong"

    return server


def _post(port: int, message: dict[str, Any], session: str | None = None) -> bytes:
    body = json.dumps(message).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    )
    if session is not None:
        head += f"Mcp-Session-Id: {session}\r\n"
    return head.encode() + b"\r\n" + body


class Answer:
    """One parsed HTTP response: its status, headers (lower-case names) and body."""

    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    def message(self) -> str:
        return str(json.loads(self.body)["error"]["message"])


async def _race(port: int, requests: list[bytes], *, head_only: bool = False) -> list[Answer]:
    """Connect every client first, then have them all send at once; their answers (read to
    the end of the connection, or with `head_only` to the end of the head)."""
    connections = [await asyncio.open_connection("127.0.0.1", port) for _ in requests]
    go = asyncio.Event()

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes) -> bytes:
        await go.wait()
        writer.write(data)
        await writer.drain()
        if head_only:
            raw = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in raw.split(b"\r\n", 1)[0]:
                raw += await reader.read()  # a refusal: its body, then the end
        else:
            raw = await reader.read()
        return raw

    tasks = [
        asyncio.create_task(one(reader, writer, data))
        for (reader, writer), data in zip(connections, requests, strict=True)
    ]
    await asyncio.sleep(0.1)  # every task waits at the gate
    go.set()
    try:
        raws = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    finally:
        for _, writer in connections:
            writer.close()
    return [Answer(raw) for raw in raws]


def _split(answers: list[Answer]) -> tuple[list[Answer], list[Answer]]:
    served = [answer for answer in answers if answer.status == 200]
    refused = [answer for answer in answers if answer.status != 200]
    return served, refused


def _assert_refused_as_documented(refused: list[Answer]) -> None:
    for answer in refused:
        assert answer.status == 503, (answer.status, answer.body)
        assert answer.message() == FULL
        assert answer.headers["retry-after"] == "5"


def _assert_sessions_work(port: int, sessions: list[str]) -> None:
    async def check() -> None:
        requests = [_post(port, tool_call_request("ping"), session) for session in sessions]
        for answer in await _race(port, requests):
            assert answer.status == 200, answer.body
            assert json.loads(answer.body)["result"]["content"][0]["text"] == "pong"

    asyncio.run(check())


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[RedisSessionStore | None]:
    if request.param == "memory":
        yield None
        return
    redis_server: RedisServer = request.getfixturevalue("redis_server")
    yield RedisSessionStore(redis_server.url, prefix="cap")


def test_racing_initializes_get_exactly_the_cap(store: RedisSessionStore | None) -> None:
    app = _server().http_app(max_sessions=CAP, session_store=store, resumable=False)
    with serving(app) as base:
        port = _port(base)
        requests = [_post(port, initialize_request(n)) for n in range(CLIENTS)]
        served, refused = _split(asyncio.run(_race(port, requests)))
        assert len(served) == CAP, f"{len(served)} sessions admitted under a cap of {CAP}"
        _assert_refused_as_documented(refused)
        sessions = {answer.headers["mcp-session-id"] for answer in served}
        assert len(sessions) == CAP
        _assert_sessions_work(port, sorted(sessions))
        (late,) = asyncio.run(_race(port, [_post(port, initialize_request())]))
        _assert_refused_as_documented([late])  # the admitted sessions still hold every slot


def test_racing_rebuilds_get_exactly_the_cap(redis_server: RedisServer) -> None:
    def app(cap: int) -> Any:
        # 300 lookups race for the store's 100 connections: on a loaded machine some wait past
        # the default 2 s, which is a 503 the cap has nothing to do with.
        store = RedisSessionStore(redis_server.url, prefix="rebuilt", timeout=30)
        return _server().http_app(max_sessions=cap, session_store=store, resumable=False)

    with serving(app(CLIENTS)) as roomy, serving(app(CAP)) as small:
        made = asyncio.run(
            _race(_port(roomy), [_post(_port(roomy), initialize_request())] * CLIENTS)
        )
        sessions = [answer.headers["mcp-session-id"] for answer in made]
        assert len(set(sessions)) == CLIENTS
        port = _port(small)
        requests = [_post(port, tool_call_request("ping"), session) for session in sessions]
        answers = asyncio.run(_race(port, requests))
        served, refused = _split(answers)
        assert len(served) == CAP, f"{len(served)} sessions rebuilt under a cap of {CAP}"
        _assert_refused_as_documented(refused)
        held = [s for s, answer in zip(sessions, answers, strict=True) if answer.status == 200]
        _assert_sessions_work(port, held)


def test_racing_legacy_sse_streams_get_exactly_the_cap() -> None:
    app = _server().sse_app(max_sessions=CAP)
    # No lifespan: the app starts serving on its first stream, which the racing ones wait for.
    with serving(app, lifespan="off") as base:
        port = _port(base)
        request = (
            f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
        )
        answers = asyncio.run(_race(port, [request] * CLIENTS, head_only=True))
        served, refused = _split(answers)
        assert len(served) == CAP, f"{len(served)} streams opened under a cap of {CAP}"
        for answer in refused:
            assert answer.status == 503, (answer.status, answer.body)
            assert f"Too many open sessions (max_sessions={CAP})" in answer.message()
