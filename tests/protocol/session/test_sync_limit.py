"""The sync-worker limit binds every request of a session, whichever task it arrives from.

An HTTP server (uvicorn) starts each request in a task with a fresh `contextvars.Context`:
nothing the session set in its own context is visible there. The limit must reach the call
through the session itself.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
import time
from typing import Any

import anyio
import pytest

from toolwire.server import Server

from ..harness import handshake

pytestmark = pytest.mark.anyio


class Overlap:
    """Counts the bodies running at once, from the worker threads themselves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.running = 0
        self.most = 0

    def enter(self) -> None:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)

    def leave(self) -> None:
        with self._lock:
            self.running -= 1


def _server(overlap: Overlap, workers: int) -> Server:
    server = Server("limits", max_sync_workers=workers)

    @server.tool
    def hold(n: int) -> int:
        """Occupy a worker thread for a moment."""
        overlap.enter()
        try:
            time.sleep(0.05)  # long enough for the other calls to be started meanwhile
        finally:
            overlap.leave()
        return n

    return server


def _call(request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "hold", "arguments": {"n": request_id}},
    }


async def _calls_from_fresh_contexts(workers: int, count: int) -> tuple[Overlap, list[Any]]:
    overlap = Overlap()
    async with handshake(_server(overlap, workers)) as peer:
        loop = asyncio.get_running_loop()
        session = peer.session
        assert session is not None
        frames = [json.dumps(_call(request_id)).encode() for request_id in range(1, count + 1)]
        arrivals = [
            loop.create_task(session.receive(frame), context=contextvars.Context())
            for frame in frames
        ]
        await asyncio.gather(*arrivals)
        replies = [await peer.wait_for(request_id) for request_id in range(1, count + 1)]
    return overlap, replies


async def test_one_worker_runs_one_body_at_a_time_for_requests_from_fresh_contexts() -> None:
    overlap, replies = await _calls_from_fresh_contexts(workers=1, count=3)
    assert [reply["result"]["structuredContent"] for reply in replies] == [
        {"result": 1},
        {"result": 2},
        {"result": 3},
    ]
    assert all(not reply["result"]["isError"] for reply in replies)
    assert overlap.most == 1


async def test_two_workers_never_run_three_bodies() -> None:
    overlap, replies = await _calls_from_fresh_contexts(workers=2, count=4)
    assert [reply["result"]["structuredContent"]["result"] for reply in replies] == [1, 2, 3, 4]
    assert overlap.most <= 2


async def test_outside_a_server_run_sync_uses_the_free_pool() -> None:
    from toolwire.tools.threads import run_sync

    overlap = Overlap()

    def body() -> None:
        overlap.enter()
        try:
            time.sleep(0.05)
        finally:
            overlap.leave()

    with anyio.fail_after(10):
        await asyncio.gather(*(run_sync(body) for _ in range(3)))
    assert overlap.most >= 2  # no budget: nothing holds a body back
