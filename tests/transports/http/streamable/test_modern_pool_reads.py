"""The session pool never hands out a session whose resource read or prompt still
runs: such a request counts as busy, so releasing its lease closes the session (which
cancels the read) instead of giving it to the next request."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
import pytest

from toolwire import Server
from toolwire.transports.http.streamable._hosting import SessionPool

pytestmark = pytest.mark.anyio

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server(started: asyncio.Event, cancelled: asyncio.Event) -> Server:
    server = Server("pool")

    async def hold() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    @server.resource("slow://held")
    async def held() -> str:
        await hold()
        return "never"

    @server.prompt
    async def slow() -> str:
        await hold()
        return "never"

    return server


@pytest.mark.parametrize(
    ("method", "params"),
    [("resources/read", {"uri": "slow://held"}), ("prompts/get", {"name": "slow"})],
)
async def test_a_lease_released_during_a_read_is_not_reused(
    method: str, params: dict[str, Any]
) -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()
    server = _server(started, cancelled)
    frames: list[bytes] = []

    async def collect(frame: bytes, request_id: Any) -> None:
        frames.append(frame)

    async with server.serving() as opener:
        pool = SessionPool(opener)
        lease = await pool.take(None, era="modern")
        lease.target = collect
        message = {"jsonrpc": "2.0", "id": 7, "method": method}
        message["params"] = {**params, "_meta": ENVELOPE}
        with anyio.fail_after(10):  # answered inline, the read would hold this for ever
            await lease.session.receive(json.dumps(message).encode())
            await started.wait()
        assert lease.session.busy
        lease.reusable = True  # as if its request had ended cleanly (a client that left)
        pool.give_back(lease)
        with anyio.fail_after(10):
            await cancelled.wait()
        again = await pool.take(None, era="modern")
        assert again is not lease  # a fresh session, not the one still reading
        again.reusable = True
        pool.give_back(again)
        assert pool.idle == 1  # that one, clean, is kept
        await pool.close()
    assert frames == []
