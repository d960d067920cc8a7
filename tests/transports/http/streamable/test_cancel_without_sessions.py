"""Cancelling a call where no handshake-era session carries `notifications/cancelled`: the
2026-07-28 era and stateless mode, on a real uvicorn process over real sockets.

- 2026-07-28: closing the POST is the cancellation (the spec: a server MUST treat the client's
  disconnect as cancellation; no notification is expected over HTTP). The official client
  cancels a call that way.
- Stateless mode: a call can be named only by its request id, which means nothing without a
  session (every client numbers its own requests), so a `notifications/cancelled` POSTed on
  its own is accepted and changes nothing; the POST's connection is the only handle on the
  call, and closing it cancels the call (nobody could ever get its answer).

Either way the tool's task is cancelled (its `finally` runs), the server goes on serving,
and its log shows nothing alarming.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.transports.http._uvicorn_process import Uvicorn

mcp = pytest.importorskip("mcp")

APP = "_cancel_server:app"
MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _call(tag: str, request_id: int, *, modern: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "slow", "arguments": {"tag": tag}}
    if modern:
        params["_meta"] = ENVELOPE
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _headers(message: dict[str, Any], *, modern: bool) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN if modern else HANDSHAKE,
    }
    if modern:
        headers["Mcp-Method"] = message["method"]
        if message["method"] == "tools/call":
            headers["Mcp-Name"] = message["params"]["name"]
    return headers


def _open_post(port: int, message: dict[str, Any], *, modern: bool) -> socket.socket:
    """Send one POST on a connection of its own, and leave the connection open."""
    body = json.dumps(message).encode()
    head = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in _headers(message, modern=modern).items()]
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    return connection


def _hello(server: Uvicorn, *, modern: bool) -> str:
    """Call `hello` on a fresh connection; the text it answers."""
    params: dict[str, Any] = {"name": "hello", "arguments": {"name": "again"}}
    if modern:
        params["_meta"] = ENVELOPE
    message = {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params}
    reply = httpx2.post(
        f"{server.url}/mcp", json=message, headers=_headers(message, modern=modern), timeout=20
    )
    assert reply.status_code == 200, reply.text
    text = reply.text
    if reply.headers["content-type"].startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    return str(json.loads(text)["result"]["content"][0]["text"])


def _quiet(server: Uvicorn) -> None:
    """Stop the server; its log has no warning, error or traceback, and it ends as uvicorn
    ends on SIGTERM."""
    code = asyncio.run(server.stop(signal.SIGTERM))
    output = server.output()
    for alarming in ("WARNING", "ERROR", "Traceback", "Exception"):
        assert alarming not in output, output
    assert code == -signal.SIGTERM, output


# (2026-07-28 era, stateless app, JSON answers)
MODES = [
    pytest.param((True, "0", "0"), id="2026-07-28-sse"),
    pytest.param((True, "0", "1"), id="2026-07-28-json"),
    pytest.param((True, "1", "0"), id="2026-07-28-in-a-stateless-app"),
    pytest.param((False, "1", "0"), id="stateless-sse"),
    pytest.param((False, "1", "1"), id="stateless-json"),
]
STATELESS_MODES = MODES[3:]
MODERN_MODES = MODES[:2]


@pytest.fixture
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Uvicorn, bool]]:
    modern, stateless, json_response = request.param
    server = Uvicorn(APP, tmp_path, STATELESS=stateless, JSON_RESPONSE=json_response)
    try:
        yield server, modern
    finally:
        server.kill()


@pytest.mark.parametrize("served", MODES, indirect=True)
def test_a_client_that_hangs_up_mid_call_cancels_it(served: tuple[Uvicorn, bool]) -> None:
    server, modern = served
    for round_ in range(2):  # and again: what served the first call is not left broken
        tag = f"t{round_}"
        connection = _open_post(server.port, _call(tag, 7, modern=modern), modern=modern)
        try:
            server.wait_for_mark(f"started {tag}")
        finally:
            connection.close()
        server.wait_for_mark(f"cancelled {tag}")
        assert _hello(server, modern=modern) == "hello again"
    assert server.marks() == ["started t0", "cancelled t0", "started t1", "cancelled t1"]
    _quiet(server)


@pytest.mark.parametrize("served", STATELESS_MODES, indirect=True)
def test_a_sessionless_cancel_notification_touches_no_call(served: tuple[Uvicorn, bool]) -> None:
    # Another client's request 7 may be this one: without a session, the id names nothing.
    server, _ = served
    connection = _open_post(server.port, _call("kept", 7, modern=False), modern=False)
    try:
        server.wait_for_mark("started kept")
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "another client's"},
        }
        reply = httpx2.post(
            f"{server.url}/mcp", json=cancel, headers=_headers(cancel, modern=False), timeout=20
        )
        assert reply.status_code == 202
        assert _hello(server, modern=False) == "hello again"  # served after the notification
        assert server.marks() == ["started kept"]
    finally:
        connection.close()
    server.wait_for_mark("cancelled kept")  # its own connection closing is what ends it
    _quiet(server)


@pytest.mark.parametrize("served", MODERN_MODES, indirect=True)
def test_the_official_client_cancels_a_2026_07_28_call(served: tuple[Uvicorn, bool]) -> None:
    server, _ = served

    async def scenario() -> tuple[str, str]:
        async with mcp.Client(f"{server.url}/mcp") as client:
            version = client.protocol_version
            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as calls:
                    calls.start_soon(client.call_tool, "slow", {"tag": "official"})
                    await server.wait_for_mark_async("started official")
                    scope.cancel()  # the caller gives up: the client closes that POST
            await server.wait_for_mark_async("cancelled official")
            again = await client.call_tool("hello", {"name": "again"})
            return version, str(again.content[0].text)  # type: ignore[union-attr]

    assert anyio.run(scenario) == (MODERN, "hello again")
    _quiet(server)


@pytest.mark.parametrize("served", MODERN_MODES, indirect=True)
def test_a_handshake_session_goes_on_beside_a_cancelled_2026_07_28_call(
    served: tuple[Uvicorn, bool],
) -> None:
    server, _ = served

    async def scenario() -> list[str]:
        async with (
            streamable_http_client(f"{server.url}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            before = await session.call_tool("hello", {"name": "before"})
            connection = _open_post(server.port, _call("beside", 3, modern=True), modern=True)
            try:
                await server.wait_for_mark_async("started beside")
            finally:
                connection.close()
            await server.wait_for_mark_async("cancelled beside")
            after = await session.call_tool("hello", {"name": "after"})
            return [str(r.content[0].text) for r in (before, after)]  # type: ignore[union-attr]

    assert anyio.run(scenario) == ["hello before", "hello after"]
    _quiet(server)
