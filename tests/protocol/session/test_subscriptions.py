"""`subscriptions/listen` (2026-07-28): raw frames in, exact frames out, every shape checked
against the official `mcp_types` models of that version."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from toolwire.protocol.session import subscriptions
from toolwire.protocol.session.session import ServerSession
from toolwire.server import Server

from ..harness import Peer, check_listen_frame, handshake, meta, modern, session_for, validate

pytestmark = pytest.mark.anyio
V = "2026-07-28"
SUB = "io.modelcontextprotocol/subscriptionId"
TOOLS = {"toolsListChanged": True}
PROMPTS = {"promptsListChanged": True}


def _server() -> Server:
    server = Server("subs", version="2.0.0")

    @server.tool
    def first(n: int) -> int:
        """One."""
        return n

    return server


def _listen(request_id: Any, notifications: Any = None, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"_meta": meta(), **extra}
    if notifications is not None:
        params["notifications"] = notifications
    return {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": params}


def _ack_bytes(request_id: Any, honored: dict[str, Any]) -> bytes:
    return (
        b'{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":'
        b'{"notifications":'
        + json.dumps(honored, separators=(",", ":")).encode()
        + b',"_meta":{"io.modelcontextprotocol/subscriptionId":'
        + json.dumps(request_id).encode()
        + b"}}}"
    )


def _changed_bytes(request_id: Any) -> bytes:
    return (
        b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":'
        b'{"_meta":{"io.modelcontextprotocol/subscriptionId":'
        + json.dumps(request_id).encode()
        + b"}}}"
    )


def _check_request(message: dict[str, Any]) -> None:
    """The request a test sends is itself a valid 2026-07-28 listen request."""
    from mcp_types import _v2026_07_28 as wire
    from mcp_types import methods

    methods.validate_client_request(message["method"], V, message["params"])
    wire.SubscriptionsListenRequest.model_validate(message, by_name=False)


async def _open(peer: Peer, request_id: Any, notifications: Any = TOOLS) -> None:
    message = _listen(request_id, notifications)
    _check_request(message)
    await peer.feed(message)


async def _frames(peer: Peer, count: int, timeout: float = 5) -> list[bytes]:
    """Wait (bounded) until `count` frames arrived; take them."""
    with anyio.fail_after(timeout):
        while len(peer.raw) < count:
            await anyio.sleep(0.002)
    await anyio.sleep(0.02)  # and nothing more comes
    frames = list(peer.raw)
    peer.raw.clear()
    return frames


async def test_listen_acknowledges_then_streams_tool_changes() -> None:
    server = _server()
    async with modern(server) as peer:
        await _open(peer, 7)
        # the acknowledgement is sent before receive() returns; no response: the stream is open
        assert peer.raw == [_ack_bytes(7, TOOLS)]
        check_listen_frame(peer.take()[0], 7)
        assert peer.session is not None and peer.session.era == "modern"

        @server.tool
        def second() -> str:
            """Two."""
            return "2"

        assert await _frames(peer, 1) == [_changed_bytes(7)]
        server.remove_tool("first")
        frames = await _frames(peer, 1)
        assert frames == [_changed_bytes(7)]
        check_listen_frame(json.loads(frames[0]), 7)
        listed = await peer.request(8, "tools/list", {"_meta": meta()})
        assert [tool["name"] for tool in listed["result"]["tools"]] == ["second"]


async def test_discover_advertises_list_changed_as_the_sdk_does_when_listen_is_served() -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(1, "server/discover", {"_meta": meta()})
        capabilities = reply["result"]["capabilities"]
        assert capabilities["tools"] == capabilities["prompts"] == {"listChanged": True}
        assert capabilities["resources"] == {"listChanged": True, "subscribe": True}
        validate("server/discover", V, reply["result"])


@pytest.mark.parametrize(
    ("requested", "honored"),
    [
        ({"toolsListChanged": True}, TOOLS),
        ({"toolsListChanged": True, "promptsListChanged": True}, {**TOOLS, **PROMPTS}),
        ({"toolsListChanged": False}, {}),
        ({"toolsListChanged": None}, {}),
        ({}, {}),
        (
            {
                "promptsListChanged": True,
                "resourcesListChanged": True,
                "resourceSubscriptions": ["file:///a"],
                "somethingNew": 1,
            },
            {"resourcesListChanged": True, **PROMPTS},  # no resource at file:///a
        ),
    ],
)
async def test_acknowledgement_honors_what_the_server_publishes(
    requested: dict[str, Any], honored: dict[str, Any]
) -> None:
    server = _server()
    async with modern(server) as peer:
        await peer.feed(_listen("s", requested))
        assert peer.raw == [_ack_bytes("s", honored)]
        check_listen_frame(peer.take()[0], "s")
        server.add_tool(lambda: 1)
        expected = [_changed_bytes("s")] if honored.get("toolsListChanged") else []
        await anyio.sleep(0.05)
        assert peer.raw == expected


async def test_concurrent_listeners_each_get_their_own_stamp() -> None:
    server = _server()
    async with modern(server) as peer:
        await _open(peer, "a")
        await _open(peer, 2)
        await _open(peer, "quiet", {"promptsListChanged": True})
        await _open(peer, 3)
        assert peer.raw == [
            _ack_bytes("a", TOOLS),
            _ack_bytes(2, TOOLS),
            _ack_bytes("quiet", PROMPTS),
            _ack_bytes(3, TOOLS),
        ]
        peer.take()
        server.add_tool(lambda: 1)
        frames = await _frames(peer, 3)
        assert frames == [_changed_bytes("a"), _changed_bytes(2), _changed_bytes(3)]
        for frame, sid in zip(frames, ["a", 2, 3], strict=True):
            check_listen_frame(json.loads(frame), sid)
        # a call on the same connection is answered as usual, between stream frames
        called = await peer.request(
            9, "tools/call", {"name": "first", "arguments": {"n": 1}, "_meta": meta()}
        )
        assert called["result"]["structuredContent"] == {"result": 1}


async def test_cancelling_a_listen_ends_its_stream_without_a_response() -> None:
    server = _server()
    async with modern(server) as peer:
        await _open(peer, 1)
        await _open(peer, "two")
        peer.take()
        cancel = {"requestId": 1, "reason": "done"}
        from mcp_types import methods

        methods.validate_client_notification("notifications/cancelled", V, cancel)
        await peer.notify("notifications/cancelled", cancel)
        assert peer.raw == []  # no result, no error: a cancelled request is not answered
        assert peer.session is not None
        assert 1 not in peer.session.listeners and "two" in peer.session.listeners
        server.add_tool(lambda: 1)
        assert await _frames(peer, 1) == [_changed_bytes("two")]
        # unknown, already-cancelled and malformed ids are ignored
        for request_id in [1, "nope", [1], None, 1.5]:
            await peer.notify("notifications/cancelled", {"requestId": request_id})
        await peer.notify("notifications/cancelled")
        assert peer.raw == []
        # the id is free again: a new listen with it opens a new stream
        await _open(peer, 1)
        assert peer.take() == [json.loads(_ack_bytes(1, TOOLS))]


_NOT_AN_OBJECT = "subscriptions/listen: 'notifications' must be an object"
_NOT_A_BOOLEAN = "subscriptions/listen: 'notifications.{}' must be a boolean"
_NOT_URIS = "subscriptions/listen: 'notifications.resourceSubscriptions' must be a list of strings"


@pytest.mark.parametrize(
    ("notifications", "detail", "sdk_coerces"),
    [
        (None, _NOT_AN_OBJECT, False),
        ([True], _NOT_AN_OBJECT, False),
        # the SDK's pydantic models coerce "yes" and 1 to True; the schema says boolean
        ({"toolsListChanged": "yes"}, _NOT_A_BOOLEAN.format("toolsListChanged"), True),
        ({"toolsListChanged": 1}, _NOT_A_BOOLEAN.format("toolsListChanged"), True),
        (
            {"toolsListChanged": True, "promptsListChanged": {}},
            _NOT_A_BOOLEAN.format("promptsListChanged"),
            False,
        ),
        ({"resourceSubscriptions": "file:///a"}, _NOT_URIS, False),
        ({"resourceSubscriptions": ["file:///a", 2]}, _NOT_URIS, False),
    ],
)
async def test_invalid_params_are_named(notifications: Any, detail: str, sdk_coerces: bool) -> None:
    from mcp_types import methods
    from pydantic import ValidationError

    params = {"_meta": meta(), "notifications": notifications}
    if not sdk_coerces:
        with pytest.raises(ValidationError):  # the official models reject these too
            methods.validate_client_request("subscriptions/listen", V, params)
    async with modern(_server()) as peer:
        reply = await peer.request(4, "subscriptions/listen", params)
        assert peer.raw == [
            b'{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid request parameters",'
            b'"data":' + json.dumps(detail).encode() + b"}}"
        ]
        assert reply["error"]["data"] == detail
        assert peer.session is not None and len(peer.session.listeners) == 0


async def test_missing_filter_is_invalid_params() -> None:
    from mcp_types import methods
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        methods.validate_client_request("subscriptions/listen", V, {"_meta": meta()})
    async with modern(_server()) as peer:
        reply = await peer.request(4, "subscriptions/listen", {"_meta": meta()})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid request parameters",
            "data": _NOT_AN_OBJECT,
        }


async def test_envelope_is_checked_before_the_filter() -> None:
    async with modern(_server()) as peer:
        await peer.request(1, "server/discover", {"_meta": meta()})
        reply = await peer.request(2, "subscriptions/listen", {"notifications": TOOLS})
        assert reply["error"]["code"] == -32602
        assert "envelope" in reply["error"]["message"]


async def test_listen_on_a_handshake_era_connection_is_method_not_found() -> None:
    server = _server()
    async with handshake(server) as peer:
        reply = await peer.request(1, "subscriptions/listen", {"notifications": TOOLS})
        assert reply == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32601,
                "message": "Method not found",
                "data": "subscriptions/listen",
            },
        }
        enveloped = await peer.request(
            2, "subscriptions/listen", {"_meta": meta(), "notifications": TOOLS}
        )
        assert enveloped["error"]["code"] == -32600
        peer.take()
        # changes still reach the handshake-era client its own way, unstamped
        server.add_tool(lambda: 1)
        assert await _frames(peer, 1) == [
            b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}'
        ]


async def test_listen_as_the_first_request_opens_a_modern_connection() -> None:
    async with session_for(_server()) as peer:
        await _open(peer, 1)
        assert peer.raw == [_ack_bytes(1, TOOLS)]
        assert peer.session is not None and peer.session.era == "modern"


async def test_a_duplicate_listen_id_is_ignored_while_its_stream_is_open() -> None:
    server = _server()
    async with modern(server) as peer:
        await _open(peer, 5)
        peer.take()
        await _open(peer, 5)
        await peer.feed(_listen(5, {"toolsListChanged": "bad"}))  # not even validated
        assert peer.raw == []
        server.add_tool(lambda: 1)
        assert await _frames(peer, 1) == [_changed_bytes(5)]


async def test_the_number_of_streams_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subscriptions, "MAX_STREAMS", 2)
    async with modern(_server()) as peer:
        await _open(peer, 1)
        await _open(peer, 2)
        peer.take()
        reply = await peer.request(
            3, "subscriptions/listen", {"_meta": meta(), "notifications": TOOLS}
        )
        assert reply["error"] == {"code": -32603, "message": "Subscription limit reached"}
        assert [m for m in peer.messages if "method" in m] == []  # no acknowledgement


class _GatedPeer(Peer):
    """A client whose reading stalls on the first frame containing `gate_on`."""

    def __init__(self, gate_on: bytes) -> None:
        super().__init__()
        self.gate_on = gate_on
        self.stalled = anyio.Event()
        self.release = anyio.Event()

    async def send(self, frame: bytes) -> None:
        if self.gate_on in frame and not self.release.is_set():
            self.stalled.set()
            await self.release.wait()
        await super().send(frame)


@asynccontextmanager
async def _gated(server: Server, gate_on: bytes) -> AsyncIterator[_GatedPeer]:
    peer = _GatedPeer(gate_on)
    async with ServerSession(server, peer.send) as session:
        peer.session = session
        yield peer
        session.close()


async def test_a_change_during_the_acknowledgement_follows_it() -> None:
    server = _server()
    async with _gated(server, b"acknowledged") as peer, anyio.create_task_group() as tg:
        tg.start_soon(peer.feed, _listen(1, TOOLS))
        with anyio.fail_after(5):
            await peer.stalled.wait()
        server.add_tool(lambda: 1)  # published while the acknowledgement waits for the wire
        await anyio.sleep(0.05)
        assert peer.raw == []
        peer.release.set()
        assert await _frames(peer, 2) == [_ack_bytes(1, TOOLS), _changed_bytes(1)]


async def test_changes_piling_up_behind_a_slow_reader_coalesce() -> None:
    server = _server()
    async with _gated(server, b"list_changed") as peer:
        await peer.feed(_listen(1, TOOLS))
        peer.take()
        server.add_tool(lambda: 1, title="one")
        with anyio.fail_after(5):
            await peer.stalled.wait()
        server.remove_tool("first")
        for i in range(4):
            server.add_tool(function(i))
        await anyio.sleep(0.05)
        peer.release.set()
        # the one being written, and one more for everything after it
        assert await _frames(peer, 2) == [_changed_bytes(1)] * 2


def function(i: int) -> Any:
    def tool() -> int:
        return i

    tool.__name__ = f"tool_{i}"
    return tool


async def test_graceful_end_answers_each_listen_with_its_stamped_result() -> None:
    from mcp_types import _v2026_07_28 as wire

    server = _server()
    async with modern(server) as peer:
        await _open(peer, 1)
        await _open(peer, "b", {})
        peer.take()
        assert peer.session is not None
        await peer.session.listeners.end(server.server_info)
        stamp = b'"io.modelcontextprotocol/serverInfo":{"name":"subs","version":"2.0.0"}'
        assert peer.raw == [
            b'{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/subscriptionId":1,'
            + stamp
            + b'},"resultType":"complete"}}',
            b'{"jsonrpc":"2.0","id":"b","result":{"_meta":{"io.modelcontextprotocol/subscriptionId":"b",'
            + stamp
            + b'},"resultType":"complete"}}',
        ]
        for message in peer.take():
            validate("subscriptions/listen", V, message["result"])
            parsed = wire.SubscriptionsListenResult.model_validate(message["result"], by_name=False)
            assert parsed.meta.io_modelcontextprotocol_subscription_id == message["id"]
            assert parsed.meta.io_modelcontextprotocol_server_info == {
                "name": "subs",
                "version": "2.0.0",
            }
        assert len(peer.session.listeners) == 0
        server.add_tool(lambda: 1)
        await anyio.sleep(0.05)
        assert peer.raw == []


async def test_closing_the_session_drops_streams_without_a_frame() -> None:
    server = _server()
    async with modern(server) as peer:
        await _open(peer, 1)
        peer.take()
        assert peer.session is not None
        peer.session.close()
        assert len(peer.session.listeners) == 0
        await peer.session.list_changed("tools")
        assert peer.raw == []


async def test_prompt_changes_reach_only_the_streams_that_asked_for_them() -> None:
    server = _server()
    async with modern(server) as peer:
        await _open(peer, "tools")
        await _open(peer, "prompts", PROMPTS)
        peer.take()
        server.add_prompt(lambda: "hi", name="greet", description="Greets.")
        frames = await _frames(peer, 1)
        assert len(frames) == 1  # nothing on the tools-only stream
        message = json.loads(frames[0])
        assert message["method"] == "notifications/prompts/list_changed"
        check_listen_frame(message, "prompts")
