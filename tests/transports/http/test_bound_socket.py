"""`bound_socket`: connections toolwire's uvicorn accepts have Nagle's algorithm off.

uvicorn writes a response's head and its body in two sends. With Nagle on, the body waits for
the client's delayed ACK of the head, which made every answer about 40 ms late when toolwire
bound its own socket (asyncio turns Nagle off only for sockets created with the TCP protocol
number). Checked on the listener and on a connection it accepted.
"""

from __future__ import annotations

import socket

import pytest
import uvicorn

from toolwire.transports.http.run import bound_socket


def _nodelay(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_the_listener_and_what_it_accepts_send_at_once() -> None:
    config = uvicorn.Config(app=None, host="127.0.0.1", port=0)
    listening = bound_socket(config)
    with listening:
        listening.listen(1)
        port = listening.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listening.accept()
            with accepted:
                assert _nodelay(listening) != 0
                assert _nodelay(accepted) != 0
                assert client.family == socket.AF_INET


def test_uvicorns_own_bind_leaves_nagle_on() -> None:
    # What bound_socket corrects: if uvicorn ever sets the option itself, this test says so
    # and bound_socket's line can go.
    config = uvicorn.Config(app=None, host="127.0.0.1", port=0)
    with config.bind_socket() as listening:
        if _nodelay(listening):
            pytest.skip("this uvicorn turns Nagle off by itself")
        assert _nodelay(listening) == 0
