"""Header edge cases against a live handshake-era endpoint over real sockets.

A header that holds one value (`MCP-Protocol-Version`, `Last-Event-ID`) and comes twice reads
one way to a proxy that takes the first copy and another way to a server that takes the last:
it is a 400 naming it. `Accept` is a list, and a list may be split over lines (RFC 9110
section 5.3): its lines count together. In `Accept`, `q=0` means "not acceptable" and the most
specific range decides (RFC 9110 section 12.5.1). The 2026-07-28 era's own answers to
repeated headers are compared with the SDK's in test_modern_vs_sdk.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from tests._jsonrpc import ACCEPT_HEADERS, initialize_request
from tests.transports.http._http_harness import serving

from toolwire import Server

LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = Server("repeats")

    @server.tool
    def ping() -> str:
        """Answer."""
        return "pong"

    with serving(server.http_app()) as base:
        yield base + "/mcp"


def post(url: str, body: Any, headers: list[tuple[str, str]]) -> httpx2.Response:
    sent = [*ACCEPT_HEADERS.items(), *headers]
    return httpx2.post(url, content=json.dumps(body), headers=sent, timeout=10)


def open_session(url: str) -> str:
    reply = post(url, initialize_request(1), [])
    assert reply.status_code == 200, reply.text
    return reply.headers["mcp-session-id"]


def refusal(reply: httpx2.Response) -> str:
    assert reply.status_code == 400, reply.text
    message: str = reply.json()["error"]["message"]
    return message


@pytest.mark.parametrize(
    "versions", [("2025-06-18", "2025-11-25"), ("2025-11-25", "2025-11-25")], ids=str
)
def test_two_protocol_versions_on_a_post_are_refused(url: str, versions: tuple[str, str]) -> None:
    session = open_session(url)
    sent = [("mcp-session-id", session), *(("mcp-protocol-version", v) for v in versions)]
    reply = post(url, LIST, sent)
    assert refusal(reply) == (
        "Bad Request: the request has 2 MCP-Protocol-Version headers; send one"
    )


def test_an_old_version_first_is_not_served_in_the_old_era_with_a_modern_body(url: str) -> None:
    # The first copy routes the request, as the SDK's: a handshake version first keeps it in
    # the handshake era, where two copies are refused; before, the last copy chose the era.
    sent = [("mcp-protocol-version", "2025-11-25"), ("mcp-protocol-version", "2026-07-28")]
    reply = post(url, LIST, sent)
    assert refusal(reply).endswith("2 MCP-Protocol-Version headers; send one")


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_two_protocol_versions_on_a_get_or_delete_are_refused(url: str, method: str) -> None:
    session = open_session(url)
    headers = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-protocol-version", "2025-06-18"),
    ]
    reply = httpx2.request(method, url, headers=headers, timeout=10)
    assert refusal(reply) == (
        "Bad Request: the request has 2 MCP-Protocol-Version headers; send one"
    )
    assert httpx2.delete(url, headers={"mcp-session-id": session}).status_code == 200


def test_two_last_event_ids_are_refused(url: str) -> None:
    session = open_session(url)
    headers = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", session),
        ("last-event-id", "a"),
        ("last-event-id", "b"),
    ]
    reply = httpx2.get(url, headers=headers, timeout=10)
    assert refusal(reply) == "Bad Request: the request has 2 Last-Event-ID headers; send one"


def test_an_accept_list_split_over_two_lines_counts_whole(url: str) -> None:
    # The GET stream was refused (406) when the event stream was named on the first line only.
    session = open_session(url)
    headers = [
        ("accept", "text/event-stream"),
        ("accept", "application/json"),
        ("mcp-session-id", session),
    ]
    with httpx2.stream("GET", url, headers=headers, timeout=10) as stream:
        status, kind = stream.status_code, stream.headers.get("content-type")
    assert (status, kind) == (200, "text/event-stream")
    split = [("accept", "application/json"), ("accept", "text/event-stream")]
    reply = httpx2.post(
        url,
        content=json.dumps(LIST),
        headers=[("content-type", "application/json"), ("mcp-session-id", session), *split],
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "text/event-stream"  # both lines were read
    assert httpx2.delete(url, headers={"mcp-session-id": session}).status_code == 200


# (Accept, what a POST is answered with: "json", "sse" or 406)
ACCEPTS = [
    ("application/json;q=0", 406),
    ("application/json; q=0.000", 406),
    ("application/json;q=0, text/event-stream", "sse"),
    ("text/event-stream;q=0, application/json", "json"),
    ("application/json, text/event-stream;Q=0.0", "json"),
    ("*/*, application/json;q=0", "sse"),
    ("*/*;q=0, application/json", "json"),
    ("application/*;q=0, text/*", "sse"),
    ("text/*, text/event-stream;q=0, application/json", "json"),
    ("application/json;q=0.001", "json"),
    ("Application/JSON ; charset=utf-8", "json"),
    ("application/json;q=nonsense", "json"),
    ("application/json-seq", 406),
    ("application/jsonx", 406),
    ("application/*", "json"),
    ("*/*", "json"),
    ("text/*", "sse"),
]


@pytest.mark.parametrize(("accept", "answer"), ACCEPTS, ids=[a for a, _ in ACCEPTS])
def test_accept_qualities_decide_the_answer(url: str, accept: str, answer: str | int) -> None:
    headers = [("content-type", "application/json"), ("accept", accept)]
    reply = httpx2.post(url, content=json.dumps(LIST), headers=headers, timeout=10)
    if answer == 406:
        assert reply.status_code == 406, reply.text
        assert reply.json()["error"]["message"] == (
            "Not Acceptable: Client must accept application/json or text/event-stream"
        )
        return
    assert reply.status_code == 200, reply.text
    kinds = {"json": "application/json", "sse": "text/event-stream"}
    assert reply.headers["content-type"] == kinds[str(answer)]


@pytest.mark.parametrize(
    ("accept", "status"),
    [("text/event-stream;q=0", 406), ("*/*;q=0", 406), ("*/*, text/*;q=0", 406), ("text/*", 200)],
)
def test_a_get_stream_honors_q_zero(url: str, accept: str, status: int) -> None:
    session = open_session(url)
    headers = [("accept", accept), ("mcp-session-id", session)]
    with httpx2.stream("GET", url, headers=headers, timeout=10) as stream:
        assert stream.status_code == status
    assert httpx2.delete(url, headers={"mcp-session-id": session}).status_code == 200
