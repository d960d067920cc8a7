"""With a shared session store, a request that changes a session's record (`logging/setLevel`)
is answered only once the record is written: a process killed just after telling the client
"done" must not lose the change.

The store here holds every update until the client has its reply, or for 2 s at most: if the
reply could go out first, the client gets it and the update is written after it (order
"replied", "saved"); when the reply waits for the write, the hold runs out first (order
"saved", "replied").
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx2 as httpx
from tests.transports.http._http_harness import serving

from toolwire import Server
from toolwire.transports.http.streamable.records import MemorySessionStore, SessionRecord

ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class HoldingStore:
    """A store other processes could share (not the memory store), holding back updates."""

    def __init__(self) -> None:
        self.inner = MemorySessionStore()
        self.replied = threading.Event()
        self.order: list[str] = []

    async def save(self, record: SessionRecord, ttl: float | None, *, create: bool) -> bool:
        if not create:
            deadline = time.monotonic() + 2.0
            while not self.replied.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            self.order.append(f"saved {record.log_level}")
        return await self.inner.save(record, ttl, create=create)

    async def load(self, session_id: str) -> SessionRecord | None:
        return await self.inner.load(session_id)

    async def touch(self, session_ids: list[str], ttl: float) -> list[str]:
        return await self.inner.touch(session_ids, ttl)

    async def end(self, session_id: str) -> None:
        await self.inner.end(session_id)


def _rpc(method: str, params: dict[str, object], rid: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


def test_a_changed_record_is_written_before_the_reply_that_acknowledges_it() -> None:
    store = HoldingStore()
    app = Server("levels").http_app(session_store=store, json_response=True)
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        init = client.post(
            "/mcp",
            headers=ACCEPT,
            content=_rpc(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
                1,
            ),
        )
        assert init.status_code == 200, init.text
        headers = {**ACCEPT, "Mcp-Session-Id": init.headers["mcp-session-id"]}
        headers["MCP-Protocol-Version"] = "2025-06-18"
        done = client.post(
            "/mcp",
            headers=headers,
            content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        assert done.status_code == 202, done.text
        answer = client.post(
            "/mcp", headers=headers, content=_rpc("logging/setLevel", {"level": "error"}, 2)
        )
        store.order.append("replied")
        store.replied.set()
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert store.order[:2] == ["saved error", "replied"], store.order
