"""The 2026-07-28 era: discover, the envelope ladder, stamped results."""

from __future__ import annotations

import pytest

from toolwire.server import Server

from ..harness import ENVELOPE, SERVER_INFO_KEY, meta, modern, session_for, validate

pytestmark = pytest.mark.anyio
V = "2026-07-28"
STAMP = {SERVER_INFO_KEY: {"name": "m", "version": "0.0.0"}}


def _server() -> Server:
    server = Server("m", instructions="hi")

    @server.tool(annotations={"openWorldHint": False}, title="Doubler")
    def double(n: int) -> list[int]:
        """Twice."""
        return [n, n]

    return server


async def test_discover_opens_a_modern_connection() -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(1, "server/discover", {"_meta": meta()})
        assert reply["result"] == {
            "supportedVersions": [V],
            "capabilities": {
                "tools": {"listChanged": True},
                "logging": {},
                "resources": {"listChanged": True, "subscribe": True},
                "prompts": {"listChanged": True},
                "completions": {},
            },
            "ttlMs": 0,
            "cacheScope": "private",
            "instructions": "hi",
            "resultType": "complete",
            "_meta": STAMP,
        }
        validate("server/discover", V, reply["result"])
        assert peer.session is not None and peer.session.era == "modern"


async def test_tools_list_and_call_are_stamped_and_valid() -> None:
    async with modern(_server()) as peer:
        listed = await peer.request(1, "tools/list", {"_meta": meta()})
        assert listed["result"] == {
            "tools": [
                {
                    "name": "double",
                    "title": "Doubler",
                    "description": "Twice.",
                    "inputSchema": {
                        "properties": {"n": {"title": "N", "type": "integer"}},
                        "required": ["n"],
                        "title": "double_args",
                        "type": "object",
                        "additionalProperties": False,
                    },
                    "outputSchema": {
                        "type": "object",
                        "properties": {"result": {"items": {"type": "integer"}, "type": "array"}},
                        "required": ["result"],
                    },
                    "annotations": {"openWorldHint": False},
                }
            ],
            "ttlMs": 0,
            "cacheScope": "private",
            "resultType": "complete",
            "_meta": STAMP,
        }
        validate("tools/list", V, listed["result"])
        called = await peer.request(
            2, "tools/call", {"name": "double", "arguments": {"n": 4}, "_meta": meta()}
        )
        assert called["result"] == {
            "content": [{"type": "text", "text": "[4,4]"}],
            "structuredContent": {"result": [4, 4]},
            "isError": False,
            "resultType": "complete",
            "_meta": STAMP,
        }
        validate("tools/call", V, called["result"])


async def test_wire_samples_for_envelope_errors() -> None:
    async with modern(_server()) as peer:
        await peer.request(1, "server/discover", {"_meta": meta()})
        peer.take()
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            }
        )
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/list",
                "params": {
                    "_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}
                },
            }
        )
        await peer.feed({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}})
        await peer.feed({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "tools/list",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": V}},
            }
        )
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/list",
                "params": {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": 2026}},
            }
        )
        await peer.feed({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {}})
        envelope_text = (
            "params._meta must be an object carrying the required "
            "'io.modelcontextprotocol/protocolVersion' and "
            "'io.modelcontextprotocol/clientCapabilities' envelope keys"
        )
        assert [m["error"] for m in peer.take()] == [
            {
                "code": -32022,
                "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
                "data": {"supported": [V], "requested": "2025-11-25"},
            },
            {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": [V], "requested": "2030-01-01"},
            },
            {"code": -32602, "message": envelope_text},
            {"code": -32602, "message": envelope_text},
            {
                "code": -32602,
                "message": "params._meta is missing the required envelope key(s): "
                "io.modelcontextprotocol/clientCapabilities",
            },
            {"code": -32602, "message": "the protocol-version envelope value must be a string"},
            {
                "code": -32022,
                "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
                "data": {"supported": [V]},
            },
        ]


async def test_methods_the_modern_era_does_not_have() -> None:
    async with modern(_server()) as peer:
        modernless = ["ping", "logging/setLevel", "resources/subscribe", "x/y"]
        for i, method in enumerate(modernless):
            reply = await peer.request(i, method, {"_meta": meta()})
            assert reply["error"] == {"code": -32601, "message": "Method not found", "data": method}
        # the envelope is checked before the method, as the SDK's ladder does
        assert (await peer.request(9, "x/y", {}))["error"]["code"] == -32602


async def test_half_built_envelope_still_opens_modern_and_names_the_missing_key() -> None:
    async with session_for(_server()) as peer:
        reply = await peer.request(
            1, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": V}}
        )
        assert reply["error"]["code"] == -32602
        assert peer.session is not None and peer.session.era == "modern"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("io.modelcontextprotocol/clientCapabilities", []),
        ("io.modelcontextprotocol/logLevel", "loud"),
        ("io.modelcontextprotocol/clientInfo", {"name": 1}),
    ],
)
async def test_malformed_envelope_values_are_invalid_params(key: str, value: object) -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(1, "tools/list", {"_meta": meta(**{key: value})})
        assert reply["error"]["code"] == -32602
        assert reply["error"]["message"] == "Invalid request parameters"


async def test_no_unsolicited_list_changed_in_the_modern_era() -> None:
    import anyio

    server = _server()
    async with modern(server) as peer:
        await peer.request(1, "tools/list", {"_meta": meta()})
        peer.take()
        server.add_tool(lambda: 1)
        await anyio.sleep(0.05)
        assert peer.raw == []
        listed = await peer.request(2, "tools/list", {"_meta": meta()})
        assert [t["name"] for t in listed["result"]["tools"]] == ["double", "<lambda>"]
