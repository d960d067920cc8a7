"""A 2026-07-28 server that refuses a request's protocol version (-32022) and names the ones it
supports: the adapter pinned to the modern era sends the request once more when it speaks one
of them, and otherwise fails with a message naming both sides.

The server is a small stateless JSON-over-HTTP responder (what the conformance harness's
request-metadata mock does): it refuses the first request of each method.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.client._support import bounded

import toolwire

MODERN = "2026-07-28"
ADD = {"name": "add", "inputSchema": {"type": "object", "properties": {}}}


class _Refuser(BaseHTTPRequestHandler):
    supported: list[str]
    seen: list[tuple[str, str | None]]
    refused: set[str]

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads `seen`, not the log."""

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        message = json.loads(self.rfile.read(length))
        method = message.get("method", "")
        version = self.headers.get("mcp-protocol-version")
        self.seen.append((method, version))
        if "id" not in message:
            self.send_response(202)
            self.end_headers()
            return
        if method not in self.refused:
            self.refused.add(method)
            error = {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": self.supported, "requested": version or ""},
            }
            self._answer(400, {"jsonrpc": "2.0", "id": message["id"], "error": error})
            return
        result: dict[str, Any] = {"resultType": "complete"}
        if method == "tools/list":
            result.update(tools=[ADD], ttlMs=0, cacheScope="private")
        elif method == "tools/call":
            result.update(content=[{"type": "text", "text": "3"}])
        self._answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})


@contextmanager
def refusing_server(supported: list[str]) -> Iterator[tuple[str, list[tuple[str, str | None]]]]:
    seen: list[tuple[str, str | None]] = []
    handler = type("Handler", (_Refuser,), {"supported": supported, "seen": seen, "refused": set()})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


def test_pinned_modern_retries_at_a_version_the_server_offers() -> None:
    async def main(url: str) -> tuple[list[str], str]:
        async with toolwire.MCPServerStreamableHttp(
            params={"url": url}, protocol_mode="modern", client_session_timeout_seconds=10
        ) as server:
            names = [tool.name for tool in await server.list_tools()]
            result = await server.call_tool("add", {})
            return names, result.content[0].text

    with refusing_server([MODERN]) as (url, seen):
        names, text = bounded(lambda: main(url), 60)
    assert (names, text) == (["add"], "3")
    assert seen == [
        ("tools/list", MODERN),
        ("tools/list", MODERN),
        ("tools/call", MODERN),
        ("tools/call", MODERN),
    ]


def test_no_mutual_version_fails_once_naming_both_sides() -> None:
    async def main(url: str) -> str:
        async with toolwire.MCPServerStreamableHttp(
            params={"url": url}, name="future", protocol_mode="modern"
        ) as server:
            with pytest.raises(toolwire.UserError) as refused:
                await server.list_tools()
            return str(refused.value)

    with refusing_server(["2099-01-01"]) as (url, seen):
        message = bounded(lambda: main(url), 60)
    assert message == (
        "Failed to send 'tools/list' to MCP server 'future': protocol version 2026-07-28 "
        "refused; it supports 2099-01-01"
    )
    assert seen == [("tools/list", MODERN)]  # no second try at a version it refused
