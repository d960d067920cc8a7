"""Two copies of one session on two apps sharing a session store: a subscription made through
one copy is not written away by the other copy's next change, even when that copy has not
heard of it; and a copy's reload that comes back late does not undo the copy's own change
made meanwhile."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx2 as httpx
from tests._jsonrpc import ACCEPT_HEADERS as ACCEPT
from tests._jsonrpc import initialize_request
from tests._local_bus import LocalChangeBus
from tests.redis._server import RedisServer
from tests.transports.http._http_harness import serving

from toolwire import Server
from toolwire.redis import RedisSessionStore
from toolwire.transports.http.streamable.records import MemorySessionStore, SessionRecord


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
    with serving(_app(redis_server.url)) as one, serving(_app(redis_server.url)) as two:
        made = httpx.post(f"{one}/mcp", json=initialize_request(), headers=ACCEPT, timeout=30)
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


class SlowReads:
    """One app's view of a store shared with another app: while `hold` is set, a read takes
    what the record holds at once but hands it over only when `release` is set (a late
    answer: the record has changed by then)."""

    def __init__(self, inner: MemorySessionStore) -> None:
        self.inner = inner
        self.hold = False
        self.held = threading.Event()
        self.release = threading.Event()
        self.handed = threading.Event()

    async def save(self, record: SessionRecord, ttl: float | None, *, create: bool) -> bool:
        return await self.inner.save(record, ttl, create=create)

    async def load(self, session_id: str) -> SessionRecord | None:
        record = await self.inner.load(session_id)
        snapshot = None if record is None else SessionRecord.from_json(record.to_json())
        if self.hold:
            self.held.set()
            for _ in range(1000):  # 10 s at most
                if self.release.is_set():
                    break
                await asyncio.sleep(0.01)
            self.handed.set()  # its reader runs on before this app's loop does anything else
        return snapshot

    async def touch(self, session_ids: list[str], ttl: float) -> list[str]:
        return await self.inner.touch(session_ids, ttl)

    async def end(self, session_id: str) -> None:
        await self.inner.end(session_id)


def test_a_late_reload_does_not_undo_a_copys_own_later_change() -> None:
    shared = MemorySessionStore()
    bus = LocalChangeBus()
    slow = SlowReads(shared)

    def make(store: Any) -> tuple[Server, Any]:
        server = Server("reloading")

        @server.resource("doc://{name}")
        def doc(name: str) -> str:
            """A document."""
            return name

        return server, server.http_app(session_store=store, change_bus=bus, resumable=False)

    _, first = make(SlowReads(shared))
    second_server, second = make(slow)
    heard: list[str] = []
    with serving(first) as one, serving(second) as two:
        made = httpx.post(f"{one}/mcp", json=initialize_request(), headers=ACCEPT, timeout=30)
        headers = {**ACCEPT, "mcp-session-id": made.headers["mcp-session-id"]}
        _post(two, headers, "ping", {}, 2)  # the second app holds a copy from now on
        slow.hold = True
        # The second app hears of this and reloads the record: its read is answered late.
        _post(one, headers, "resources/subscribe", {"uri": "doc://a"}, 3)
        assert slow.held.wait(10)
        slow.hold = False
        _post(two, headers, "resources/subscribe", {"uri": "doc://b"}, 4)
        slow.release.set()  # the late read (the record without doc://b) arrives now
        assert slow.handed.wait(10)
        with httpx.stream("GET", f"{two}/mcp", headers=headers, timeout=30) as stream:
            assert stream.status_code == 200
            second_server.notify_resource_updated("doc://b")
            second_server.notify_resource_updated("doc://a")  # followed either way: the end
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    heard.append(json.loads(line[5:])["params"]["uri"])
                    if heard[-1] == "doc://a":
                        break
    assert sorted(heard) == ["doc://a", "doc://b"]
