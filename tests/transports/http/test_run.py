"""Serving under toolwire's own uvicorn server (`transports/http/run.py`), as real processes
on real sockets: the one line on stderr saying where MCP is served (the real port with port
0), the access log on request, the options that no longer exist, and SIGTERM with calls in
flight: answered within the grace, or refused with a JSON-RPC error once it runs out; idle
streams end at once; the process leaves with status 0.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _modern_support import enveloped, headers_for

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[3]
START_SECONDS = 60.0
STOP_SECONDS = 30.0
READ_SECONDS = 30.0
SERVING = re.compile(r"toolwire: serving MCP at http://127\.0\.0\.1:(\d+)(/[^\s;]*)(.*)\n")

APP = """
import os
import time

import anyio

from toolwire import Server

server = Server("winding", version="1.0")


def say_started() -> None:
    '''Write the mark the tests wait for in one write(2). With --workers, the processes share
    this stdout pipe, and print() sends a line's text and its newline apart when Python runs
    unbuffered (PYTHONUNBUFFERED): two marks could then interleave as "startedstarted" + two
    newlines, and the test waiting for two "started" lines would never see them.'''
    os.write(1, b"started\\n")


@server.tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b


@server.tool
async def slow(seconds: float) -> str:
    '''Take `seconds`, then answer.'''
    say_started()
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.tool
async def slow_then_finish(seconds: float) -> str:
    '''Take `seconds`, say "finished", then answer.'''
    say_started()
    await anyio.sleep(seconds)
    os.write(1, b"finished\\n")
    return f"slept {seconds}"


@server.tool
def slow_sync(seconds: float) -> str:
    '''Take `seconds` in a worker thread, then answer.'''
    say_started()
    time.sleep(seconds)
    return f"slept {seconds}"


if __name__ == "__main__":
    import sys

    server.run("http", port=0, access_log=sys.argv[1:] == ["log"])
"""

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class Served:
    """A server process that said where it serves; its stdout (the tools' marks) and stderr
    are read as they come."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
        env.pop("TOOLWIRE_LOG_LEVEL", None)
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self.out), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self.err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.first_line = self._wait_for(self.err, bool, START_SECONDS)[0]
        found = SERVING.fullmatch(self.first_line)
        assert found, self.first_line
        self.port = int(found.group(1))
        self.path = found.group(2)

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def _wait_for(self, lines: list[str], done: Any, seconds: float) -> list[str]:
        deadline = time.monotonic() + seconds
        while not done(lines):
            if self.process.poll() is not None and not done(lines):
                time.sleep(0.2)  # the readers may still be draining the pipes
                if done(lines):
                    break
                raise AssertionError(f"exited with {self.process.returncode}: {self._seen()}")
            assert time.monotonic() < deadline, f"waited {seconds:g} s: {self._seen()}"
            time.sleep(0.02)
        return lines

    def _seen(self) -> str:
        """Both streams so far, for a failure to say what was (and was not) written."""
        return f"stdout {''.join(self.out)!r}, stderr {''.join(self.err)!r}"

    def wait_started(self, count: int = 1) -> None:
        """Until `count` tool bodies have begun."""
        self._wait_for(self.out, lambda lines: lines.count("started\n") >= count, READ_SECONDS)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        code = self.process.wait(STOP_SECONDS)
        for reader in self._readers:
            reader.join(5)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(STOP_SECONDS)

    def stderr(self) -> str:
        return "".join(self.err)


@contextmanager
def served(command: list[str], cwd: Path) -> Iterator[Served]:
    server = Served(command, cwd)
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def app(tmp_path: Path) -> Path:
    path = tmp_path / "app.py"
    path.write_text(APP)
    return path


def _run(app: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "toolwire", "run", str(app), "--port", "0", *flags]


def _post(
    port: int, body: Any, session: str | None = None, *, seconds: float = READ_SECONDS
) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=seconds)
    try:
        headers = dict(HEADERS)
        if session is not None:
            headers["mcp-session-id"] = session
            headers["mcp-protocol-version"] = "2025-06-18"
        connection.request("POST", "/mcp", json.dumps(body), headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


def _messages(body: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a JSON body or of an SSE stream's `data:` lines."""
    if body.startswith("{"):
        return [json.loads(body)]
    return [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]


def _call(request_id: int, tool: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _initialized(port: int) -> str:
    status, headers, _ = _post(port, INIT)
    assert status == 200
    session = headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _post(port, note, session)[0] == 202
    return session


class InBackground:
    """A request made on a thread of its own; its outcome once it is over."""

    def __init__(self, work: Any) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self._thread.start()

    def _run(self, work: Any) -> None:
        try:
            self.result = work()
        except BaseException as error:
            self.error = error

    def outcome(self) -> Any:
        self._thread.join(READ_SECONDS)
        assert not self._thread.is_alive(), "the request never ended"
        if self.error is not None:
            raise self.error
        return self.result


# -- where it serves ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "path"),
    [(("--transport", "http"), "/mcp"), (("--transport", "sse"), "/sse")],
    ids=["http", "sse"],
)
def test_toolwire_run_says_once_where_it_serves_with_the_port_it_got(
    app: Path, flags: tuple[str, ...], path: str
) -> None:
    with served(_run(app, *flags), app.parent) as server:
        assert server.path == path
        assert server.port > 0
        if path == "/mcp":
            assert _post(server.port, INIT)[0] == 200
        assert server.stop() == 0
    expected = f"toolwire: serving MCP at http://127.0.0.1:{server.port}{path}; "
    assert server.stderr() == expected + "press Ctrl+C to stop\n"  # once; no access log
    assert server.out == []


def test_server_run_logs_each_request_when_asked(app: Path) -> None:
    with served([sys.executable, str(app), "log"], app.parent) as server:
        assert _post(server.port, INIT)[0] == 200
        assert _post(server.port, {"jsonrpc": "2.0", "id": 1, "method": "ping"})[0] == 200
        assert server.stop() == 0
    lines = server.stderr().splitlines()
    assert lines[0] == (
        f"toolwire: serving MCP at http://127.0.0.1:{server.port}/mcp; press Ctrl+C to stop"
    )
    request = r'127\.0\.0\.1:\d+ "POST /mcp HTTP/1\.1" 200 OK'
    assert len(lines) == 3, lines  # one line per request, nothing else
    assert all(re.fullmatch(request, line) for line in lines[1:]), lines


def test_server_run_has_no_access_log_by_default(app: Path) -> None:
    with served([sys.executable, str(app)], app.parent) as server:
        assert _post(server.port, INIT)[0] == 200
        assert server.stop() == 0
    assert server.stderr() == (
        f"toolwire: serving MCP at http://127.0.0.1:{server.port}/mcp; press Ctrl+C to stop\n"
    )


def test_stdio_says_nothing(app: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    env.pop("TOOLWIRE_LOG_LEVEL", None)
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "run", str(app)],
        input=json.dumps(INIT) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout)["result"]["serverInfo"]["name"] == "winding"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--access-log",), "toolwire run: --access-log needs --transport http or sse\n"),
        # --shutdown-grace is taken over stdio too (tests/transports/stdio), but checked as
        # a number of seconds whatever the transport.
        (
            ("--shutdown-grace", "-1"),
            "toolwire run: error: argument --shutdown-grace: ",
        ),
    ],
)
def test_serving_flags_need_a_network_transport(
    app: Path, flags: tuple[str, ...], message: str
) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "run", str(app), *flags],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert message in done.stderr, done.stderr


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_header_timeout_is_refused_naming_what_to_use_instead(app: Path, transport: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [*_run(app, "--transport", transport), "--header-timeout", "30"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "toolwire run: error: argument --header-timeout: no longer exists: uvicorn"
    )
    assert "nginx: client_header_timeout" in done.stderr
    assert done.stderr.count("\n") == 1


# -- SIGTERM with calls in flight ----------------------------------------------------------


@pytest.mark.parametrize("tool", ["slow", "slow_sync"])
@pytest.mark.parametrize(
    "flags", [(), ("--stateless",), ("--stateless", "--json-response")], ids=str
)
def test_a_call_in_flight_at_sigterm_is_answered(
    app: Path, flags: tuple[str, ...], tool: str
) -> None:
    # A grace far longer than the call: the call is answered however busy the machine is.
    command = _run(app, "--transport", "http", "--shutdown-grace", "60", *flags)
    with served(command, app.parent) as server:
        session = None if flags else _initialized(server.port)
        call = InBackground(lambda: _post(server.port, _call(7, tool, seconds=1.5), session))
        server.wait_started()
        code = server.stop()
        status, _, body = call.outcome()
    assert code == 0, server.stderr()
    assert status == 200
    reply = _messages(body)[-1]
    assert reply == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": [{"type": "text", "text": "slept 1.5"}], "isError": False},
    }
    assert "Traceback" not in server.stderr()


@pytest.mark.parametrize("flags", [(), ("--stateless",)], ids=["sessions", "stateless"])
def test_a_call_past_the_grace_is_refused_with_a_json_rpc_error(
    app: Path, flags: tuple[str, ...]
) -> None:
    command = _run(app, "--transport", "http", "--shutdown-grace", "0.5", *flags)
    with served(command, app.parent) as server:
        session = None if flags else _initialized(server.port)
        call = InBackground(lambda: _post(server.port, _call(9, "slow", seconds=3600), session))
        server.wait_started()
        code = server.stop()
        status, _, body = call.outcome()
    assert code == 0, server.stderr()
    assert status == 200
    reply = _messages(body)[-1]
    assert reply["id"] == 9 and "result" not in reply
    assert reply["error"]["code"] == -32000
    assert reply["error"]["message"] == (
        "Server is shutting down: the call did not finish within the 0.5 s shutdown grace "
        "period and was cancelled"
    )
    assert "1 call(s) still running after 0.5 s were cancelled" in server.stderr()


def test_a_call_whose_client_left_still_gets_the_grace_at_sigterm(app: Path) -> None:
    # A client that dropped its connection may resume the stream (MCP: a disconnection is
    # no cancellation), so its call is in flight like any other: uvicorn, having no
    # connection left to wait for, must not end the app before the grace is over.
    command = _run(app, "--transport", "http", "--shutdown-grace", "60")
    with served(command, app.parent) as server:
        session = _initialized(server.port)
        body = json.dumps(_call(5, "slow_then_finish", seconds=1.5)).encode()
        client = socket.create_connection(("127.0.0.1", server.port), timeout=READ_SECONDS)
        client.sendall(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            b"accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n"
            + f"mcp-session-id: {session}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        server.wait_started()
        client.close()
        code = server.stop()
    assert code == 0, server.stderr()
    assert "finished\n" in server.out, server.stderr()
    assert "were cancelled" not in server.stderr()


def _reply_of(sock: socket.socket) -> tuple[str, bytes]:
    """One response read off `sock` (its body framed by Content-Length): head, body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    found = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
    assert found, head
    length = int(found.group(1))
    while len(body) < length:
        body += sock.recv(65536)
    return head.decode(), body


def _wait_until_read(port: int, client: socket.socket) -> None:
    """Wait until the server listening on `port` has taken every byte `client` sent from its
    socket (its side's receive queue in /proc/net/tcp is empty): the request head is parsed."""
    client_port = client.getsockname()[1]
    deadline = time.monotonic() + READ_SECONDS
    while time.monotonic() < deadline:
        for fields in (row.split() for row in Path("/proc/net/tcp").read_text().splitlines()[1:]):
            local, remote = fields[1], fields[2]
            if int(local.rsplit(":", 1)[1], 16) == port and int(remote.rsplit(":", 1)[1], 16) == (
                client_port
            ):
                if int(fields[4].split(":")[1], 16) == 0:
                    return
                break
        time.sleep(0.01)
    raise AssertionError(f"the server on port {port} did not read what was sent in time")


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_a_post_whose_body_stalls_at_sigterm_is_refused_and_holds_nothing_up(
    app: Path, transport: str
) -> None:
    # Before the gate cut such a body, the request waited out the grace and uvicorn's own
    # timeout, then was cancelled: a 500 and "Exception in ASGI application" on stderr.
    command = _run(app, "--transport", transport, "--shutdown-grace", "60")
    with served(command, app.parent) as server:
        listener = None
        stalled = socket.create_connection(("127.0.0.1", server.port), timeout=READ_SECONDS)
        if transport == "http":
            session = _initialized(server.port)
            call = InBackground(lambda: _post(server.port, _call(7, "slow", seconds=1.5), session))
            server.wait_started()
            target = "/mcp"
        else:
            listener = socket.create_connection(("127.0.0.1", server.port), timeout=READ_SECONDS)
            listener.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            seen = b""
            while b"session_id=" not in seen or not seen.endswith(b"\n\n\r\n"):
                seen += listener.recv(65536)
            named = re.search(rb"session_id=(\w+)", seen)
            assert named, seen
            target = "/messages/?session_id=" + named.group(1).decode()
        # A whole request first: the connection is surely accepted before the signal.
        stalled.sendall(b"GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _reply_of(stalled)[0].startswith("HTTP/1.1 404 ")
        head = (
            f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json\r\nContent-Length: 100\r\n\r\n"
        )
        stalled.sendall(head.encode() + b'{"jsonrpc":')  # and never the rest
        # A head still unread at the signal would find the connection idle, and an idle
        # connection is closed without a reply: wait until the server has it.
        _wait_until_read(server.port, stalled)
        with stalled:
            server.process.send_signal(signal.SIGTERM)
            head_text, refusal = _reply_of(stalled)
        if transport == "http":
            status, _, body = call.outcome()
            assert status == 200  # the call whose body had arrived was served to the end
            assert _messages(body)[-1]["result"]["content"][0]["text"] == "slept 1.5"
        code = server.process.wait(STOP_SECONDS)
        if listener is not None:
            listener.close()
    assert head_text.startswith("HTTP/1.1 503 "), (head_text, refusal)
    assert "connection: close" in head_text.lower(), head_text
    assert json.loads(refusal) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32000, "message": "Server is shutting down: it takes no new requests"},
    }
    assert code == 0, server.stderr()
    assert "Traceback" not in server.stderr() and "ERROR" not in server.stderr()


def test_an_idle_get_stream_ends_at_once_while_a_call_finishes(app: Path) -> None:
    with served(_run(app, "--transport", "http"), app.parent) as server:
        session = _initialized(server.port)
        listener, stream = _open_get_stream(server.port, session)
        order: list[str] = []

        def call() -> tuple[int, dict[str, str], str]:
            answered = _post(server.port, _call(3, "slow", seconds=2), session)
            order.append("call answered")
            return answered

        def listen() -> bytes:
            rest = stream.read()  # until the stream ends
            order.append("stream ended")
            return rest

        running = InBackground(call)
        server.wait_started()
        listening = InBackground(listen)
        code = server.stop()
        listening.outcome()
        _, _, body = running.outcome()
        listener.close()
    assert code == 0, server.stderr()
    assert order == ["stream ended", "call answered"]
    assert _messages(body)[-1]["result"]["content"][0]["text"] == "slept 2.0"


def _open_get_stream(port: int, session: str) -> tuple[Any, Any]:
    listener = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_SECONDS)
    headers = {
        "accept": "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
    }
    listener.request("GET", "/mcp", headers=headers)
    stream = listener.getresponse()
    assert stream.status == 200
    return listener, stream


def test_a_request_once_the_winding_down_began_is_refused(app: Path) -> None:
    with served(_run(app, "--transport", "http"), app.parent) as server:
        session = _initialized(server.port)
        listener, stream = _open_get_stream(server.port, session)
        call = InBackground(lambda: _post(server.port, _call(2, "slow", seconds=2), session))
        server.wait_started()
        server.process.send_signal(signal.SIGTERM)
        stream.read()  # ended: the server is winding down, and the call still runs
        try:
            status, headers, body = _post(server.port, _call(4, "add", a=2, b=2), session)
            outcome: Any = (status, headers.get("connection"), json.loads(body))
        except ConnectionRefusedError:
            outcome = "connection refused"  # uvicorn closed its listening socket already
        answered = call.outcome()
        code = server.process.wait(STOP_SECONDS)
        listener.close()
    assert code == 0, server.stderr()
    assert _messages(answered[2])[-1]["result"]["content"][0]["text"] == "slept 2.0"
    refusal = {"code": -32000, "message": "Server is shutting down: it takes no new requests"}
    assert outcome in (
        "connection refused",
        (503, "close", {"jsonrpc": "2.0", "id": None, "error": refusal}),
    )


def test_each_worker_answers_its_call_in_flight_at_sigterm(app: Path) -> None:
    # A grace far longer than the calls: they are answered however busy the machine is.
    stateless = ("--transport", "http", "--stateless", "--json-response")
    flags = (*stateless, "--workers", "2", "--shutdown-grace", "60")
    with served(_run(app, *flags), app.parent) as server:
        assert server.first_line.endswith(" (2 worker processes); press Ctrl+C to stop\n")
        # The parent says where it serves before its workers have started (it queues what
        # comes): one answered ping first, so the calls' time bound is not spent starting
        # interpreters.
        ping = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
        assert _post(server.port, ping, seconds=START_SECONDS)[0] == 200
        calls = [
            InBackground(lambda n=n: _post(server.port, _call(n, "slow", seconds=1.5)))
            for n in (1, 2)
        ]
        server.wait_started(2)
        code = server.stop()
        replies = [_messages(call.outcome()[2])[-1] for call in calls]
    assert code == 0, server.stderr()
    assert [reply["id"] for reply in replies] == [1, 2]
    assert {reply["result"]["content"][0]["text"] for reply in replies} == {"slept 1.5"}


def test_a_legacy_sse_call_in_flight_at_sigterm_is_answered_on_its_stream(app: Path) -> None:
    with served(_run(app, "--transport", "sse", "--shutdown-grace", "60"), app.parent) as server:
        listener = http.client.HTTPConnection("127.0.0.1", server.port, timeout=READ_SECONDS)
        listener.request("GET", "/sse", headers={"accept": "text/event-stream"})
        stream = listener.getresponse()
        assert stream.status == 200
        endpoint = ""
        while not endpoint.startswith("data:"):
            endpoint = stream.readline().decode().strip()
        url = endpoint[5:].strip()

        def post(message: dict[str, Any]) -> int:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            connection.request("POST", url, json.dumps(message), HEADERS)
            status = connection.getresponse().status
            connection.close()
            return status

        assert post(INIT) == 202
        assert post({"jsonrpc": "2.0", "method": "notifications/initialized"}) == 202
        assert post(_call(5, "slow", seconds=1.5)) == 202
        server.wait_started()
        server.process.send_signal(signal.SIGTERM)
        rest = stream.read().decode()  # the stream ends after the call's reply
        code = server.process.wait(STOP_SECONDS)
        listener.close()
    assert code == 0, server.stderr()
    replies = [m for m in _messages(rest) if m.get("id") == 5]
    assert replies == [
        {
            "jsonrpc": "2.0",
            "id": 5,
            "result": {"content": [{"type": "text", "text": "slept 1.5"}], "isError": False},
        }
    ]


def _post_modern(port: int, request_id: int, tool: str, **arguments: Any) -> str:
    """A 2026-07-28 `tools/call` (no session: the envelope in `_meta`, the headers)."""
    params = enveloped(name=tool, arguments=arguments)
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_SECONDS)
    try:
        connection.request("POST", "/mcp", json.dumps(message), headers_for("tools/call", params))
        response = connection.getresponse()
        assert response.status == 200
        return response.read().decode()
    finally:
        connection.close()


@pytest.mark.parametrize("grace", ["60", "0.5"], ids=["answered", "refused"])
def test_a_2026_07_28_call_in_flight_at_sigterm(app: Path, grace: str) -> None:
    seconds = 1.5 if grace == "60" else 3600
    command = _run(app, "--transport", "http", "--shutdown-grace", grace)
    with served(command, app.parent) as server:
        call = InBackground(lambda: _post_modern(server.port, 11, "slow", seconds=seconds))
        server.wait_started()
        code = server.stop()
        reply = _messages(call.outcome())[-1]
    assert code == 0, server.stderr()
    assert reply["id"] == 11
    if grace == "60":
        assert reply["result"]["content"] == [{"type": "text", "text": "slept 1.5"}]
    else:
        assert reply["error"]["code"] == -32000
        assert "did not finish within the 0.5 s shutdown grace period" in reply["error"]["message"]
