"""Outgoing messages carry the request they belong to, for transports that route them."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from toolwire import ToolContext
from toolwire.protocol.wire.jsonrpc import FrameKind
from toolwire.server import Server

from ..harness import meta

pytestmark = pytest.mark.anyio


async def test_replies_and_a_calls_notifications_carry_their_request_id() -> None:
    server = Server("routes")

    @server.tool
    async def work(ctx: ToolContext[Any], n: int) -> int:
        """Report progress and log, then answer."""
        await ctx.report_progress(1, 2)
        await ctx.log("info", "halfway")
        return n

    sent: list[tuple[Any, dict[str, Any]]] = []
    kinds: list[FrameKind] = []

    async def send(frame: bytes, kind: FrameKind, request_id: Any) -> None:
        sent.append((request_id, json.loads(frame)))
        kinds.append(kind)

    async with server.serving() as open_session, open_session(send, routed=True) as session:
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}}
        for message in (
            {"jsonrpc": "2.0", "id": "a", "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "b", "method": "ping"},
            {"jsonrpc": "2.0", "id": 7, "method": "nope"},
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {"name": "work", "arguments": {"n": 3}, "_meta": {"progressToken": "t"}},
            },
        ):
            await session.receive(json.dumps(message).encode())
        with anyio.fail_after(10):
            while not any(m.get("id") == 9 for _, m in sent):
                await anyio.sleep(0.002)
        session.close()
        await session.receive(b"{not json")  # no request to belong to
    routes = [(rid, m.get("method") or ("error" if "error" in m else "result")) for rid, m in sent]
    assert routes == [
        ("a", "result"),
        ("b", "result"),
        (7, "error"),
        (9, "notifications/progress"),
        (9, "notifications/message"),
        (9, "result"),
        (None, "error"),
    ]
    reply, notice = FrameKind.REPLY, FrameKind.NOTICE
    assert kinds == [reply, reply, reply, notice, notice, reply, reply]


async def test_a_listen_streams_frames_carry_the_listen_request() -> None:
    server = Server("streams")
    sent: list[tuple[Any, dict[str, Any]]] = []
    kinds: list[FrameKind] = []

    async def send(frame: bytes, kind: FrameKind, request_id: Any) -> None:
        sent.append((request_id, json.loads(frame)))
        kinds.append(kind)

    async with server.serving() as open_session, open_session(send, routed=True) as session:
        listen = {
            "jsonrpc": "2.0",
            "id": "L",
            "method": "subscriptions/listen",
            "params": {"notifications": {"toolsListChanged": True}, "_meta": meta()},
        }
        await session.receive(json.dumps(listen).encode())
        server.add_tool(lambda: 1, name="one")
        with anyio.fail_after(10):
            while len(sent) < 2:
                await anyio.sleep(0.002)
        await session.end_streams()
    assert [(rid, m.get("method", "result")) for rid, m in sent] == [
        ("L", "notifications/subscriptions/acknowledged"),
        ("L", "notifications/tools/list_changed"),
        ("L", "result"),
    ]
    assert kinds == [FrameKind.NOTICE, FrameKind.NOTICE, FrameKind.REPLY]


async def test_a_list_change_is_a_broadcast_for_no_request() -> None:
    server = Server("broadcasts")
    sent: list[tuple[FrameKind, Any, dict[str, Any]]] = []

    async def send(frame: bytes, kind: FrameKind, request_id: Any) -> None:
        sent.append((kind, request_id, json.loads(frame)))

    async with server.serving() as open_session, open_session(send, routed=True) as session:
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}}
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ):
            await session.receive(json.dumps(message).encode())
        server.add_tool(lambda: 1, name="one")
        with anyio.fail_after(10):
            while len(sent) < 2:
                await anyio.sleep(0.002)
    assert [(kind, rid, m.get("method", "result")) for kind, rid, m in sent] == [
        (FrameKind.REPLY, 1, "result"),
        (FrameKind.BROADCAST, None, "notifications/tools/list_changed"),
    ]
