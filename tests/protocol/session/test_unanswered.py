"""`ServerSession.requests.unanswered`: a transport is told of each request that ended without a
reply (cancelled by the client), once its task is over; answered requests are not reported."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio

from toolwire import Server
from toolwire.protocol.session.session import ServerSession

WAIT_SECONDS = 10.0


def _message(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


def _call(request_id: int, name: str) -> bytes:
    params = {"name": name, "arguments": {}}
    return _message({"id": request_id, "method": "tools/call", "params": params})


def test_a_cancelled_call_is_reported_after_its_task_ends() -> None:
    server = Server("unanswered")
    stopped: list[str] = []

    @server.tool
    async def slow() -> str:
        """Sleep long; note the cancellation."""
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.append("slow")
            raise
        return "late"

    @server.tool
    def quick() -> str:
        """Answer at once."""
        return "quick"

    frames: list[dict[str, Any]] = []
    reported: list[tuple[Any, list[str]]] = []

    async def send(frame: bytes) -> None:
        frames.append(json.loads(frame))

    async def body() -> None:
        async with ServerSession(server, send) as session:
            session.requests.unanswered = lambda request_id: reported.append(
                (request_id, [*stopped])
            )
            init = {"protocolVersion": "2025-11-25", "capabilities": {}}
            await session.receive(_message({"id": 1, "method": "initialize", "params": init}))
            await session.receive(_call(2, "quick"))
            await session.receive(_call(3, "slow"))
            await asyncio.sleep(0.05)  # the call is under way
            cancel = {"method": "notifications/cancelled", "params": {"requestId": 3}}
            await session.receive(_message(cancel))
            with anyio.fail_after(WAIT_SECONDS):
                while not reported:
                    await asyncio.sleep(0.01)
            session.close()

    anyio.run(body)
    # Reported once, after the tool had stopped; the answered call was not reported.
    assert reported == [(3, ["slow"])]
    assert [frame.get("id") for frame in frames] == [1, 2]
