"""A malformed `Last-Event-ID` is a 400 naming what was wrong, never a 500.

Sent over a raw socket (so that the exact bytes arrive: a latin-1 `²`, UTF-8 digits) on a
GET of a live session, with the memory event store and the Redis one, in each protocol
version of the handshake era; a GET naming the 2026-07-28 era is a 4xx as well. An id of
the right form that names nothing still opens the session's GET stream, as before.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from tests._jsonrpc import ACCEPT_HEADERS, initialize_request
from tests.redis._server import RedisServer
from tests.transports.http._http_harness import serving
from tests.transports.http._sessions import open_session

from toolwire import Server
from toolwire.redis import RedisBackplane

pytestmark = pytest.mark.timeout(120)

STREAM = "0123456789abcdef0123456789abcdef.00000000.g1"  # the shape of a GET stream's id


def _app(store: str, redis_url: str | None) -> Any:
    server = Server("resume")

    @server.tool
    def ping() -> str:
        """Answer."""
        return "pong"

    if store == "redis":
        assert redis_url is not None
        return server.http_app(backplane=RedisBackplane(redis_url, prefix="leid"))
    return server.http_app()


WELL_FORMED = {"memory": f"{STREAM}/5", "redis": f"{STREAM}/1-0"}  # of each store's form


@pytest.fixture(params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    url = None
    if request.param == "redis":
        redis_server: RedisServer = request.getfixturevalue("redis_server")
        url = redis_server.url
    with serving(_app(request.param, url)) as base:
        yield base, request.param


def _get(base: str, session: str, version: bytes, last: bytes) -> tuple[int, bytes]:
    """A GET with `Last-Event-ID: last`: its status and (for anything but a stream) body."""
    port = int(base.rsplit(":", 1)[1])
    head = (
        b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        b"Mcp-Session-Id: " + session.encode() + b"\r\nMCP-Protocol-Version: " + version + b"\r\n"
        b"Last-Event-ID: " + last + b"\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(head)
        raw = b""
        while b"\r\n\r\n" not in raw:
            chunk = sock.recv(65536)
            assert chunk, raw
            raw += chunk
        status = int(raw.split(b" ", 2)[1])
        if status == 200:
            return status, b""  # the session's stream: left open, closed with the socket
        while chunk := sock.recv(65536):
            raw += chunk
    return status, raw.partition(b"\r\n\r\n")[2]


MALFORMED = {
    "a 5,000-digit tail": (f"{STREAM}/".encode() + b"9" * 5000, b"at most 256"),
    "a superscript two (latin-1)": (f"{STREAM}/".encode() + b"\xb2", b"printable ASCII"),
    "a superscript two (UTF-8)": (f"{STREAM}/\u00b2".encode(), b"printable ASCII"),
    "Arabic-Indic digits": (f"{STREAM}/\u0663-0".encode(), b"printable ASCII"),
    "a 200-digit tail": (f"{STREAM}/".encode() + b"7" * 200, b"<stream>/"),
    "letters for a number": (f"{STREAM}/abc".encode(), b"<stream>/"),
    "no stream": (b"12", b"<stream>/"),
    "a tab inside": (f"{STREAM}/1\t2".encode(), b"printable ASCII"),
}


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_malformed_last_event_id_is_400_naming_the_problem(
    served: tuple[str, str], version: str
) -> None:
    base, store = served
    with httpx2.Client(base_url=base, timeout=20) as client:
        headers = {**ACCEPT_HEADERS, "mcp-protocol-version": version}
        session = open_session(client, headers, initialize_request(version=version))
    session_id = session["mcp-session-id"]
    for name, (value, problem) in MALFORMED.items():
        status, body = _get(base, session_id, version.encode(), value)
        assert status == 400, (name, status, body[:300])
        assert b"Bad Request: Last-Event-ID '" in body and problem in body, (name, body[:400])
    # Well formed, naming nothing of this session's: the GET stream opens, as it did.
    status, _ = _get(base, session_id, version.encode(), WELL_FORMED[store].encode())
    assert status == 200


def test_a_get_naming_the_2026_era_with_a_bad_last_event_id_is_a_4xx(
    served: tuple[str, str],
) -> None:
    base, _ = served
    with httpx2.Client(base_url=base, timeout=20) as client:
        session = open_session(client, ACCEPT_HEADERS)
    for value, _ in MALFORMED.values():
        status, body = _get(base, session["mcp-session-id"], b"2026-07-28", value)
        assert 400 <= status < 500, (status, body[:300])
