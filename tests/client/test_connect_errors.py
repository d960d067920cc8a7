"""What `connect()` says when an HTTP server cannot be reached or refuses the handshake: the
Agents SDK's words where it has them ("HTTP error 502 (Bad Gateway)", "Could not reach the
server."), and the status where the SDK lets a raw exception group escape (a 401 or 404).

The refusing server is a plain socket server answering every POST with one status line and a
text body, as a proxy or a wrong URL would; the SDK's adapter meets the same server."""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import agents.mcp
import pytest
from tests._listening import free_port
from tests.client._support import bounded

import toolwire


class _Refusing(socketserver.StreamRequestHandler):
    status = b"502 Bad Gateway"

    def handle(self) -> None:
        length = 0
        while True:
            line = self.rfile.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        self.rfile.read(length)
        self.wfile.write(
            b"HTTP/1.1 " + self.status + b"\r\nContent-Type: text/plain\r\n"
            b"Content-Length: 4\r\nConnection: close\r\n\r\nnope"
        )


@contextmanager
def refusing(status: bytes) -> Iterator[int]:
    """A server on a free loopback port answering every request with `status`."""
    handler = type("Handler", (_Refusing,), {"status": status})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def _failure(cls: Any, url: str) -> tuple[type[BaseException], str]:
    server = cls(params={"url": url, "timeout": 5}, name="far")
    try:
        await server.connect()
    except BaseException as error:  # the SDK lets exception groups out for some statuses
        return type(error), str(error)
    finally:
        await server.cleanup()
    raise AssertionError(f"{cls.__name__} connected to {url}")


PAIRS = [
    (agents.mcp.MCPServerStreamableHttp, toolwire.MCPServerStreamableHttp, "/mcp"),
    (agents.mcp.MCPServerSse, toolwire.MCPServerSse, "/sse"),
]


@pytest.mark.parametrize("theirs, ours, path", PAIRS, ids=["streamable-http", "sse"])
@pytest.mark.parametrize("status", [b"500 Internal Server Error", b"502 Bad Gateway", b"503 Busy"])
def test_a_handshake_refused_with_a_server_error_reads_as_the_sdk_says(
    theirs: Any, ours: Any, path: str, status: bytes
) -> None:
    with refusing(status) as port:
        url = f"http://127.0.0.1:{port}{path}"
        sdk = bounded(lambda: _failure(theirs, url), 60)
        mine = bounded(lambda: _failure(ours, url), 60)
    expected = f"Failed to connect to MCP server 'far': HTTP error {status.decode()[:3]} ("
    assert sdk[1] == f"{expected}{status.decode()[4:]})"
    assert mine == (toolwire.MCPCallError, sdk[1])


@pytest.mark.parametrize("theirs, ours, path", PAIRS, ids=["streamable-http", "sse"])
def test_a_server_that_is_not_there_reads_as_the_sdk_says(
    theirs: Any, ours: Any, path: str
) -> None:
    url = f"http://127.0.0.1:{free_port()}{path}"
    sdk = bounded(lambda: _failure(theirs, url), 60)
    mine = bounded(lambda: _failure(ours, url), 60)
    assert sdk[1] == "Failed to connect to MCP server 'far': Could not reach the server."
    assert mine == (toolwire.MCPCallError, sdk[1])


@pytest.mark.parametrize("cls, path", [(p[1], p[2]) for p in PAIRS], ids=["streamable-http", "sse"])
@pytest.mark.parametrize("status", [b"401 Unauthorized", b"403 Forbidden", b"404 Not Found"])
def test_a_handshake_refused_with_a_client_error_names_the_status(
    cls: Any, path: str, status: bytes
) -> None:
    # The SDK lets an exception group out here (streamable HTTP); toolwire says what it got.
    with refusing(status) as port:
        error = bounded(lambda: _failure(cls, f"http://127.0.0.1:{port}{path}"), 60)
    code, phrase = status.decode().split(" ", 1)
    assert error == (
        toolwire.MCPCallError,
        f"Failed to connect to MCP server 'far': HTTP error {code} ({phrase})",
    )


def test_a_json_rpc_error_in_a_refusal_is_still_the_servers_word() -> None:
    # A 4xx with a JSON-RPC error body is the server speaking (a version it refuses, say):
    # its message is shown, not the status.
    body = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no such tenant"}}'

    class Handler(_Refusing):
        def handle(self) -> None:
            length = 0
            while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            self.rfile.read(length)
            self.wfile.write(
                b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
        kind, text = bounded(lambda: _failure(toolwire.MCPServerStreamableHttp, url), 60)
    finally:
        server.shutdown()
        server.server_close()
    assert kind is toolwire.MCPCallError
    assert text == "Failed to connect to MCP server 'far': no such tenant"


def test_the_refusing_server_is_a_real_http_server() -> None:
    # The fixture itself: a plain HTTP client gets the status line it was given.
    with refusing(b"502 Bad Gateway") as port, socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        assert s.recv(64).startswith(b"HTTP/1.1 502 Bad Gateway\r\n")
