"""Sync tool calls through a session: many at once, each answered with its own result, while a
slow sync call runs beside them."""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from typing import Any

import pytest

from toolwire.server import Server

from ..harness import handshake

pytestmark = pytest.mark.anyio

BOUND = 30.0


def _call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return json.dumps(message).encode()


async def test_quick_calls_are_answered_each_with_its_own_result_while_a_slow_one_runs() -> None:
    gate = threading.Event()
    threads: set[str] = set()
    server = Server("sync-calls", max_sync_workers=4)

    @server.tool
    def same(n: int) -> int:
        """Answer n."""
        threads.add(threading.current_thread().name)
        return n

    @server.tool
    def slow() -> str:
        """Wait for the test."""
        gate.wait(BOUND)
        return "slow"

    async with handshake(server) as peer:
        session = peer.session
        assert session is not None
        loop = asyncio.get_running_loop()
        await peer.feed(_call(1, "same", {"n": 1}))
        await peer.wait_for(1)
        await peer.feed(_call(2, "slow", {}))
        numbers = range(100, 400)
        arrivals = [
            loop.create_task(session.receive(_call(n, "same", {"n": n})), context=fresh)
            for n in numbers
            for fresh in [contextvars.Context()]
        ]
        await asyncio.gather(*arrivals)
        replies = [await peer.wait_for(n, timeout=BOUND) for n in numbers]
        slow_answered_early = any(m.get("id") == 2 for m in peer.messages)
        gate.set()
        slow_reply = await peer.wait_for(2, timeout=BOUND)
    assert [r["result"]["structuredContent"]["result"] for r in replies] == list(numbers)
    assert not slow_answered_early
    assert slow_reply["result"]["content"][0]["text"] == "slow"
    assert threading.main_thread().name not in threads
