"""A live HTTP server process and a raw-socket HTTP/1.1 client, for tests that send what no
well-behaved client library would (bad headers, dribbled bodies, abandoned streams).

`LiveServer` runs tests/transports/http/_fuzz_server.py on a free 127.0.0.1 port, with its
output in a log file the tests read (an "Exception in ASGI application" there is a 500 that
the client may never have seen). `RawClient` writes requests byte for byte on a keep-alive
socket and parses the response itself: status, headers, and a body framed by Content-Length,
chunked transfer coding or the end of the connection. Every read has a timeout.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests._jsonrpc import encoded_request as rpc
from tests._listening import free_port
from tests.transports._proc import child_env

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
START_SECONDS = 30.0
READ_SECONDS = 15.0
MAX_REPLY = 8 * 1024 * 1024  # nothing the tests ask for is bigger
ACCEPT_BOTH = "application/json, text/event-stream"
VERSION = "2025-11-25"


class LiveServer:
    """`_fuzz_server.py` in a subprocess (start with `with`), listening on `self.port`."""

    def __init__(self, *flags: str) -> None:
        self.flags = flags
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._log_dir = tempfile.TemporaryDirectory(prefix="tw-live-")
        self.log_path = Path(self._log_dir.name) / "server.log"

    def __enter__(self) -> LiveServer:
        for _ in range(3):  # another process may take the free port first
            self.port = free_port()
            with self.log_path.open("ab") as log:
                self.process = subprocess.Popen(
                    [
                        sys.executable,
                        str(HERE / "_fuzz_server.py"),
                        "--port",
                        str(self.port),
                        *list(self.flags),
                    ],
                    cwd=ROOT,
                    env=child_env(),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            if self._wait_listening():
                return self
        raise RuntimeError(f"the server did not start: {self.log()}")

    def _wait_listening(self) -> bool:
        assert self.process is not None
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                time.sleep(0.05)
        self.process.kill()
        self.process.wait(10)
        return False

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self._log_dir.cleanup()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def rss_mib(self) -> float:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS line")


@dataclass
class Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> Any:
        return json.loads(self.body)

    def messages(self) -> list[Any]:
        """The JSON-RPC messages of the body: one JSON value, or the data of SSE events."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            # SSE ends lines with CR, LF or CRLF only (str.splitlines would also split on
            # U+0085 or U+2028, which JSON strings may hold unescaped).
            lines = re.split(r"\r\n|\r|\n", self.body.decode())
            return [
                json.loads(line[5:])
                for line in lines
                if line.startswith("data:") and line[5:].strip()
            ]
        return [self.json()]


class ConnectionClosed(Exception):
    """The server closed the connection before a complete response."""


class RawClient:
    """HTTP/1.1 over one keep-alive socket at a time (a new one after the server closes)."""

    def __init__(self, port: int, timeout: float = READ_SECONDS) -> None:
        self.port = port
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.buffer = b""

    def connect(self) -> socket.socket:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
            self.buffer = b""
        return self.sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def head(
        self,
        method: str,
        path: str = "/mcp",
        headers: list[tuple[str, str]] | None = None,
        *,
        host: str | None = "",
        length: int | None = None,
    ) -> bytes:
        """The bytes of a request head; `host=""`: 127.0.0.1:port, None: no Host header."""
        lines = [f"{method} {path} HTTP/1.1"]
        if host is not None:
            lines.append(f"Host: {host or f'127.0.0.1:{self.port}'}")
        lines += [f"{name}: {value}" for name, value in headers or []]
        if length is not None:
            lines.append(f"Content-Length: {length}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def request(
        self,
        method: str,
        headers: list[tuple[str, str]] | None = None,
        body: bytes = b"",
        *,
        path: str = "/mcp",
        host: str | None = "",
    ) -> Reply:
        """Send one request with a Content-Length body and read its whole response."""
        data = self.head(method, path, headers, host=host, length=len(body)) + body
        for attempt in range(2):  # a kept-alive socket the server has just closed: once more
            sock = self.connect()
            try:
                sock.sendall(data)
                return self.read_reply()
            except (ConnectionClosed, BrokenPipeError, ConnectionResetError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _fill(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionClosed
        self.buffer += chunk
        if len(self.buffer) > MAX_REPLY:
            raise AssertionError("response larger than the test's bound")

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def read_head(self) -> Reply:
        """Read a status line and headers (the body stays in the socket)."""
        status_line = self._line()
        parts = status_line.split(b" ", 2)
        assert parts[0].startswith(b"HTTP/1."), status_line
        reply = Reply(int(parts[1]))
        while line := self._line():
            name, _, value = line.partition(b":")
            reply.headers[name.decode("latin-1").strip().lower()] = value.decode().strip()
        return reply

    def read_reply(self) -> Reply:
        reply = self.read_head()
        if reply.headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while size := int(self._line().split(b";")[0], 16):
                parts.append(self._exactly(size))
                self._line()
            while self._line():  # trailers, then the blank line
                pass
            reply.body = b"".join(parts)
        elif "content-length" in reply.headers:
            reply.body = self._exactly(int(reply.headers["content-length"]))
        elif reply.status not in (204, 304) and not 100 <= reply.status < 200:
            try:
                while True:
                    self._fill()
            except ConnectionClosed:
                pass
            reply.body, self.buffer = self.buffer, b""
        if reply.headers.get("connection", "").lower() == "close":
            self.close()
        return reply


def mcp_headers(
    session: str | None = None, *, accept: str = ACCEPT_BOTH, version: str | None = VERSION
) -> list[tuple[str, str]]:
    headers = [("Content-Type", "application/json"), ("Accept", accept)]
    if version is not None:
        headers.append(("MCP-Protocol-Version", version))
    if session is not None:
        headers.append(("Mcp-Session-Id", session))
    return headers


def add_call(request_id: int = 1, a: int = 2, b: int = 3) -> bytes:
    return rpc("tools/call", {"name": "add", "arguments": {"a": a, "b": b}}, request_id)


INITIALIZE = rpc(
    "initialize",
    {
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"},
    },
    0,
)


def open_session(client: RawClient, extra: list[tuple[str, str]] | None = None) -> str:
    """initialize + notifications/initialized; the new session's id."""
    reply = client.request("POST", mcp_headers() + (extra or []), INITIALIZE)
    assert reply.status == 200, (reply.status, reply.body)
    session = reply.headers["mcp-session-id"]
    done = client.request(
        "POST",
        mcp_headers(session) + (extra or []),
        rpc("notifications/initialized", request_id=None),
    )
    assert done.status == 202, (done.status, done.body)
    return session


def assert_adds(
    client: RawClient, session: str | None = None, extra: list[tuple[str, str]] | None = None
) -> None:
    """A valid call succeeds: the server is still serving."""
    reply = client.request("POST", mcp_headers(session) + (extra or []), add_call(99, 20, 22))
    assert reply.status == 200, (reply.status, reply.body)
    [message] = [m for m in reply.messages() if m.get("id") == 99]
    assert message["result"]["content"][0]["text"] == "42", message
