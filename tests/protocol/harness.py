"""Drive `ServerSession` directly: bytes in, frames out, no transport."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from toolwire.protocol.session.session import ServerSession
from toolwire.server import Server

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


class Peer:
    """The client end: collects every frame the session sends."""

    def __init__(self, session_factory: Any = None) -> None:
        self.raw: list[bytes] = []
        self.session: ServerSession | None = None

    async def send(self, frame: bytes) -> None:
        assert isinstance(frame, bytes)
        assert not frame.endswith(b"\n")
        frame.decode("utf-8")  # always valid UTF-8
        self.raw.append(frame)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(frame) for frame in self.raw]

    def take(self) -> list[dict[str, Any]]:
        """Every message so far, then forget them."""
        out = self.messages
        self.raw.clear()
        return out

    async def feed(self, message: dict[str, Any] | bytes) -> None:
        assert self.session is not None
        frame = message if isinstance(message, bytes) else json.dumps(message).encode()
        await self.session.receive(frame)

    async def wait_for(self, request_id: Any, timeout: float = 10) -> dict[str, Any]:
        """The reply to `request_id` (bounded in time)."""
        with anyio.fail_after(timeout):
            while True:
                for message in self.messages:
                    if message.get("id") == request_id and "method" not in message:
                        return message
                await anyio.sleep(0.002)

    async def request(
        self, request_id: Any, method: str, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.feed(message)
        return await self.wait_for(request_id)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.feed(message)

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m["params"] for m in self.messages if m.get("method") == method]


@asynccontextmanager
async def session_for(server: Server) -> AsyncIterator[Peer]:
    """A raw session: nothing sent yet (opened as a transport does, inside `serving()`)."""
    peer = Peer()
    async with server.serving() as open_session, open_session(peer.send) as session:
        peer.session = session
        yield peer
        session.close()


@asynccontextmanager
async def handshake(
    server: Server, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None
) -> AsyncIterator[Peer]:
    """A handshake-era session, initialized at `version` by a client offering `capabilities`
    (none); the `initialize` exchange is dropped."""
    async with session_for(server) as peer:
        reply = await peer.request(
            0,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        )
        assert reply["result"]["protocolVersion"] == version
        await peer.notify("notifications/initialized")
        peer.take()
        yield peer


@asynccontextmanager
async def modern(server: Server) -> AsyncIterator[Peer]:
    """A 2026-07-28 session (opened by its first enveloped request)."""
    async with session_for(server) as peer:
        yield peer


def meta(**extra: Any) -> dict[str, Any]:
    """A modern `_meta` envelope, plus extra keys."""
    return {**ENVELOPE, **extra}


def validate(method: str, version: str, result: dict[str, Any]) -> None:
    """`result` is valid for `version` and carries no field the version does not know."""
    from mcp_types import methods

    sieved = methods.serialize_server_result(method, version, result)
    assert sieved == result, (sieved, result)


def check_listen_frame(message: dict[str, Any], subscription_id: Any) -> None:
    """A server frame on a listen stream: valid at 2026-07-28 and stamped with its stream."""
    from mcp_types import _v2026_07_28 as wire
    from mcp_types import methods

    model: Any = {
        "notifications/subscriptions/acknowledged": wire.SubscriptionsAcknowledgedNotification,
        "notifications/tools/list_changed": wire.ToolListChangedNotification,
        "notifications/prompts/list_changed": wire.PromptListChangedNotification,
    }[message["method"]]
    parsed = model.model_validate(message, by_name=False)
    # nothing the version does not know, nothing lost
    assert parsed.model_dump(by_alias=True, mode="json", exclude_none=True) == message
    assert parsed.params.meta.io_modelcontextprotocol_subscription_id == subscription_id
    methods.parse_server_notification(message["method"], "2026-07-28", message["params"])
