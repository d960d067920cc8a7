"""`Server.run("http", header_timeout=S)`: a real server process closes raw connections
that never finish their request head (silent, trickling a header line at a time, or a
second request begun on a kept-alive connection) while normal requests, and a call that
outlasts the deadline once its head is in, keep working."""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from tests._listening import closed_by_server, free_port, listening

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
READ_SECONDS = 30.0  # far above the deadline under test: a bound, not a measurement
TRICKLES = 300  # header lines sent 0.1 s apart at most: ends the loop if nothing closes

APP = """
import sys
import time

from toolwire import Server

server = Server("heads")


@server.tool
def slow() -> str:
    '''Answer after the header deadline has passed.'''
    time.sleep(2.5)
    return "done"


if __name__ == "__main__":
    server.run(
        "http", port=int(sys.argv[1]), stateless=True, json_response=True, header_timeout=1
    )
"""

HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    script = tmp_path_factory.mktemp("heads") / "app.py"
    script.write_text(APP)
    free = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    with listening([sys.executable, str(script), str(free)], free, env=env):
        yield free


def _call(port: int) -> str:
    response = httpx2.post(
        f"http://127.0.0.1:{port}/mcp", headers=HEADERS, content=json.dumps(CALL), timeout=30
    )
    return str(response.json()["result"]["content"][0]["text"])


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        assert closed_by_server(sock, READ_SECONDS)


def test_a_head_trickled_line_by_line_is_closed(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(HEAD)
        closed = False
        for n in range(TRICKLES):
            try:
                sock.sendall(f"X-Slow-{n}: 1\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            sock.settimeout(0.1)
            try:
                if sock.recv(1024) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
        assert closed, "the server kept a never-ending head open"


def test_a_second_head_begun_on_a_kept_alive_connection_is_closed(port: int) -> None:
    body = json.dumps({**CALL, "method": "tools/list", "params": {}}).encode()
    head = HEAD + b"".join(f"{k}: {v}\r\n".encode() for k, v in HEADERS.items())
    request = head + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(READ_SECONDS)
        sock.sendall(request)
        with sock.makefile("rb") as answer:
            assert answer.readline().startswith(b"HTTP/1.1 200")
            length = 0
            for _ in range(100):  # the response's header lines, bounded
                line = answer.readline()
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b""):
                    break
            assert json.loads(answer.read(length))["result"]["tools"][0]["name"] == "slow"
        sock.sendall(HEAD)  # the next request's head, never finished
        assert closed_by_server(sock, READ_SECONDS)


def test_normal_requests_and_a_call_longer_than_the_deadline_still_work(port: int) -> None:
    slow_heads = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    try:
        for sock in slow_heads:
            sock.sendall(HEAD)
        assert _call(port) == "done"  # its head was complete: the 2.5 s call is not cut
        assert _call(port) == "done"
    finally:
        for sock in slow_heads:
            sock.close()
