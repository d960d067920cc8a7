"""Clients that vanish mid-call: nothing leaks. Stateless calls are cancelled (nobody can
ever get their answer); a session's call goes on and its answer can be resumed."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx2
from test_http_wire import CALL_ADD, HEADERS, initialize, resume, sse_events
from tests.transports.http._http_harness import serving

from toolwire import Server

DEADLINE_SECONDS = 10.0


def make_server(seen: list[str], finished: threading.Event) -> Server:
    server = Server("vanishing")

    @server.tool
    async def linger(seconds: float) -> str:
        """Sleep, noting whether the sleep was cancelled."""
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            seen.append("cancelled")
            finished.set()
            raise
        seen.append("finished")
        finished.set()
        return "slept"

    return server


def linger_call(seconds: float, request_id: int = 5) -> dict[str, Any]:
    arguments = {"seconds": seconds}
    return {**CALL_ADD, "id": request_id, "params": {"name": "linger", "arguments": arguments}}


def vanish(base: str, message: dict[str, Any], headers: dict[str, str]) -> None:
    """POST, then hang up before the answer comes."""
    with httpx2.Client(base_url=base, timeout=httpx2.Timeout(5, read=0.3)) as client:
        try:
            client.post("/mcp", json=message, headers=headers)
        except httpx2.ReadTimeout:
            return
    raise AssertionError("the call answered before the client hung up")


def test_a_stateless_call_is_cancelled_when_its_client_leaves() -> None:
    seen: list[str] = []
    finished = threading.Event()
    app = make_server(seen, finished).http_app(stateless=True)
    with serving(app) as base:
        vanish(base, linger_call(30), HEADERS)
        assert finished.wait(DEADLINE_SECONDS)
        assert seen == ["cancelled"]
        # The server goes on serving.
        with httpx2.Client(base_url=base, timeout=10) as client:
            reply = client.post("/mcp", json=linger_call(0), headers=HEADERS)
        assert reply.status_code == 200
        assert b'"text":"slept"' in reply.content


def test_a_session_call_outlives_its_stream_and_is_resumable() -> None:
    seen: list[str] = []
    finished = threading.Event()
    app = make_server(seen, finished).http_app()
    with serving(app) as base, httpx2.Client(base_url=base, timeout=10) as client:
        session_id = initialize(client)
        headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        # Read the priming event, then hang up.
        with client.stream("POST", "/mcp", json=linger_call(0.8), headers=headers) as stream:
            priming = sse_events(next(stream.iter_bytes()))[0]["id"]
        assert finished.wait(DEADLINE_SECONDS)
        assert seen == ["finished"]
        resumed = resume(client, session_id, priming)
        (result,) = sse_events(resumed.content)
        assert '"text":"slept"' in result["data"]
        assert client.delete("/mcp", headers={"mcp-session-id": session_id}).status_code == 200
        sessions = app.runtime.sessions
        deadline = time.monotonic() + DEADLINE_SECONDS
        while len(sessions) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(sessions) == 0
