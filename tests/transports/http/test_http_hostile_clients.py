"""Clients that misbehave at the socket level, against a live streamable-HTTP server process.

A 50 MB body (declared, and chunked without a length) is refused with 413 without being
buffered (the server's RSS is read before and after); clients that send a request one byte
at a time are answered, while many such clients dribble the others are still served; clients
that stop mid-body, or close the socket during an SSE answer (a POST's, a GET's) or before a
JSON one, leave the server serving and its log free of errors; bytes that are not HTTP at all
get a 4xx or a closed connection, never a 5xx. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import random
import select
import socket
import time
from collections.abc import Iterator

import pytest
from tests.transports.http._live import (
    LiveServer,
    RawClient,
    Reply,
    add_call,
    assert_adds,
    mcp_headers,
    open_session,
    rpc,
)
from tests.transports.http._verdicts import assert_refused, server_failures

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

FIFTY_MB = 50 * 1024 * 1024
RSS_SLACK_MIB = 16.0  # the default body limit is 4 MiB: a buffered 50 MB body cannot hide


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer() as live:
        yield live
        assert live.alive(), "the server died"
        assert not server_failures(live.log()), live.log()[-5000:]


@pytest.fixture(scope="module")
def json_server() -> Iterator[LiveServer]:
    with LiveServer("--stateless", "--json-response") as live:
        yield live
        assert live.alive(), "the server died"
        assert not server_failures(live.log()), live.log()[-5000:]


def _serving(server: LiveServer, session: str | None = None) -> None:
    with RawClient(server.port) as client:
        if session is None and "--stateless" not in server.flags:
            session = open_session(client)
        assert_adds(client, session)
    assert not server_failures(server.log()), server.log()[-5000:]


def _push(sock: socket.socket, total: int, *, chunked: bool) -> int:
    """Send up to `total` body bytes without blocking on a server that stopped reading;
    stop as soon as an answer is readable or the server closes. Returns the bytes sent."""
    block = b"x" * (256 * 1024)
    frame = b"%x\r\n%s\r\n" % (len(block), block) if chunked else block
    sent = 0
    sock.setblocking(False)
    try:
        while sent < total:
            readable, writable, _ = select.select([sock], [sock], [], 15)
            if readable:
                break
            if not writable:
                raise TimeoutError("the server neither reads nor answers")
            try:
                sent += sock.send(frame)
            except (BrokenPipeError, ConnectionResetError):
                break
    finally:
        sock.settimeout(15)
    return sent


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_fifty_megabyte_body_is_refused_unbuffered(server: LiveServer, chunked: bool) -> None:
    session = None
    with RawClient(server.port) as client:
        session = open_session(client)
    before = server.rss_mib()
    for _ in range(3):
        with RawClient(server.port) as client:
            sock = client.connect()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            headers = mcp_headers(session)
            if chunked:
                head = client.head("POST", "/mcp", [*headers, ("Transfer-Encoding", "chunked")])
            else:
                head = client.head("POST", "/mcp", headers, length=FIFTY_MB)
            start = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'
            if chunked:
                start = b"%x\r\n%s\r\n" % (len(start), start)
            sock.sendall(head + start)
            sent = _push(sock, FIFTY_MB, chunked=chunked)
            reply = client.read_reply()
        message = assert_refused(reply, 413, context=f"{reply}")
        assert "limit" in message and "bytes" in message, message
        assert sent < FIFTY_MB, "the server read the whole body before refusing it"
    after = server.rss_mib()
    print(
        f"50 MB bodies ({'chunked' if chunked else 'declared'}): RSS {before:.1f} -> {after:.1f} MiB"
    )
    assert after - before < RSS_SLACK_MIB, (before, after)
    _serving(server, session)


def _request_bytes(client: RawClient, session: str | None, request_id: int) -> bytes:
    body = add_call(request_id, request_id, 1)
    return client.head("POST", "/mcp", mcp_headers(session), length=len(body)) + body


def _answer(reply: Reply, request_id: int) -> str:
    assert reply.status == 200, reply
    [message] = [m for m in reply.messages() if m.get("id") == request_id]
    return str(message["result"]["content"][0]["text"])


def test_byte_at_a_time_clients_are_answered(server: LiveServer, json_server: LiveServer) -> None:
    for live in (server, json_server):
        with RawClient(live.port) as client:
            session = None if live is json_server else open_session(client)
            data = _request_bytes(client, session, 41)
            sock = client.connect()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for i in range(len(data)):
                sock.sendall(data[i : i + 1])
                time.sleep(0.001)
            assert _answer(client.read_reply(), 41) == "42"


def test_many_slow_clients_do_not_block_the_others(server: LiveServer) -> None:
    rng = random.Random("slow-clients")
    with RawClient(server.port) as setup:
        session = open_session(setup)
    dribblers = [RawClient(server.port) for _ in range(40)]
    payloads = [_request_bytes(d, session, 100 + i) for i, d in enumerate(dribblers)]
    offsets = [0] * len(dribblers)
    with contextlib.ExitStack() as stack, RawClient(server.port) as fast:
        for dribbler in dribblers:
            stack.enter_context(dribbler)
            dribbler.connect().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Every slow client sends part of its request, a byte at a time, round after round;
        # meanwhile another client is served as usual.
        for round_number in range(60):
            for i, dribbler in enumerate(dribblers):
                if offsets[i] < len(payloads[i]) - 5:
                    assert dribbler.sock is not None
                    dribbler.sock.sendall(payloads[i][offsets[i] : offsets[i] + 1])
                    offsets[i] += 1
            if round_number % 10 == 0:
                assert_adds(fast, session)
        # Half finish their requests and are answered; the others vanish mid-request.
        for i, dribbler in enumerate(dribblers):
            assert dribbler.sock is not None
            if i % 2 == 0:
                dribbler.sock.sendall(payloads[i][offsets[i] :])
                assert _answer(dribbler.read_reply(), 100 + i) == str(100 + i + 1)
            else:
                cut = rng.randint(offsets[i], len(payloads[i]) - 1)
                dribbler.sock.sendall(payloads[i][offsets[i] : cut])
                dribbler.close()
        assert_adds(fast, session)
    _serving(server, session)


def _read_events(client: RawClient, reply: Reply, count: int) -> None:
    """Read at least `count` SSE events of an answer whose head was read (then stop)."""
    assert reply.status == 200, reply
    assert reply.headers["content-type"].startswith("text/event-stream"), reply.headers
    deadline = time.monotonic() + 15
    while client.buffer.count(b"\n\n") < count and time.monotonic() < deadline:
        client._fill()


def _read_some_events(client: RawClient, count: int) -> Reply:
    """The head of an SSE answer and at least `count` of its events (then stop reading)."""
    reply = client.read_head()
    _read_events(client, reply, count)
    return reply


def _open_get(server: LiveServer, session: str, *, keep: bool = False) -> Reply:
    """Open the session's GET stream, retrying a 409 for up to 10 s; read its first event
    and leave (close the socket) unless `keep`, which closes it without reading."""
    deadline = time.monotonic() + 10
    while True:
        with RawClient(server.port) as client:
            client.connect().sendall(client.head("GET", "/mcp", mcp_headers(session)))
            reply = client.read_head()
            if reply.status == 200:
                if not keep:
                    _read_events(client, reply, 1)
                return reply
        if reply.status != 409 or time.monotonic() > deadline:
            return reply
        time.sleep(0.1)


def test_clients_vanishing_mid_stream(server: LiveServer, json_server: LiveServer) -> None:
    def drip_call(request_id: int) -> bytes:
        arguments = {"steps": 20, "delay": 0.05}
        params = {"name": "drip", "arguments": arguments, "_meta": {"progressToken": request_id}}
        return rpc("tools/call", params, request_id)

    drip = drip_call(7)
    with RawClient(server.port) as setup:
        session = open_session(setup)
    for i in range(30):  # during a POST's SSE answer: after the priming event and progress
        drip = drip_call(1000 + i)  # the calls go on after their clients left: distinct ids
        with RawClient(server.port) as client:
            client.connect().sendall(
                client.head("POST", "/mcp", mcp_headers(session), length=len(drip)) + drip
            )
            _read_some_events(client, 1 + i % 4)
    _serving(server, session)
    # During the session's GET stream. One GET stream at a time (409 for a second one), and
    # the server learns that a client left when it next reads or writes: each reconnection
    # may take a few tries (bounded), but it must be served in the end, never stuck at 409.
    for _ in range(20):
        reply = _open_get(server, session)
        assert reply.status == 200, reply
    reply = _open_get(server, session, keep=True)
    assert reply.status == 200, reply
    _serving(server, session)
    for _ in range(20):  # before a JSON answer
        with RawClient(json_server.port) as client:
            client.connect().sendall(
                client.head("POST", "/mcp", mcp_headers(None), length=len(drip)) + drip
            )
            time.sleep(0.02)
    for _ in range(20):  # mid-body
        with RawClient(server.port) as client:
            head = client.head("POST", "/mcp", mcp_headers(session), length=len(drip) + 100)
            client.connect().sendall(head + drip[:10])
    _serving(server, session)
    _serving(json_server)


NOT_HTTP = [
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32),  # a TLS ClientHello
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",  # the HTTP/2 preface
    b"GET\r\n\r\n",
    b"POST /mcp HTTP/9.9\r\nHost: x\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n",
    # A broken chunk after good headers: BROKEN_CHUNK_WITHOUT_ACCEPT below.
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \x00\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Big: " + b"a" * 70_000 + b"\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\n" + b"X: y\r\n" * 5000 + b"\r\n",
    b"\r\n\r\n\r\n",
    b"POST " + b"/" * 70_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
]


def _garbage_reply(port: int, data: bytes) -> int | None:
    """The status the server answers `data` with, or None if it just closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        # The server may answer and close before all is sent: the send then fails
        # (EPIPE, ECONNRESET), or the shutdown finds the socket no longer connected (ENOTCONN).
        with contextlib.suppress(OSError):
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        received = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                received += chunk
    if not received:
        return None
    status_line = received.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.1 "), received[:200]
    return int(status_line.split()[1])


def test_bytes_that_are_not_http(server: LiveServer) -> None:
    rng = random.Random("not-http")
    corpus = [*NOT_HTTP, *(rng.randbytes(rng.randint(1, 300)) for _ in range(85))]
    for data in corpus:
        status = _garbage_reply(server.port, data)
        assert status is None or 400 <= status < 500, (status, data[:100])
    _serving(server)


def test_sse_lines_survive_unicode_line_separators(server: LiveServer) -> None:
    """JSON may carry U+0085, U+2028 and U+2029 unescaped; SSE splits lines on CR and LF
    only, so a reply with them arrives whole (the client must not split on them)."""
    with RawClient(server.port) as client:
        session = open_session(client)
        for request_id in ("\x85", "\u2028", "a\u2029b"):
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode()
            reply = client.request("POST", mcp_headers(session), body)
            assert [m.get("id") for m in reply.messages()] == [request_id], reply


BROKEN_CHUNK_WITHOUT_ACCEPT = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
)


def test_broken_chunk_refused_before_the_body_logs_no_error() -> None:
    with LiveServer() as live:
        for _ in range(5):
            assert _garbage_reply(live.port, BROKEN_CHUNK_WITHOUT_ACCEPT) == 400
        _serving(live)
