"""A serving process that toolwire owns freezes its settled heap once (transports/_process.py), so
the collector's full passes stop walking every module, class and validator; a process that
only mounts toolwire's app, or says TOOLWIRE_GC_FREEZE=0, keeps its collector as it was.

Each server is a real process with a `heap` tool that reports, from inside it, how many
objects are frozen and how many a full pass would still walk."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tests.transports._proc import INIT, call, child_env, frame, read_message, send, toolwire_run
from tests.transports.http.test_http_process import free_port

DEADLINE_SECONDS = 30.0
UNFROZEN_WAIT_SECONDS = 2.5  # past _process.SETTLE_SECONDS, with room for a slow start

SERVER = """
import gc
import sys

from toolwire import Server

server = Server("heap")


@server.tool
def heap() -> dict:
    '''How the collector sees this process.'''
    return {"frozen": gc.get_freeze_count(), "walked": len(gc.get_objects())}


if __name__ == "__main__":
    if sys.argv[1] == "mounted":
        import uvicorn
        from starlette.applications import Starlette
        from starlette.routing import Mount

        app = server.http_app(stateless=True, json_response=True)
        outer = Starlette(routes=[Mount("/", app=app)], lifespan=app.lifespan)
        uvicorn.run(outer, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""

INITIALIZED = frame({"jsonrpc": "2.0", "method": "notifications/initialized"})


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "heap_server.py"
    path.write_text(SERVER)
    return path


def _stdio_heap(proc: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    send(proc, call(request_id, "heap"))
    reply = read_message(proc)
    assert reply["id"] == request_id, reply
    return dict(reply["result"]["structuredContent"])


def _watch_stdio(script: Path, *, frozen: bool, **env: str) -> dict[str, Any]:
    proc = subprocess.Popen(
        toolwire_run(script),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(**env),
    )
    try:
        send(proc, frame(INIT), INITIALIZED)
        assert read_message(proc)["id"] == 1
        return _poll(lambda n: _stdio_heap(proc, n), frozen=frozen)
    finally:
        proc.kill()
        proc.communicate(timeout=10)


def _poll(heap: Any, *, frozen: bool) -> dict[str, Any]:
    """Ask `heap` until it reports a frozen heap (or, with frozen=False, for a while)."""
    started = time.monotonic()
    request_id = 100
    while True:
        request_id += 1
        seen = dict(heap(request_id))
        waited = time.monotonic() - started
        if frozen and seen["frozen"] > 0:
            return seen
        if not frozen and waited > UNFROZEN_WAIT_SECONDS:
            return seen
        assert waited < DEADLINE_SECONDS, f"heap never frozen: {seen}"
        time.sleep(0.1)


def _http_heap(port: int, request_id: int) -> dict[str, Any]:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "heap"}}
    ).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return dict(json.loads(response.read())["result"]["structuredContent"])


def _watch_http(command: list[str], port: int, *, frozen: bool) -> dict[str, Any]:
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=child_env()
    )
    try:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while True:  # until it answers
            try:
                _http_heap(port, 1)
                break
            except OSError:
                assert proc.poll() is None, "the server exited"
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.1)
        return _poll(lambda n: _http_heap(port, n), frozen=frozen)
    finally:
        proc.terminate()  # SIGTERM: a --workers parent stops its workers too
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_a_stdio_server_freezes_its_settled_heap(script: Path) -> None:
    seen = _watch_stdio(script, frozen=True)
    # Start-up's objects (tens of thousands) are frozen; a full pass walks the few made since.
    assert seen["frozen"] > 10_000, seen
    assert seen["walked"] < seen["frozen"] / 4, seen


def test_the_freeze_can_be_turned_off(script: Path) -> None:
    seen = _watch_stdio(script, frozen=False, TOOLWIRE_GC_FREEZE="0")
    assert seen["frozen"] == 0, seen
    assert seen["walked"] > 10_000, seen


def test_an_http_server_run_by_toolwire_freezes_its_settled_heap(script: Path) -> None:
    port = free_port()
    command = [*toolwire_run(script), "--transport", "http", "--port", str(port)]
    command += ["--stateless", "--json-response"]
    seen = _watch_http(command, port, frozen=True)
    assert seen["frozen"] > 10_000, seen
    assert seen["walked"] < seen["frozen"] / 4, seen


def test_an_app_mounted_in_another_process_leaves_its_collector_alone(script: Path) -> None:
    port = free_port()
    seen = _watch_http([sys.executable, str(script), "mounted", str(port)], port, frozen=False)
    assert seen["frozen"] == 0, seen


def test_each_worker_of_toolwire_run_freezes_its_settled_heap(script: Path) -> None:
    port = free_port()
    command = [*toolwire_run(script), "--transport", "http", "--port", str(port)]
    command += ["--stateless", "--json-response", "--workers", "2"]
    seen = _watch_http(command, port, frozen=True)
    assert seen["frozen"] > 10_000, seen
