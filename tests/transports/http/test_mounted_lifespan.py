"""A server's HTTP apps mounted in a parent Starlette app under a real `uvicorn` process of
the user's (not toolwire's runner): what is promised rests on the ASGI lifespan.

Forwarded by the parent, the server's lifespan is entered at start-up and exits exactly once
at SIGTERM/SIGINT, with a client still connected, once uvicorn's graceful timeout has ended
the streams a client keeps open (uvicorn waits for open responses before it runs the
lifespan's exit). Not forwarded, the serving starts on the first request and a warning says
how to forward it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from _http_harness import serving
from _uvicorn_process import STOP_SECONDS, Uvicorn
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.routing import Mount

from toolwire import Server

# What uvicorn itself ends with: it raises SIGTERM again with the default action; SIGINT
# ends through asyncio's KeyboardInterrupt handling, which uvicorn's command turns into 0.
USUAL_CODE = {signal.SIGTERM: -signal.SIGTERM, signal.SIGINT: 0}
PARENT = "_mounted_parent:app"


async def _connected(stack: AsyncExitStack, url: str, transport: str) -> ClientSession:
    if transport == "http":
        read, write, *_ = await stack.enter_async_context(streamable_http_client(url))
    else:
        read, write = await stack.enter_async_context(sse_client(url))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def _stopped_with_a_client(
    server: Uvicorn, signum: int, transport: str, *, call_slow: bool = False
) -> int:
    """Stop the server by `signum` while a client's session (and its streams) is open."""
    url = f"{server.url}/tools/mcp" if transport == "http" else f"{server.url}/legacy/sse"
    stack = AsyncExitStack()
    try:
        session = await _connected(stack, url, transport)
        result = await session.call_tool("hello", {"name": "ann"})
        assert result.content[0].text == "hello ann"  # type: ignore[union-attr]
        if call_slow:
            slow = asyncio.ensure_future(session.call_tool("slow", {}))
            await server.wait_for_mark_async("started")
        code = await server.stop(signum)
        if call_slow:
            await asyncio.wait([slow], timeout=STOP_SECONDS)
            slow.cancel()
    finally:
        # The server is gone: leaving may fail to say goodbye, which is not under test.
        with contextlib.suppress(Exception), anyio.fail_after(STOP_SECONDS):
            await stack.aclose()
    return code


SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGINT, id="SIGINT")]
GRACEFUL = ["--timeout-graceful-shutdown", "2"]  # what the docs tell a uvicorn user to give


def _only_uvicorns_cancellations(output: str) -> bool:
    """Whether every traceback logged is uvicorn's report of a response it cancelled at its
    graceful timeout (it logs each one so; an open stream is always one)."""
    cancelled = "CancelledError: Task cancelled, timeout graceful shutdown exceeded"
    return output.count("Traceback") == output.count(cancelled)


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("mounted", ["http", "sse", "both"])
def test_a_forwarded_lifespan_exits_once_with_a_stream_open(
    mounted: str, signum: int, tmp_path: Path
) -> None:
    server = Uvicorn(PARENT, tmp_path, GRACEFUL, MOUNTED=mounted, FORWARD="1")
    try:
        assert server.marks() == ["enter"]  # the parent ran it at start-up
        transport = "sse" if mounted == "sse" else "http"
        code = asyncio.run(_stopped_with_a_client(server, signum, transport))
    finally:
        server.kill()
    output = server.output()
    assert server.marks() == ["enter", "exit"], output
    assert code == USUAL_CODE[signum], output
    assert _only_uvicorns_cancellations(output)
    assert "WARNING" not in output, output  # nothing started lazily


def test_a_call_in_flight_is_cancelled_before_the_lifespan_exits(tmp_path: Path) -> None:
    server = Uvicorn(PARENT, tmp_path, GRACEFUL, MOUNTED="http", FORWARD="1")
    try:
        code = asyncio.run(_stopped_with_a_client(server, signal.SIGTERM, "http", call_slow=True))
    finally:
        server.kill()
    output = server.output()
    assert server.marks() == ["enter", "started", "cancelled", "exit"], output
    assert code == -signal.SIGTERM, output
    assert _only_uvicorns_cancellations(output)


@pytest.mark.parametrize("mounted", ["http", "sse"])
def test_a_lifespan_not_forwarded_starts_on_the_first_request_and_warns_once(
    mounted: str, tmp_path: Path
) -> None:
    server = Uvicorn(PARENT, tmp_path, GRACEFUL, MOUNTED=mounted)
    try:
        assert server.marks() == []  # nothing forwards the lifespan: not started yet
        transport = "sse" if mounted == "sse" else "http"
        asyncio.run(_stopped_with_a_client(server, signal.SIGINT, transport))
    finally:
        server.kill()
    output = server.output()
    assert server.marks()[0] == "enter", output
    what = "MCP" if mounted == "http" else "SSE"
    assert output.count(f"the {what} app of server 'mounted' started serving") == 1, output
    assert "lifespan=mcp_app.lifespan" in output


def _counting_server(calls: list[str]) -> Server:
    server = Server("threaded", version="1.0")

    @server.tool
    def ping() -> str:
        """Answer pong."""
        calls.append("ping")
        return "pong"

    return server


async def _two_clients(url: str) -> None:
    for _ in range(2):
        async with AsyncExitStack() as stack:
            session = await _connected(stack, url, "http")
            await session.call_tool("ping", {})


def test_a_lifespan_not_forwarded_warns_once_in_process(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Two clients, one warning: the serving started once, on the first request.
    calls: list[str] = []
    mcp_app = _counting_server(calls).http_app()
    parent = Starlette(routes=[Mount("/tools", app=mcp_app)])
    with caplog.at_level(logging.WARNING, logger="toolwire.http"), serving(parent) as base:
        asyncio.run(asyncio.wait_for(_two_clients(f"{base}/tools/mcp"), 60))
    assert calls == ["ping", "ping"]
    warnings = [r.getMessage() for r in caplog.records if "first request" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "the MCP app of server 'threaded'" in warnings[0]
    assert "lifespan=mcp_app.lifespan" in warnings[0]


def test_a_lifespan_not_forwarded_that_fails_is_a_503_and_tried_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Starting on the first request, a failed start-up is the server's state, not the
    # request's fault: a 503 with a JSON-RPC body on both apps, and the next request retries.
    tries: list[str] = []

    @contextlib.asynccontextmanager
    async def broken(server: Server) -> Any:
        tries.append("enter")
        raise RuntimeError("the database is down")
        yield

    server = Server("broken", lifespan=broken)
    parent = Starlette(
        routes=[Mount("/tools", app=server.http_app()), Mount("/legacy", app=server.sse_app())]
    )
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream"}
    with caplog.at_level(logging.ERROR, logger="toolwire"), serving(parent) as base:
        first = httpx.post(f"{base}/tools/mcp", json=body, headers=headers, timeout=30)
        second = httpx.post(f"{base}/tools/mcp", json=body, headers=headers, timeout=30)
        legacy = httpx.get(f"{base}/legacy/sse", timeout=30)
    for refused in (first, second):
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["message"] == (
            "Service Unavailable: the server failed to start"
        )
    assert legacy.status_code == 503, legacy.text
    assert legacy.json()["error"]["message"] == "The server failed to start; its log says why"
    assert tries == ["enter", "enter", "enter"]
    assert "the database is down" in caplog.text
