"""`Server.run("http", workers=N)` from a script run as `python app.py` (or `python -m pkg`,
or imported from `python -c`): both workers serve, SIGTERM stops everything with status 0, an open GET stream in a worker is ended cleanly by
the first signal (not cut by uvicorn's graceful timeout), and what workers cannot rebuild is
refused with a message naming the fix."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from tests._jsonrpc import initialize_request
from tests.scale import _processes
from tests.scale._processes import ManagedProcess, free_port, group_members

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

ROOT = Path(__file__).resolve().parents[2]
READ_SECONDS = 30.0  # a bound on every socket read, far above any expected wait

APP = """
import os
import sys

from toolwire import Server

server = Server("py-workers")


@server.tool
def whoami(n: int = 0) -> str:
    '''This process's pid, and `n` back.'''
    return f"{os.getpid()}:{n}"


if __name__ == "__main__":
    mode = sys.argv[2]
    server.run(
        "http",
        host="127.0.0.1",
        port=int(sys.argv[1]),
        workers=2,
        stateless=mode == "stateless",
        json_response=mode == "stateless",
    )
"""

UNGUARDED = """
import sys
from toolwire import Server

server = Server("unguarded")
server.run("http", host="127.0.0.1", port=int(sys.argv[1]), workers=2, stateless=True)
"""

LATE_TOOL = """
import sys
from toolwire import Server

server = Server("late")

if __name__ == "__main__":
    server.add_tool(lambda: 1, name="added_late")
    server.run("http", host="127.0.0.1", port=int(sys.argv[1]), workers=2, stateless=True)
"""

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.pop("TOOLWIRE_LOG_LEVEL", None)
    return env


def _start(
    cwd: Path, how: tuple[str, ...], *args: str, wait: bool = True
) -> tuple[ManagedProcess, int]:
    """`python HOW... PORT ARGS...` in `cwd`, in its own process group; waits until it
    answers (unless not `wait`)."""
    for attempt in range(_processes.PORT_ATTEMPTS):
        port = free_port()
        workdir = _processes.new_workdir("tw-pyworkers-")
        log = workdir / "output.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, *how, str(port), *args],
                cwd=cwd,
                env=_env(),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        managed = ManagedProcess(process, workdir)
        if not wait:
            return managed, port
        try:
            _processes.wait_until_answering(process, port, "/mcp", log, " ".join(how))
            return managed, port
        except _processes.Exited:
            text = managed.log_text()
            managed.kill()
            if (
                "address already in use" not in text.lower()
                or attempt + 1 == _processes.PORT_ATTEMPTS
            ):
                raise
    raise AssertionError("unreachable")


def _pid_over_new_connection(port: int, n: int) -> int:
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "whoami", "arguments": {"n": n}},
    }
    url = f"http://127.0.0.1:{port}/mcp"
    response = httpx2.post(url, headers=HEADERS, content=json.dumps(message), timeout=20)
    pid, echoed = response.json()["result"]["content"][0]["text"].split(":")
    assert int(echoed) == n
    return int(pid)


IMPORTED = (
    "-c",
    "import sys, served; served.server.run('http', host='127.0.0.1', port=int(sys.argv[1]), "
    "workers=2, stateless=True, json_response=True)",
)


@pytest.mark.parametrize(
    ("how", "where"),
    [
        (("app.py",), "app.py"),  # `python app.py`: the workers find it in their __main__
        (("-m", "pkg"), "pkg/__main__.py"),  # a package's __main__, which spawn skips
        (IMPORTED, "served.py"),  # imported from `python -c`: found in its own module
    ],
)
def test_server_run_with_two_workers_serves_from_both_and_stops_with_status_0(
    tmp_path: Path, how: tuple[str, ...], where: str
) -> None:
    script = tmp_path / where
    script.parent.mkdir(exist_ok=True)
    script.write_text(APP)
    if where.startswith("pkg/"):
        (script.parent / "__init__.py").write_text("")
    managed, port = _start(tmp_path, how, "stateless")
    workers = {pid for pid, ppid, _ in group_members(managed.pid) if ppid == managed.pid}
    seen: set[int] = set()
    for n in range(200):  # bounded: stop once both workers have answered
        seen.add(_pid_over_new_connection(port, n))
        if len(seen) == 2:
            break
    assert len(seen) == 2, seen
    assert managed.pid not in seen and seen <= workers, (seen, workers)

    os.kill(managed.pid, signal.SIGTERM)
    assert managed.process.wait(timeout=_processes.STOP_SECONDS) == 0, managed.log_text()
    assert _processes.wait_until_group_gone(managed.pid) == []
    # Stateless: no warning; one line says where, no traceback.
    serving = f"http://127.0.0.1:{port}/mcp (2 worker processes); press Ctrl+C to stop\n"
    assert managed.log_text() == "toolwire: serving MCP at " + serving


def _open_get_stream(port: int) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """Initialize a session and open its GET stream, all on one connection (so on one
    worker: the kernel hands a connection to one worker for its whole life)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_SECONDS)
    initialize = initialize_request(client="probe")
    connection.request("POST", "/mcp", json.dumps(initialize), HEADERS)
    response = connection.getresponse()
    assert response.status == 200, response.read()
    session = response.getheader("mcp-session-id")
    assert session
    response.read()
    headers = {**HEADERS, "Mcp-Session-Id": session}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    connection.request("POST", "/mcp", json.dumps(initialized), headers)
    response = connection.getresponse()
    assert response.status == 202
    response.read()
    connection.request("GET", "/mcp", headers={**headers, "Accept": "text/event-stream"})
    stream = connection.getresponse()
    assert stream.status == 200
    assert stream.getheader("content-type", "").startswith("text/event-stream")
    return connection, stream


def test_sigterm_ends_an_open_get_stream_in_a_worker_cleanly(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    managed, port = _start(tmp_path, ("app.py",), "sessions")
    connection, stream = _open_get_stream(port)
    try:
        os.kill(managed.pid, signal.SIGTERM)
        # The stream ends with its last chunk (a cancelled response would stop mid-stream:
        # IncompleteRead) and well within the read bound.
        rest = stream.read()
    finally:
        connection.close()
    assert b"event: error" not in rest
    assert managed.process.wait(timeout=_processes.STOP_SECONDS) == 0, managed.log_text()
    assert _processes.wait_until_group_gone(managed.pid) == []
    log = managed.log_text()
    assert "timeout graceful shutdown exceeded" not in log, log  # nothing left to cancel
    assert "Traceback" not in log, log
    assert "workers=2) without stateless=True" in log  # the sessions warning, Python's words
    assert "Use stateless=True" in log and "(backplane=URL)" in log


def test_run_outside_the_main_guard_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    (tmp_path / "unguarded.py").write_text(UNGUARDED)
    managed, _ = _start(tmp_path, ("unguarded.py",), wait=False)
    assert managed.process.wait(timeout=60) == 1, managed.log_text()
    assert _processes.wait_until_group_gone(managed.pid) == []
    log = managed.log_text()
    assert "ran again in a worker process" in log, log
    assert 'under `if __name__ == "__main__":`' in log


def test_a_tool_added_under_the_main_guard_stops_the_workers_naming_it(tmp_path: Path) -> None:
    (tmp_path / "late.py").write_text(LATE_TOOL)
    managed, _ = _start(tmp_path, ("late.py",), wait=False)
    assert managed.process.wait(timeout=60) == 1, managed.log_text()
    assert _processes.wait_until_group_gone(managed.pid) == []
    log = managed.log_text()
    assert "without the tools added_late" in log, log
    assert "add tools at module level" in log
