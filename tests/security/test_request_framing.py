"""A request head that could be read two ways is refused, and its connection closed.

Both `Content-Length` and `Transfer-Encoding` (RFC 9112 section 6.1: a request may hide in
the body of another), two `Host`, `Origin` or `Content-Type` headers: each gets a 400 naming the
problem, with `Connection: close`, and the server closes the socket after it, so a request
sent behind it on the same connection is never served. Checked over raw sockets with
uvicorn's default HTTP implementation and each of h11 and httptools that is installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from tests._jsonrpc import initialize_request

from toolwire import Server

IMPLEMENTATIONS = [
    pytest.param(
        name,
        marks=pytest.mark.skipif(
            name != "auto" and importlib.util.find_spec(name) is None,
            reason=f"{name} is not installed",
        ),
    )
    for name in ("auto", "h11", "httptools")
]


@contextlib.contextmanager
def _serving(app: Any, http: str) -> Iterator[int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, http=http, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="module")
def app() -> Any:
    server = Server("framing")

    @server.tool
    def ping() -> str:
        """Answer."""
        return "pong"

    return server.http_app()


BODY = json.dumps(initialize_request()).encode()
CHUNKED = f"{len(BODY):x}\r\n".encode() + BODY + b"\r\n0\r\n\r\n"
HEAD = (
    b"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\n"
)
FOLLOWER = HEAD + b"Host: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY


def _exchange(port: int, request: bytes) -> tuple[bytes, bool]:
    """Send `request` and a well-formed one behind it; what came back, and whether the server
    closed the connection (rather than the wait running out)."""
    # Under uvicorn's keep-alive timeout (5 s), which would close an idle connection anyway.
    with socket.create_connection(("127.0.0.1", port), timeout=3) as sock:
        sock.sendall(request + FOLLOWER)
        received = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return received, False
            if not chunk:
                return received, True
            received += chunk


CASES = {
    "Content-Length and Transfer-Encoding": (
        HEAD
        + b"Host: 127.0.0.1\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n"
        % len(CHUNKED)
        + CHUNKED,
        "both Content-Length and Transfer-Encoding",
    ),
    "Transfer-Encoding and a short Content-Length": (
        HEAD
        + b"Host: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n"
        + CHUNKED,
        "both Content-Length and Transfer-Encoding",
    ),
    "two Hosts": (
        HEAD
        + b"Host: evil.example\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % len(BODY)
        + BODY,
        "2 Host headers",
    ),
    "two Origins": (
        HEAD
        + b"Host: 127.0.0.1\r\nOrigin: http://localhost\r\nOrigin: https://evil.example\r\n"
        + b"Content-Length: %d\r\n\r\n" % len(BODY)
        + BODY,
        "2 Origin headers",
    ),
    # Content-Type is one value (RFC 9110 section 8.3): a proxy reading the first copy saw a
    # form post, the endpoint read the last and parsed JSON.
    "two Content-Types": (
        b"POST /mcp HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Type: application/json\r\n"
        + b"Accept: application/json, text/event-stream\r\nHost: 127.0.0.1\r\n"
        + b"Content-Length: %d\r\n\r\n" % len(BODY)
        + BODY,
        "2 Content-Type headers",
    ),
    "two Content-Types, JSON first": (
        HEAD
        + b"Host: 127.0.0.1\r\nContent-Type: application/json-seq\r\n"
        + b"Content-Length: %d\r\n\r\n" % len(BODY)
        + BODY,
        "2 Content-Type headers",
    ),
}


@pytest.mark.parametrize("http", IMPLEMENTATIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_an_ambiguous_head_is_refused_and_its_connection_closed(
    app: Any, http: str, case: str
) -> None:
    request, problem = CASES[case]
    with _serving(app, http) as port:
        received, closed = _exchange(port, request)
    assert closed, f"the connection stayed open after: {received[:300]!r}"
    assert received.count(b"HTTP/1.1 ") == 1, received  # the request behind it was not served
    head, _, body = received.partition(b"\r\n\r\n")
    if b"Invalid HTTP request" in body:  # the HTTP parser refused it before the app saw it
        assert head.startswith(b"HTTP/1.1 400 "), head
        return
    assert head.startswith(b"HTTP/1.1 400 "), head
    assert b"\r\nconnection: close" in head.lower(), head
    message = json.loads(body)["error"]["message"]
    assert message.startswith("Bad Request: ") and problem in message, message


@pytest.mark.parametrize("http", IMPLEMENTATIONS)
def test_a_plain_request_keeps_its_connection(app: Any, http: str) -> None:
    with _serving(app, http) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(FOLLOWER + FOLLOWER)
            received = b""
            while received.count(b'"serverInfo"') < 2:
                chunk = sock.recv(65536)
                assert chunk, f"the connection closed: {received!r}"
                received += chunk
    assert received.count(b"HTTP/1.1 200 ") == 2


def test_server_run_closes_too() -> None:
    """`server.run("http")`, with uvicorn's default HTTP implementation: the same holds."""
    from tests.transports.http._live import LiveServer

    request, problem = CASES["Content-Length and Transfer-Encoding"]
    with LiveServer() as live:
        received, closed = _exchange(live.port, request)
    assert closed, f"the connection stayed open after: {received[:300]!r}"
    assert received.count(b"HTTP/1.1 ") == 1, received
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"\r\nconnection: close" in head.lower(), head
    if body != b"Invalid HTTP request received.":  # else httptools refused it before the app
        assert problem in json.loads(body)["error"]["message"]


@pytest.mark.parametrize("http", IMPLEMENTATIONS)
def test_the_legacy_sse_app_refuses_two_content_types_too(http: str) -> None:
    server = Server("framing-sse")
    request = (
        b"POST /messages/?session_id=" + b"0" * 32 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY
    )
    with _serving(server.sse_app(), http) as port:
        received, closed = _exchange(port, request)
    assert closed
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), head
    assert json.loads(body)["error"]["message"] == (
        "Bad Request: the request has 2 Content-Type headers; send one"
    )
