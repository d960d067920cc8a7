"""A call the client cancels (`notifications/cancelled`) over streamable HTTP: no reply is
sent, and the POST that carried it gets the end of its response once the call has stopped,
instead of staying open until the session ends. Other calls of the session go on."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx2
import pytest
from test_http_wire import ADD_RESULT, CALL_ADD, HEADERS, initialize, sse_events
from tests.transports.http._http_harness import serving

from toolwire import Server

WAIT_SECONDS = 10.0
"""Bound on every wait: a response still open after it has leaked."""


class Seen:
    """What the server's `linger` tool went through, by request."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()


def make_server(seen: Seen) -> Server:
    server = Server("cancelling")

    @server.tool
    async def linger(seconds: float) -> str:
        """Sleep; a cancelled sleep is noted."""
        seen.started.set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            seen.cancelled.set()
            raise
        return "slept"

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


def linger_call(seconds: float, request_id: int) -> dict[str, Any]:
    params = {"name": "linger", "arguments": {"seconds": seconds}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def cancel(client: httpx2.Client, headers: dict[str, str], request_id: int) -> None:
    note = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": "the user gave up"},
    }
    assert client.post("/mcp", json=note, headers=headers).status_code == 202


def session_headers(client: httpx2.Client) -> dict[str, str]:
    session_id = initialize(client)
    return {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}


def answer_later(
    base: str, message: dict[str, Any], headers: dict[str, str]
) -> tuple[threading.Thread, list[bytes]]:
    """POST `message` from a thread of its own; the list gets the whole response body."""
    bodies: list[bytes] = []

    def post() -> None:
        with httpx2.Client(base_url=base, timeout=WAIT_SECONDS) as other:
            bodies.append(other.post("/mcp", json=message, headers=headers).content)

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread, bodies


def test_a_cancelled_calls_sse_response_ends_without_a_reply() -> None:
    seen = Seen()
    with (
        serving(make_server(seen).http_app()) as base,
        httpx2.Client(base_url=base, timeout=WAIT_SECONDS) as client,
    ):
        headers = session_headers(client)
        poster, neighbour = answer_later(base, linger_call(1.0, 9), headers)  # not cancelled
        with client.stream("POST", "/mcp", json=linger_call(60, 7), headers=headers) as reply:
            assert reply.status_code == 200
            assert reply.headers["content-type"] == "text/event-stream"
            chunks = reply.iter_bytes()
            body = next(chunks)  # the priming event: the call runs
            assert seen.started.wait(WAIT_SECONDS)
            cancel(client, headers, 7)
            # The response ends (a leaked one would run into the read timeout instead).
            body += b"".join(chunks)
        assert seen.cancelled.is_set()
        events = sse_events(body)
        assert [event.get("event") for event in events] == [None]  # the priming event only
        assert b'"result"' not in body and b'"error"' not in body
        # The session serves on: a new call (the cancelled one's id is free again: it is no
        # longer in flight), and the call that was running meanwhile.
        again = client.post("/mcp", json={**CALL_ADD, "id": 7}, headers=headers)
        assert again.status_code == 200
        assert ADD_RESULT.replace(b'"id":2', b'"id":7') in again.content
        poster.join(WAIT_SECONDS)
        assert neighbour and b'"text":"slept"' in neighbour[0]


def test_a_cancelled_call_in_json_mode_gets_202_without_a_body() -> None:
    seen = Seen()
    app = make_server(seen).http_app(json_response=True)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=WAIT_SECONDS) as client:
        headers = session_headers(client)
        outcome: list[httpx2.Response] = []

        def call() -> None:
            with httpx2.Client(base_url=base, timeout=WAIT_SECONDS) as other:
                outcome.append(other.post("/mcp", json=linger_call(60, 7), headers=headers))

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        assert seen.started.wait(WAIT_SECONDS)
        cancel(client, headers, 7)
        caller.join(WAIT_SECONDS)
        assert outcome, "the cancelled call's response never ended"
        assert outcome[0].status_code == 202
        assert outcome[0].content == b""
        assert outcome[0].headers["mcp-session-id"] == headers["mcp-session-id"]
        assert seen.cancelled.is_set()
        again = client.post("/mcp", json={**CALL_ADD, "id": 7}, headers=headers)
        assert again.status_code == 200
        assert again.content == ADD_RESULT.replace(b'"id":2', b'"id":7')


@pytest.mark.parametrize("json_response", [False, True])
def test_a_cancel_for_a_finished_call_changes_nothing(json_response: bool) -> None:
    seen = Seen()
    app = make_server(seen).http_app(json_response=json_response)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=WAIT_SECONDS) as client:
        headers = session_headers(client)
        first = client.post("/mcp", json=CALL_ADD, headers=headers)
        assert ADD_RESULT in first.content
        cancel(client, headers, 2)  # too late: answered already
        second = client.post("/mcp", json=CALL_ADD, headers=headers)
        assert second.status_code == 200
        assert ADD_RESULT in second.content
