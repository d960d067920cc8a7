"""Rebuilding a session from a shared store: requests that wait for one rebuild are served even
when the request doing it is cancelled (an ASGI server cancels a request whose client left)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests._jsonrpc import initialize_request, tool_call_request

from toolwire import Server
from toolwire.transports.http.streamable.records import MemorySessionStore, SessionRecord


class GatedStore:
    """A shared store (a user's own `SessionStore`) whose loads wait at a gate while it is shut."""

    def __init__(self) -> None:
        self.records = MemorySessionStore()
        self.gate = asyncio.Event()
        self.gate.set()
        self.loads = 0

    async def save(self, record: SessionRecord, ttl: float | None, *, create: bool) -> bool:
        return await self.records.save(record, ttl, create=create)

    async def load(self, session_id: str) -> SessionRecord | None:
        self.loads += 1
        await self.gate.wait()
        return await self.records.load(session_id)

    async def touch(self, session_ids: list[str], ttl: float) -> list[str]:
        return await self.records.touch(session_ids, ttl)

    async def end(self, session_id: str) -> None:
        await self.records.end(session_id)


def _server() -> Server:
    server = Server("rebuilt")

    @server.tool
    def ping() -> str:
        """Answer."""
        return "pong"

    return server


async def _post(app: Any, message: dict[str, Any], session: str | None = None) -> Any:
    """One POST straight into the app: (status, headers, body)."""
    sent: list[dict[str, Any]] = []
    body = json.dumps(message).encode()
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client stays until the request is over
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-length", str(len(body)).encode()),
    ]
    if session is not None:
        headers += [(b"mcp-session-id", session.encode()), (b"mcp-protocol-version", b"2025-06-18")]
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    await app(scope, receive, send)
    head = dict(sent[0]["headers"])
    return sent[0]["status"], head, b"".join(m.get("body", b"") for m in sent[1:])


def _result(body: bytes) -> Any:
    text = body.decode()
    if text.startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


def test_waiters_take_over_a_rebuild_whose_request_was_cancelled() -> None:
    async def scenario() -> None:
        store = GatedStore()
        maker = _server().http_app(session_store=store, session_idle_timeout=60)
        rebuilder = _server().http_app(session_store=store, session_idle_timeout=60)
        async with maker.lifespan(), rebuilder.lifespan():
            status, head, _ = await _post(maker, initialize_request(version="2025-06-18"))
            assert status == 200
            session = head[b"mcp-session-id"].decode()
            store.gate.clear()
            first = asyncio.create_task(
                _post(rebuilder, tool_call_request("ping", None, 1), session)
            )
            while store.loads == 0:
                await asyncio.sleep(0)
            waiters = [
                asyncio.create_task(_post(rebuilder, tool_call_request("ping", None, n), session))
                for n in (2, 3)
            ]
            for _ in range(20):  # the waiters reach the rebuild in progress
                await asyncio.sleep(0)
            assert store.loads == 1
            first.cancel()
            await asyncio.gather(first, return_exceptions=True)
            store.gate.set()
            answers = await asyncio.wait_for(asyncio.gather(*waiters), 10)
            for number, (status, _, body) in zip((2, 3), answers, strict=True):
                assert status == 200, body
                reply = _result(body)
                assert reply["id"] == number
                assert reply["result"]["content"] == [{"type": "text", "text": "pong"}]
            assert store.loads == 2  # one waiter rebuilt it again, the other waited for that

    asyncio.run(scenario())
