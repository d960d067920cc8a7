"""Resources seen by real clients: the official `mcp.Client` in both eras over stdio, streamable
HTTP and the legacy SSE transport, and FastMCP's `Client` over stdio (the server:
tests/interop/servers/library.py in its own process).

Each client lists resources and templates, reads text, a blob, a template's URI and a file of
the served directory, gets the resource-not-found error its era defines, and follows a
resource: `resources/subscribe` + `notifications/resources/updated` in the handshake era, a
`subscriptions/listen` stream naming the URI in 2026-07-28.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import pytest
from tests.interop._served_http import served_http
from tests.interop._support import ROOT, SERVERS

# The handshake era's subscribe methods are what this era has; the SDK flags them as gone in
# 2026-07-28.
pytestmark = pytest.mark.filterwarnings("ignore:resources/.*subscribe is removed as of 2026-07-28")

LIBRARY = SERVERS / "library.py"
T = TypeVar("T")
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
FIXED = {
    "test://static-text",
    "test://static-binary",
    "test://watched-resource",
    "file:///docs/readme.md",
    "file:///docs/guide/intro.txt",
}
TEMPLATES = {"test://template/{id}/data", "file:///docs/{+path}"}
# `mcp.Client` modes ("legacy" is its name for the handshake era) and the version each gets.
ERAS = [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")]


def _bounded(main: Callable[[], Awaitable[T]], seconds: float = 90) -> T:
    async def run() -> T:
        with anyio.fail_after(seconds):
            return await main()

    return anyio.run(run)


def _stdio() -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[str(LIBRARY)], cwd=str(ROOT))


class _Updates:
    """Collects `notifications/resources/updated` URIs (the handshake era's message handler)."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.list_changed = 0

    async def __call__(self, message: Any) -> None:
        inner = getattr(message, "root", message)
        method = getattr(inner, "method", None)
        if method == "notifications/resources/updated":
            self.uris.append(str(inner.params.uri))
        elif method == "notifications/resources/list_changed":
            self.list_changed += 1

    async def wait(self, count: int) -> None:
        with anyio.fail_after(10):
            while len(self.uris) < count:
                await anyio.sleep(0.01)


async def _lists_and_reads(client: Any, version: str) -> None:
    from mcp import MCPError

    assert client.protocol_version == version
    listed = {str(resource.uri): resource for resource in (await client.list_resources()).resources}
    assert set(listed) == FIXED
    assert listed["test://static-text"].name == "static-text"
    assert listed["test://static-text"].title == "Static text"
    assert listed["file:///docs/readme.md"].mime_type == "text/markdown"
    templates = (await client.list_resource_templates()).resource_templates
    assert {template.uri_template for template in templates} == TEMPLATES

    text = (await client.read_resource("test://static-text")).contents
    assert [(str(item.uri), item.mime_type, item.text) for item in text] == [
        ("test://static-text", "text/plain", "This is the content of the static text resource.")
    ]
    blob = (await client.read_resource("test://static-binary")).contents[0]
    assert (blob.mime_type, base64.b64decode(blob.blob)) == ("image/png", PNG)
    data = (await client.read_resource("test://template/123/data")).contents[0]
    assert str(data.uri) == "test://template/123/data"
    assert json.loads(data.text) == {"id": 123, "templateTest": True, "data": "Data for ID: 123"}
    doc = (await client.read_resource("file:///docs/guide/intro.txt")).contents[0]
    assert doc.text == "Welcome to the guide.\n"

    with pytest.raises(MCPError) as missing:
        await client.read_resource("test://nonexistent-resource")
    assert missing.value.error.code == (-32602 if version == "2026-07-28" else -32002)
    assert missing.value.error.message == "Resource not found: test://nonexistent-resource"
    assert missing.value.error.data == {"uri": "test://nonexistent-resource"}
    with pytest.raises(MCPError) as invalid:
        await client.read_resource("test://template/abc/data")
    assert invalid.value.error.code == -32602
    assert "id: Input should be a valid integer" in invalid.value.error.message
    with pytest.raises(MCPError) as escape:
        await client.read_resource("file:///docs/..%2F..%2Flibrary.py")
    assert escape.value.error.code == -32602
    assert "'..' path segment" in escape.value.error.message


async def _follows_in_the_handshake_era(client: Any, updates: _Updates) -> None:
    await client.subscribe_resource("test://watched-resource")
    await client.call_tool("touch", {})
    await updates.wait(1)
    assert updates.uris == ["test://watched-resource"]
    revised = (await client.read_resource("test://watched-resource")).contents[0]
    assert revised.text == "revision 1"
    await client.unsubscribe_resource("test://watched-resource")
    await client.call_tool("touch", {"uri": "test://static-text"})  # not followed either
    await client.call_tool("publish", {"uri": "late://note", "text": "late"})
    with anyio.fail_after(10):
        while updates.list_changed < 1:
            await anyio.sleep(0.01)
    assert updates.uris == ["test://watched-resource"]
    assert (await client.read_resource("late://note")).contents[0].text == "late"


async def _follows_on_a_listen_stream(client: Any) -> None:
    from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated

    async with client.listen(
        resources_list_changed=True,
        resource_subscriptions=["test://watched-resource", "test://unknown"],
    ) as subscription:
        assert subscription.honored.resources_list_changed is True
        assert subscription.honored.resource_subscriptions == ["test://watched-resource"]
        events = aiter(subscription)
        await client.call_tool("touch", {})
        with anyio.fail_after(10):
            assert await anext(events) == ResourceUpdated(uri="test://watched-resource")
        await client.call_tool("publish", {"uri": "late://note", "text": "late"})
        with anyio.fail_after(10):
            assert await anext(events) == ResourcesListChanged()
    assert (await client.read_resource("late://note")).contents[0].text == "late"


async def _exercise(target: Any, mode: str, version: str) -> None:
    from mcp import Client

    updates = _Updates()
    async with Client(target, mode=mode, message_handler=updates) as client:
        await _lists_and_reads(client, version)
        if version == "2026-07-28":
            await _follows_on_a_listen_stream(client)
        else:
            await _follows_in_the_handshake_era(client, updates)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_official_client_over_stdio(mode: str, version: str) -> None:
    _bounded(lambda: _exercise(_stdio(), mode, version))


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_official_client_over_streamable_http(mode: str, version: str) -> None:
    with served_http("http", target=LIBRARY) as server:
        _bounded(lambda: _exercise(server.base + "/mcp", mode, version))


def test_official_client_over_legacy_sse() -> None:
    from mcp.client.sse import sse_client

    with served_http("sse", target=LIBRARY) as server:
        _bounded(lambda: _exercise(sse_client(server.base + "/sse"), "legacy", "2025-11-25"))


def test_fastmcp_client_over_stdio() -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport
    from fastmcp.exceptions import McpError, ResourceError

    async def main() -> None:
        transport = StdioTransport(
            command=sys.executable, args=[str(LIBRARY)], cwd=str(ROOT), keep_alive=False
        )
        async with Client(transport, timeout=30) as client:
            listed = {str(resource.uri) for resource in await client.list_resources()}
            assert listed == FIXED
            templates = {t.uri_template for t in await client.list_resource_templates()}
            assert templates == TEMPLATES
            text = await client.read_resource("test://static-text")
            assert text[0].text == "This is the content of the static text resource."
            data = await client.read_resource("test://template/7/data")
            assert json.loads(data[0].text)["id"] == 7
            blob = await client.read_resource("test://static-binary")
            assert base64.b64decode(blob[0].blob) == PNG
            with pytest.raises((McpError, ResourceError)) as missing:
                await client.read_resource("test://nonexistent-resource")
            assert "Resource not found: test://nonexistent-resource" in str(missing.value)

    _bounded(main)
