"""`max_event_bytes`: what an HTTP app does with a message too large to send.

A reply over the bound must still answer its request (a client must never wait for ever), as
a JSON-RPC error naming both sizes; a notification over it is dropped; later calls are served
as usual. Raw requests against a real uvicorn, both in sessions (SSE) and stateless (JSON),
and over the legacy SSE transport's app-level option check.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from tests._jsonrpc import initialize_request
from tests.transports.http._http_harness import serving
from tests.transports.http._sessions import open_session

from toolwire import Server, ToolContext

LIMIT = 50_000
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


def make_server() -> Server:
    server = Server("limits", version="1")

    @server.tool
    def text(size: int) -> str:
        """Return `size` characters."""
        return "x" * size

    @server.tool
    async def chatty(ctx: ToolContext[Any], size: int) -> str:
        """Report progress with a message of `size` characters, then answer briefly."""
        await ctx.report_progress(1, 2, "y" * size)
        await ctx.report_progress(2, 2, "small")
        return "done"

    return server


def call(request_id: int, name: str, size: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": {"size": size}, "_meta": {"progressToken": "p"}},
    }


def messages(reply: httpx2.Response) -> list[dict[str, Any]]:
    if reply.headers["content-type"] == "application/json":
        return [reply.json()]
    return [
        json.loads(line[len("data: ") :])
        for line in reply.text.splitlines()
        if line.startswith("data: ") and len(line) > len("data: ")
    ]


def session_headers(client: httpx2.Client) -> dict[str, str]:
    return open_session(client, HEADERS, initialize_request(0, client="raw"))


@pytest.mark.parametrize("stateless", [False, True], ids=["sessions-sse", "stateless-json"])
def test_a_reply_over_the_bound_becomes_an_error_naming_both_sizes(stateless: bool) -> None:
    app = make_server().http_app(
        stateless=stateless, json_response=stateless, max_event_bytes=LIMIT
    )
    with serving(app) as base, httpx2.Client(base_url=base, timeout=20) as client:
        headers = HEADERS if stateless else session_headers(client)
        small = messages(client.post("/mcp", json=call(1, "text", 10), headers=headers))
        assert small[-1]["result"]["content"][0]["text"] == "x" * 10

        big = client.post("/mcp", json=call(2, "text", 100_000), headers=headers)
        assert big.status_code == 200
        (reply,) = messages(big)
        assert reply["id"] == 2
        assert reply["error"]["code"] == -32603
        message = reply["error"]["message"]
        assert message.startswith("Result of ") and message.endswith(
            f"bytes exceeds the maximum event size of {LIMIT} bytes"
        )
        size = int(message.split()[2])
        assert size > 100_000  # the reply's own size, text mirror and structured copy included

        after = messages(client.post("/mcp", json=call(3, "text", 20), headers=headers))
        assert after[-1]["result"]["content"][0]["text"] == "x" * 20


def test_a_notification_over_the_bound_is_dropped_and_the_call_still_answers() -> None:
    app = make_server().http_app(max_event_bytes=LIMIT)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=20) as client:
        headers = session_headers(client)
        reply = client.post("/mcp", json=call(4, "chatty", 100_000), headers=headers)
        frames = messages(reply)
    progress = [f["params"] for f in frames if f.get("method") == "notifications/progress"]
    assert progress == [{"progressToken": "p", "progress": 2, "total": 2, "message": "small"}]
    assert frames[-1]["id"] == 4
    assert frames[-1]["result"]["content"][0]["text"] == "done"


def test_without_a_bound_a_large_reply_goes_out_whole() -> None:
    app = make_server().http_app(stateless=True, json_response=True, max_event_bytes=None)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=20) as client:
        (reply,) = messages(client.post("/mcp", json=call(5, "text", 200_000), headers=HEADERS))
    assert reply["result"]["content"][0]["text"] == "x" * 200_000


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "big"])
def test_a_bad_bound_is_refused_naming_the_option(value: Any) -> None:
    server = make_server()
    with pytest.raises(ValueError, match="max_event_bytes must be an integer >= 1 or None"):
        server.http_app(max_event_bytes=value)
    with pytest.raises(ValueError, match="max_event_bytes must be an integer >= 1 or None"):
        server.sse_app(max_event_bytes=value)
