"""Handshake era (2024-11-05 .. 2025-11-25): negotiation, gating, listing, validated by mcp_types."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire.server import Server

from ..harness import ENVELOPE, handshake, session_for, validate

pytestmark = pytest.mark.anyio

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
# What the handshake era advertises; 2024-11-05 has no `completions` capability to name.
CAPABILITIES = {
    "tools": {"listChanged": True},
    "logging": {},
    "resources": {"listChanged": True, "subscribe": True},
    "prompts": {"listChanged": True},
    "completions": {},
}


def _capabilities(version: str) -> dict[str, Any]:
    if version == "2024-11-05":
        return {k: v for k, v in CAPABILITIES.items() if k != "completions"}
    return CAPABILITIES


INIT_PARAMS = {"capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}


class Point(BaseModel):
    x: int
    y: int


def _server(instructions: str | None = "Use the tools.") -> Server:
    server = Server("demo", version="2.0.0", instructions=instructions)

    @server.tool(
        title="Adder",
        annotations={"readOnlyHint": True, "idempotentHint": True},
        meta={"team": "math"},
    )
    def add(a: int, b: int = 2) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    def point(x: int) -> Point:
        """Make a point."""
        return Point(x=x, y=0)

    @server.tool
    def greet(name: str) -> str:
        """Say hello."""
        return f"hello {name}"

    return server


@pytest.mark.parametrize("version", VERSIONS)
async def test_initialize_answers_the_requested_known_version(version: str) -> None:
    async with session_for(_server()) as peer:
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": version, **INIT_PARAMS},
            }
        )
        assert peer.raw == [
            b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"' + version.encode() + b'",'
            b'"capabilities":'
            + json.dumps(_capabilities(version), separators=(",", ":")).encode()
            + b","
            b'"serverInfo":{"name":"demo","version":"2.0.0"},"instructions":"Use the tools."}}'
        ]
        validate("initialize", version, peer.messages[0]["result"])


@pytest.mark.parametrize("requested", ["1999-01-01", "2026-07-28", "latest"])
async def test_unknown_version_gets_the_latest_handshake_version(requested: str) -> None:
    async with session_for(_server(instructions=None)) as peer:
        reply = await peer.request(1, "initialize", {"protocolVersion": requested, **INIT_PARAMS})
        assert reply["result"] == {
            "protocolVersion": "2025-11-25",
            "capabilities": CAPABILITIES,
            "serverInfo": {"name": "demo", "version": "2.0.0"},
        }


async def test_malformed_initialize_is_invalid_params() -> None:
    async with session_for(_server()) as peer:
        reply = await peer.request(1, "initialize", {"capabilities": {}})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid request parameters",
            "data": "initialize: 'protocolVersion' must be a string",
        }
        reply = await peer.request(
            2, "initialize", {"protocolVersion": "2025-06-18", "capabilities": []}
        )
        assert reply["error"]["code"] == -32602
        # the connection is still usable and still in the handshake era
        ok = await peer.request(3, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS})
        assert ok["result"]["protocolVersion"] == "2025-06-18"


async def test_requests_before_initialize() -> None:
    async with session_for(_server()) as peer:
        assert (await peer.request(1, "ping")) == {"jsonrpc": "2.0", "id": 1, "result": {}}
        assert (await peer.request(2, "tools/list"))["error"] == {
            "code": -32602,
            "message": "Invalid request parameters",
            "data": "Received request before initialization",
        }
        assert (await peer.request(3, "tools/call", {"name": "add"}))["error"]["code"] == -32602
        # unknown methods are -32601 whatever the state (as in the SDK)
        assert (await peer.request(4, "no/such"))["error"] == {
            "code": -32601,
            "message": "Method not found",
            "data": "no/such",
        }


async def test_method_not_found_and_modern_only_methods() -> None:
    async with handshake(_server()) as peer:
        for i, method in enumerate(
            ["no/such", "server/discover", "sampling/createMessage", "subscriptions/listen"]
        ):
            reply = await peer.request(i, method)
            assert reply == {
                "jsonrpc": "2.0",
                "id": i,
                "error": {"code": -32601, "message": "Method not found", "data": method},
            }


async def test_enveloped_request_on_a_handshake_connection_is_invalid_request() -> None:
    async with handshake(_server()) as peer:
        reply = await peer.request(5, "tools/list", {"_meta": ENVELOPE})
        assert reply["error"] == {
            "code": -32600,
            "message": "this connection serves the handshake protocol era; "
            "requests carrying the 2026-07-28 envelope are not accepted on it",
        }


async def test_initialize_with_an_envelope_still_opens_the_handshake_era() -> None:
    async with session_for(_server()) as peer:
        reply = await peer.request(
            1, "initialize", {"protocolVersion": "2025-11-25", **INIT_PARAMS, "_meta": ENVELOPE}
        )
        assert reply["result"]["protocolVersion"] == "2025-11-25"
        assert peer.session is not None and peer.session.era == "handshake"


async def test_a_bare_progress_token_meta_is_not_an_envelope() -> None:
    async with session_for(_server()) as peer:
        reply = await peer.request(1, "ping", {"_meta": {"progressToken": 1}})
        assert reply["result"] == {}
        assert peer.session is not None and peer.session.era == "handshake"


def _expected_tools(version: str) -> list[dict[str, Any]]:
    add: dict[str, Any] = {"name": "add"}
    if version >= "2025-06-18":
        add["title"] = "Adder"
    add["description"] = "Add two integers."
    add["inputSchema"] = {
        "properties": {
            "a": {"title": "A", "type": "integer"},
            "b": {"default": 2, "title": "B", "type": "integer"},
        },
        "required": ["a", "b"],
        "title": "add_args",
        "type": "object",
        "additionalProperties": False,
    }
    if version >= "2025-06-18":
        add["outputSchema"] = {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        }
    if version >= "2025-06-18":
        add["annotations"] = {"readOnlyHint": True, "idempotentHint": True}
        add["_meta"] = {"team": "math"}
    elif version == "2025-03-26":
        add["annotations"] = {"readOnlyHint": True, "idempotentHint": True, "title": "Adder"}
    point: dict[str, Any] = {
        "name": "point",
        "description": "Make a point.",
        "inputSchema": {
            "properties": {"x": {"title": "X", "type": "integer"}},
            "required": ["x"],
            "title": "point_args",
            "type": "object",
            "additionalProperties": False,
        },
    }
    if version >= "2025-06-18":
        point["outputSchema"] = {
            "properties": {
                "x": {"title": "X", "type": "integer"},
                "y": {"title": "Y", "type": "integer"},
            },
            "required": ["x", "y"],
            "title": "Point",
            "type": "object",
        }
    greet = {
        "name": "greet",
        "description": "Say hello.",
        "inputSchema": {
            "properties": {"name": {"title": "Name", "type": "string"}},
            "required": ["name"],
            "title": "greet_args",
            "type": "object",
            "additionalProperties": False,
        },
    }
    return [add, point, greet]


@pytest.mark.parametrize("version", VERSIONS)
async def test_tools_list_per_version_is_exact_and_valid(version: str) -> None:
    async with handshake(_server(), version) as peer:
        reply = await peer.request(1, "tools/list")
        assert reply["result"] == {"tools": _expected_tools(version)}
        validate("tools/list", version, reply["result"])
        # served from the cache the second time: identical bytes
        first = peer.raw[-1]
        await peer.request(2, "tools/list", {})
        assert peer.raw[-1] == first.replace(b'"id":1', b'"id":2', 1)


@pytest.mark.parametrize("version", VERSIONS)
async def test_tools_call_results_per_version(version: str) -> None:
    async with handshake(_server(), version) as peer:
        add = await peer.request(1, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        point = await peer.request(2, "tools/call", {"name": "point", "arguments": {"x": 3}})
        greet = await peer.request(3, "tools/call", {"name": "greet", "arguments": {"name": "é"}})
        structured = version >= "2025-06-18"
        assert add["result"] == (
            {
                "content": [{"type": "text", "text": "3"}],
                "structuredContent": {"result": 3},
                "isError": False,
            }
            if structured
            else {"content": [{"type": "text", "text": "3"}], "isError": False}
        )
        assert point["result"]["content"] == [{"type": "text", "text": '{"x":3,"y":0}'}]
        assert ("structuredContent" in point["result"]) is structured
        assert greet["result"] == {
            "content": [{"type": "text", "text": "hello é"}],
            "isError": False,
        }
        for reply in (add, point, greet):
            validate("tools/call", version, reply["result"])


async def test_logging_set_level() -> None:
    async with handshake(_server()) as peer:
        assert (await peer.request(1, "logging/setLevel", {"level": "warning"}))["result"] == {}
        assert peer.session is not None and peer.session.log_level == "warning"
        bad = await peer.request(2, "logging/setLevel", {"level": "loud"})
        assert bad["error"]["code"] == -32602
        assert bad["error"]["message"] == "Invalid request parameters"


async def test_list_changed_is_sent_on_add_and_remove() -> None:
    server = _server()
    async with handshake(server) as peer:
        server.add_tool(lambda: "x", title="Late")
        server.remove_tool("greet")
        assert peer.session is not None
        for _ in range(100):
            if len(peer.notifications("notifications/tools/list_changed")) == 2:
                break
            import anyio

            await anyio.sleep(0.01)
        assert (
            peer.raw
            == [b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}'] * 2
        )
        names = [t["name"] for t in (await peer.request(1, "tools/list"))["result"]["tools"]]
        assert names == ["add", "point", "<lambda>"]


async def test_a_sync_tool_adding_a_tool_from_its_worker_thread_notifies_the_client() -> None:
    """A sync tool runs in a worker thread; the change it makes is told on the loop."""
    import threading

    import anyio

    server = Server("grower")
    seen_threads: list[bool] = []

    @server.tool
    def grow(name: str) -> str:
        """Publish another tool."""
        seen_threads.append(threading.current_thread() is threading.main_thread())
        server.add_tool(lambda: name, title=name)
        return "grown"

    async with handshake(server) as peer:
        reply = await peer.request(1, "tools/call", {"name": "grow", "arguments": {"name": "x"}})
        assert reply["result"]["content"] == [{"type": "text", "text": "grown"}]
        with anyio.fail_after(5):
            while not peer.notifications("notifications/tools/list_changed"):
                await anyio.sleep(0.005)
        assert peer.notifications("notifications/tools/list_changed") == [{}]
    assert seen_threads == [False]
