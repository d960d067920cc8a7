"""The caller's identity inside a session: `CallInfo.identity`, per-tool scopes enforced."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from tests.protocol.harness import Peer, meta

from toolwire import CallInfo, Identity, Server, ToolContext

pytestmark = pytest.mark.anyio

INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"},
}


def make_server() -> Server:
    seen: list[CallInfo] = []

    def factory(info: CallInfo) -> dict[str, Any]:
        seen.append(info)
        who = info.identity
        return {"who": None if who is None else who.subject}

    server = Server("s", context_factory=factory)

    @server.tool
    def whoami(ctx: ToolContext[dict[str, Any]]) -> str:
        return str(ctx.context["who"])

    @server.tool(scopes=["files:write"])
    def write(ctx: ToolContext[dict[str, Any]], text: str) -> str:
        return f"{ctx.context['who']} wrote {text}"

    server.seen = seen  # type: ignore[attr-defined]
    return server


@asynccontextmanager
async def session(server: Server, identity: Identity | None) -> AsyncIterator[Peer]:
    peer = Peer()
    async with server.serving() as open_session:
        async with open_session(peer.send, identity=identity) as opened:
            peer.session = opened
            yield peer
            opened.close()


async def handshake(peer: Peer) -> None:
    await peer.request(0, "initialize", INIT)
    await peer.notify("notifications/initialized")
    peer.take()


async def test_the_identity_reaches_the_context_factory() -> None:
    server = make_server()
    alice = Identity("alice", client_id="cli", scopes=["files:write"])
    async with session(server, alice) as peer:
        await handshake(peer)
        reply = await peer.request(1, "tools/call", {"name": "whoami", "arguments": {}})
        assert reply["result"]["content"][0]["text"] == "alice"
        reply = await peer.request(2, "tools/call", {"name": "write", "arguments": {"text": "x"}})
        assert reply["result"]["content"][0]["text"] == "alice wrote x"
    assert [info.identity for info in server.seen] == [alice, alice]  # type: ignore[attr-defined]


@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_a_call_lacking_a_tool_scope_is_refused_naming_it(era: str) -> None:
    server = make_server()
    bob = Identity("bob", scopes=["files:read"])
    async with session(server, bob) as peer:
        params: dict[str, Any] = {"name": "write", "arguments": {"text": "x"}}
        if era == "handshake":
            await handshake(peer)
        else:
            params["_meta"] = meta()
        reply = await peer.request(7, "tools/call", params)
    assert reply["error"] == {
        "code": -32003,
        "message": "Tool 'write' requires scope files:write; the access token does not grant it",
        "data": {"requiredScopes": ["files:write"], "missingScopes": ["files:write"]},
    }
    assert server.seen == []  # type: ignore[attr-defined]  # the tool never ran


async def test_a_stepped_up_identity_replacing_the_sessions_is_honoured() -> None:
    server = make_server()
    async with session(server, Identity("bob", client_id="c")) as peer:
        await handshake(peer)
        refused = await peer.request(1, "tools/call", {"name": "write", "arguments": {"text": "x"}})
        assert refused["error"]["code"] == -32003
        assert peer.session is not None
        peer.session.identity = Identity("bob", client_id="c", scopes="files:write")
        reply = await peer.request(2, "tools/call", {"name": "write", "arguments": {"text": "y"}})
        assert reply["result"]["content"][0]["text"] == "bob wrote y"


async def test_without_an_identity_scopes_are_not_enforced() -> None:
    # stdio (and HTTP without auth): nobody to check, so the tool runs.
    server = make_server()
    async with session(server, None) as peer:
        await handshake(peer)
        reply = await peer.request(1, "tools/call", {"name": "write", "arguments": {"text": "x"}})
    assert reply["result"]["content"][0]["text"] == "None wrote x"
    assert server.seen[0].identity is None  # type: ignore[attr-defined]


async def test_scoped_tools_are_listed_to_every_caller() -> None:
    server = make_server()
    async with session(server, Identity("bob")) as peer:
        await handshake(peer)
        reply = await peer.request(1, "tools/list")
    assert [tool["name"] for tool in reply["result"]["tools"]] == ["whoami", "write"]
