"""A tool that reports progress in a tight loop to a client that stops reading: the server's
memory stays bounded and the tool waits for the client; once the client reads again, every
notification arrives, in order, and then the reply.

A live server process and raw sockets on 127.0.0.1; the server's RSS is read from /proc.
"""

from __future__ import annotations

import json
import socket
import time

import pytest
from tests._jsonrpc import encoded_request as rpc
from tests.transports.http._live import LiveServer, RawClient, mcp_headers

COUNT = 5000
SIZE = 10_000  # 5,000 reports of 10 kB: 50 MB of notifications
GROWTH_BOUND_MIB = 40.0  # it grew by about 290 MiB when frames piled up in a list
POLL_SECONDS = 0.2
BOUND_SECONDS = 120.0  # only ever reached when something is wrong


def _reports(client: RawClient, session: str | None, request_id: int) -> int:
    call = rpc("tools/call", {"name": "flooded", "arguments": {}}, request_id)
    reply = client.request("POST", mcp_headers(session, accept="application/json"), call)
    assert reply.status == 200, (reply.status, reply.body)
    return int(reply.json()["result"]["structuredContent"]["result"])


def _settled_reports(client: RawClient, session: str | None) -> int:
    """The tool's report count once it has stopped moving (or reached COUNT)."""
    deadline = time.monotonic() + BOUND_SECONDS
    last, same = -1, 0
    request_id = 100
    while time.monotonic() < deadline:
        request_id += 1
        now = _reports(client, session, request_id)
        if now == COUNT:
            return now
        same = same + 1 if now == last else 0
        if same >= 5:
            return now
        last = now
        time.sleep(POLL_SECONDS)
    raise AssertionError("the report count never settled")


class _Dechunker:
    """The body of a chunked response, as its bytes arrive."""

    def __init__(self) -> None:
        self.raw = b""
        self.left = 0  # bytes of the current chunk still to come; -2: its CRLF; -1: ended

    def feed(self, data: bytes) -> bytes:
        self.raw += data
        out = []
        while True:
            if self.left == -1:
                break
            if self.left > 0:
                take = self.raw[: self.left]
                self.raw = self.raw[len(take) :]
                self.left -= len(take)
                out.append(take)
                if self.left:
                    break
                self.left = -2  # its CRLF
            if self.left == -2:
                if len(self.raw) < 2:
                    break
                assert self.raw[:2] == b"\r\n"
                self.raw, self.left = self.raw[2:], 0
            line_end = self.raw.find(b"\r\n")
            if line_end < 0:
                break
            self.left = int(self.raw[:line_end].split(b";")[0], 16)
            self.raw = self.raw[line_end + 2 :]
            if not self.left:  # the last chunk: what follows is not this body
                self.left = -1
                break
        return b"".join(out)


def _read_events(sock: socket.socket, pending: bytes) -> tuple[list[float], str]:
    """Read the rest of the SSE answer: the progress values, then the reply's text."""
    progress: list[float] = []
    body = _Dechunker()
    buffer = body.feed(pending)
    while True:
        lines = buffer.split(b"\n")
        buffer = lines.pop()
        for line in lines:
            if not line.startswith(b"data: ") or not line[6:].strip():
                continue  # not data, or the priming event's empty data
            message = json.loads(line[6:])
            if message.get("method") == "notifications/progress":
                assert len(message["params"]["message"]) == SIZE
                progress.append(message["params"]["progress"])
            elif "result" in message:
                return progress, message["result"]["content"][0]["text"]
        chunk = sock.recv(1 << 20)
        assert chunk, "the server closed the stream before the reply"
        buffer += body.feed(chunk)


@pytest.mark.timeout(300)
def test_a_client_that_stops_reading_slows_the_tool_not_the_server() -> None:
    # Stateless: no event store keeps the notifications for a resumption (a store holds up
    # to its own documented bound, `MemoryEventStore.max_bytes`).
    with LiveServer("--stateless") as server, RawClient(server.port, timeout=60) as poller:
        session = None
        watching = None
        assert _reports(poller, watching, 2) == 0
        before = server.rss_mib()
        flooder = RawClient(server.port, timeout=60)
        sock = flooder.connect()
        call = rpc(
            "tools/call",
            {
                "name": "flood",
                "arguments": {"count": COUNT, "size": SIZE},
                "_meta": {"progressToken": "p"},
            },
            3,
        )
        sock.sendall(flooder.head("POST", headers=mcp_headers(session), length=len(call)) + call)
        head = flooder.read_head()
        assert head.status == 200
        assert head.headers["content-type"].startswith("text/event-stream")
        # The client reads nothing more: the tool must come to wait for it.
        reports = _settled_reports(poller, watching)
        grown = server.rss_mib() - before
        assert reports < COUNT, "the tool ran to its end while nobody read its notifications"
        assert grown < GROWTH_BOUND_MIB, f"the server grew by {grown:.0f} MiB"
        # Reading again: everything arrives, the tool finishes, the server is still bounded.
        chunked = flooder.buffer
        progress, text = _read_events(sock, chunked)
        flooder.close()
        assert server.rss_mib() - before < GROWTH_BOUND_MIB
    assert text == f"flooded {COUNT}"
    assert progress == [float(step) for step in range(1, COUNT + 1)]
