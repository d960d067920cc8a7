"""Issue #11 on a real server process: sync tools that hang or outlive their timeout keep the
number of running bodies and threads bounded, and never starve the other tools."""

from __future__ import annotations

import json
import signal
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from tests.transports._proc import (
    INIT,
    call,
    frame,
    read_message,
    send,
    signal_and_collect,
    spawn,
    toolwire_run,
)

SERVER = textwrap.dedent(
    '''
    import asyncio, threading, time
    import toolwire.tools.threads as threads
    from toolwire import Server

    threads.IDLE_SECONDS = 1.0
    server = Server("hung", version="1", max_sync_workers=2)
    lock = threading.Lock()
    bodies = {"now": 0, "peak": 0}
    release = threading.Event()

    def _enter():
        with lock:
            bodies["now"] += 1
            bodies["peak"] = max(bodies["peak"], bodies["now"])

    def _leave():
        with lock:
            bodies["now"] -= 1

    @server.tool(timeout=0.3)
    def slow(seconds: float) -> str:
        """Sleep, unless released."""
        _enter()
        try:
            release.wait(seconds)
            return "slept"
        finally:
            _leave()

    @server.tool(timeout=0.05)
    def hang(seconds: float) -> str:
        """Hang until released."""
        _enter()
        try:
            release.wait(seconds)
            return "released"
        finally:
            _leave()

    @server.tool
    def block() -> str:
        """Hold a worker until released (no timeout)."""
        release.wait(60)
        return "unblocked"

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def stats() -> dict:
        """Bodies running now, the most at once, and live threads."""
        return {**bodies, "threads": threading.active_count()}

    @server.tool
    async def let_go() -> str:
        """Let every hanging body finish."""
        release.set()
        return "ok"
    '''
)


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    path = tmp_path / "hung_server.py"
    path.write_text(SERVER, encoding="utf-8")
    return path


def _spawn(server_file: Path) -> Any:
    """The server, its stderr to a file: every failed call logs a warning, and 300 of them
    are more than a pipe holds, so a pipe nobody reads until the end would block the server."""
    return spawn(toolwire_run(server_file), stderr=(server_file.parent / "stderr.txt").open("wb"))


def _collect(proc: Any, ids: set[Any]) -> dict[Any, dict[str, Any]]:
    got: dict[Any, dict[str, Any]] = {}
    while not ids <= set(got):
        message = read_message(proc)
        got[message["id"]] = message
    return got


def _stats(proc: Any, request_id: str) -> dict[str, int]:
    send(proc, call(request_id, "stats"))  # type: ignore[arg-type]
    reply = _collect(proc, {request_id})[request_id]
    return dict(json.loads(reply["result"]["content"][0]["text"]))


def test_calls_outliving_their_timeout_keep_bodies_bounded(server_file: Path) -> None:
    """20 calls of a 10 s tool with a 0.3 s timeout, 50 ms apart, max_sync_workers=2: every
    call is answered, and never more than 2 + 2 bodies run (it was 18 of 20)."""
    proc = _spawn(server_file)
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    for i in range(20):
        send(proc, call(100 + i, "slow", {"seconds": 10}))
        time.sleep(0.05)
    replies = _collect(proc, {100 + i for i in range(20)})
    texts = [replies[100 + i]["result"]["content"][0]["text"] for i in range(20)]
    assert all(replies[100 + i]["result"]["isError"] for i in range(20))
    assert any("timed out after 0.3 seconds" in t for t in texts)
    refused = [t for t in texts if "still running after they timed out" in t]
    assert refused and all(t.startswith("Tool 'slow' refused the call: ") for t in refused)
    stats = _stats(proc, "s1")
    assert stats["peak"] <= 4 and stats["now"] <= 4
    send(proc, call(900, "let_go"))
    _collect(proc, {900})
    signal_and_collect(proc, signal.SIGTERM)


def test_a_hung_tool_does_not_starve_another_sync_tool(server_file: Path) -> None:
    """300 calls of a tool that hangs under a 0.05 s timeout, then a call to `add`: `add` is
    answered while every hung body is still running (it used to wait for them: 12.5 s)."""
    proc = _spawn(server_file)
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(proc, *(call(1000 + i, "hang", {"seconds": 60}) for i in range(300)))
    _collect(proc, {1000 + i for i in range(300)})
    before = _stats(proc, "before")
    send(proc, call(2, "add", {"a": 2, "b": 3}))
    assert _collect(proc, {2})[2]["result"]["structuredContent"] == {"result": 5}
    after = _stats(proc, "after")
    assert before["now"] == after["now"] >= 1  # no hung body ended for `add` to run
    assert after["peak"] <= 4
    assert after["threads"] <= 1 + 4 + 2  # main, at most 4 bodies, the loop's helpers
    send(proc, call(900, "let_go"))
    _collect(proc, {900})
    signal_and_collect(proc, signal.SIGTERM)


def test_idle_worker_threads_leave(server_file: Path) -> None:
    proc = _spawn(server_file)
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    baseline = _stats(proc, "base")["threads"]
    send(proc, *(call(10 + i, "slow", {"seconds": 0.05}) for i in range(2)))
    _collect(proc, {10, 11})
    assert _stats(proc, "busy")["threads"] > baseline
    for attempt in range(200):  # IDLE_SECONDS is 1.0 in this server
        if _stats(proc, f"idle{attempt}")["threads"] <= baseline:
            break
        time.sleep(0.05)
    assert _stats(proc, "idle")["threads"] <= baseline
    signal_and_collect(proc, signal.SIGTERM)


def test_a_call_that_never_got_a_worker_says_why_it_timed_out(server_file: Path) -> None:
    proc = _spawn(server_file)
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    # Both slots of max_sync_workers=2, taken in order before the third call is read.
    send(proc, call(10, "block"), call(11, "block"), call(12, "slow", {"seconds": 1}))
    text = _collect(proc, {12})[12]["result"]["content"][0]["text"]
    assert text == (
        "Tool 'slow' timed out after 0.3 seconds. It never started: all 2 worker threads "
        "for sync tools were busy the whole time."
    )
    send(proc, call(900, "let_go"))
    replies = _collect(proc, {10, 11, 900})
    assert replies[10]["result"]["content"][0]["text"] == "unblocked"
    signal_and_collect(proc, signal.SIGTERM)
    err = (server_file.parent / "stderr.txt").read_bytes()
    assert b"Tool 'slow' timed out after 0.3 seconds waiting for one of 2 busy worker" in err
