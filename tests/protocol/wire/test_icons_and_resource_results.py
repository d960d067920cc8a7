"""Icons on the server and its tools (2025-11-25 on), and tools returning resource links and
embedded resources, per protocol version, validated by mcp_types."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import EmbeddedResource, Icon, ResourceLink, UserError
from toolwire.server import Server

from ..harness import handshake, meta, modern, session_for, validate

pytestmark = pytest.mark.anyio

LOGO = {"src": "https://example.test/logo.png", "mimeType": "image/png", "sizes": ["48x48"]}


def _server() -> Server:
    server = Server("icons", version="1", icons=[LOGO, Icon("data:image/svg+xml;base64,PHN2Zz4=")])

    @server.tool(icons=[Icon("https://example.test/t.png", theme="dark")])
    def linked() -> list[ResourceLink | EmbeddedResource]:
        """Points at a document and embeds two."""
        return [
            ResourceLink(
                "docs://guide/intro.md",
                title="Intro",
                description="Where to start",
                mime_type="text/markdown",
                size=12,
            ),
            EmbeddedResource("docs://notes.txt", text="remember", mime_type="text/plain"),
            EmbeddedResource("docs://raw.bin", blob=b"\x00\x01"),
        ]

    return server


async def test_server_icons_travel_in_server_info_from_2025_11_25() -> None:
    for version, has_icons in (("2025-11-25", True), ("2025-06-18", False)):
        async with session_for(_server()) as peer:
            params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}
            reply = await peer.request(1, "initialize", params)
        info = reply["result"]["serverInfo"]
        assert ("icons" in info) is has_icons, version
        validate("initialize", version, reply["result"])
    assert info == {"name": "icons", "version": "1"}
    async with session_for(_server()) as peer:
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
        reply = await peer.request(1, "initialize", params)
    assert reply["result"]["serverInfo"]["icons"] == [
        LOGO,
        {"src": "data:image/svg+xml;base64,PHN2Zz4="},
    ]


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
async def test_tool_icons_are_listed_only_where_the_version_knows_them(version: str) -> None:
    async with handshake(_server(), version) as peer:
        reply = await peer.request(1, "tools/list")
    tool = reply["result"]["tools"][0]
    if version == "2025-11-25":
        assert tool["icons"] == [{"src": "https://example.test/t.png", "theme": "dark"}]
    else:
        assert "icons" not in tool
    validate("tools/list", version, reply["result"])


async def test_resource_results_in_every_version() -> None:
    async with handshake(_server(), "2025-11-25") as peer:
        reply = await peer.request(1, "tools/call", {"name": "linked"})
    assert reply["result"]["content"] == [
        {
            "type": "resource_link",
            "uri": "docs://guide/intro.md",
            "name": "intro.md",
            "title": "Intro",
            "description": "Where to start",
            "mimeType": "text/markdown",
            "size": 12,
        },
        {
            "type": "resource",
            "resource": {"uri": "docs://notes.txt", "mimeType": "text/plain", "text": "remember"},
        },
        {"type": "resource", "resource": {"uri": "docs://raw.bin", "blob": "AAE="}},
    ]
    assert "structuredContent" not in reply["result"]  # content, not data
    validate("tools/call", "2025-11-25", reply["result"])
    async with handshake(_server(), "2025-03-26") as peer:
        old = await peer.request(1, "tools/call", {"name": "linked"})
    assert old["result"]["content"][0] == {"type": "text", "text": "docs://guide/intro.md"}
    validate("tools/call", "2025-03-26", old["result"])
    async with modern(_server()) as peer:
        new = await peer.request(1, "tools/call", {"name": "linked", "_meta": meta()})
    assert new["result"]["content"][0]["type"] == "resource_link"
    validate("tools/call", "2026-07-28", new["result"])


@pytest.mark.parametrize(
    ("icons", "message"),
    [
        ("https://x.test/a.png", "icons of tool 'f' must be a list of icons, not str"),
        ([{"src": "/local.png"}], "'src' must be an https:, http: or data: URI"),
        ([{"src": "javascript:alert(1)"}], "'src' must be an https:, http: or data: URI"),
        ([{"src": "https://x.test/a.png", "theme": "blue"}], "'theme' must be 'light' or 'dark'"),
        ([{"src": "https://x.test/a.png", "sizes": "48x48"}], "'sizes' must be a list"),
        ([{"src": "https://x.test/a.png", "colour": "red"}], "unknown key(s) colour"),
        ([42], "must be toolwire.Icon objects or dicts"),
    ],
)
def test_malformed_icons_are_refused_at_declaration(icons: Any, message: str) -> None:
    def f() -> int:
        return 1

    server = Server("bad")
    with pytest.raises(UserError) as caught:
        server.tool(icons=icons)(f)
    assert message in str(caught.value)
    assert "tool" in str(caught.value)


def test_malformed_resource_results_are_refused_when_built() -> None:
    with pytest.raises(TypeError, match="exactly one of text and blob"):
        EmbeddedResource("a://b")
    with pytest.raises(TypeError, match="exactly one of text and blob"):
        EmbeddedResource("a://b", text="x", blob=b"y")
    with pytest.raises(TypeError, match="uri must be a non-empty string"):
        ResourceLink("")
    with pytest.raises(TypeError, match="size must be a non-negative int"):
        ResourceLink("a://b", size=-1)
