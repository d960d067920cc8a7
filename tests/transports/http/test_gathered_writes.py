"""One send per response: what a connection writes in one pass of the event loop leaves in one
TCP segment, counted by the receiving socket's kernel (TCP_INFO `tcpi_data_segs_in`).

Over real loopback sockets: a `toolwire` HTTP server process answering with keep-alive and
with `Connection: close`, and `GatheredWrites` over an asyncio server's own transport
(large writes, close and abort in the same pass as the writes)."""

from __future__ import annotations

import asyncio
import socket
import struct
import sys
from collections.abc import Callable

import pytest
from tests.transports.http._live import LiveServer, RawClient, add_call, mcp_headers

from toolwire.transports.http._gathered_writes import HOLD_BYTES, GatheredWrites

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(sys.platform != "linux", reason="TCP_INFO's layout is Linux's"),
]

DATA_SEGS_IN_OFFSET = 152  # struct tcp_info: tcpi_data_segs_in (Linux 4.6 and later)


def data_segments_in(sock: socket.socket) -> int:
    """TCP segments carrying data that `sock` has received so far."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return int(struct.unpack_from("I", info, DATA_SEGS_IN_OFFSET)[0])


def test_each_json_answer_arrives_in_one_segment() -> None:
    calls = 20
    with LiveServer("--stateless", "--json-response") as server, RawClient(server.port) as client:
        for n in range(calls):
            reply = client.request("POST", mcp_headers(), add_call(request_id=n, a=n, b=1))
            assert reply.status == 200, reply
            assert f'"text":"{n + 1}"' in reply.body.decode(), reply.body
        assert client.sock is not None
        # Head and body were two segments each before (uvicorn writes them apart).
        assert data_segments_in(client.sock) == calls


def test_an_answer_then_close_arrives_whole() -> None:
    with LiveServer("--stateless", "--json-response") as server, RawClient(server.port) as client:
        headers = [*mcp_headers(), ("Connection", "close")]
        reply = client.request("POST", headers, add_call(a=40, b=2))
        assert reply.status == 200
        assert reply.headers["connection"] == "close"
        assert '"text":"42"' in reply.body.decode()
        assert client.sock is None  # closed after the reply, as the server said


async def _serve_once(
    act: Callable[[GatheredWrites, asyncio.Transport], None],
) -> tuple[bytes, int]:
    """An asyncio server that runs `act` on its first connection's transport (wrapped) in
    one callback; returns what a plain socket client received and in how many segments."""
    loop = asyncio.get_running_loop()

    class Once(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            act(GatheredWrites(transport, loop), transport)

    server = await loop.create_server(Once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = socket.socket()
    client.setblocking(False)
    try:
        await loop.sock_connect(client, ("127.0.0.1", port))
        received = bytearray()
        async with asyncio.timeout(10):
            while chunk := await loop.sock_recv(client, 1 << 20):
                received += chunk
        return bytes(received), data_segments_in(client)
    except ConnectionResetError:
        return bytes(received), data_segments_in(client)
    finally:
        client.close()
        server.close()
        await server.wait_closed()


def test_writes_of_one_pass_leave_together_before_a_close() -> None:
    def act(writes: GatheredWrites, transport: asyncio.Transport) -> None:
        writes.write(b"HTTP/1.1 200 OK\r\n\r\n")
        writes.writelines([b"one ", bytearray(b"two "), memoryview(b"three")])
        writes.write(b"")
        writes.close()

    received, segments = asyncio.run(_serve_once(act))
    assert received == b"HTTP/1.1 200 OK\r\n\r\none two three"
    assert segments == 1


def test_a_hold_past_its_bound_reaches_the_transport_at_once() -> None:
    body = bytes(range(256)) * (2 * HOLD_BYTES // 256)
    seen: list[int] = []

    def act(writes: GatheredWrites, transport: asyncio.Transport) -> None:
        writes.write(b"head")
        seen.append(writes.get_write_buffer_size() - transport.get_write_buffer_size())
        writes.write(body)
        seen.append(writes.get_write_buffer_size() - transport.get_write_buffer_size())
        writes.write_eof()

    received, _ = asyncio.run(_serve_once(act))
    assert seen == [4, 0]  # held, then handed over within the same pass
    assert received == b"head" + body


def test_an_abort_drops_what_is_held() -> None:
    def act(writes: GatheredWrites, transport: asyncio.Transport) -> None:
        writes.write(b"never sent")
        writes.abort()

    received, segments = asyncio.run(_serve_once(act))
    assert received == b""
    assert segments == 0
