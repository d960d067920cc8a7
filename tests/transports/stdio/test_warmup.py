"""A call right behind the first `tools/list` races the background warm-up and must not care.

The server answers `tools/list` without pydantic and then builds the tools' models in a thread
(`warm_up_in_background` in tools/invoke.py). These tests pipeline handshake, listing and calls
in one write, so the calls arrive while that thread is importing pydantic and building models,
in fresh processes.
"""

from __future__ import annotations

import json
import subprocess
import sys

SERVER = '''
from toolwire import Server

server = Server("warm")

@server.tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b

@server.tool
def stats(words: list[str]) -> dict[str, int]:
    """Count letters."""
    return {word: len(word) for word in words}

@server.tool
async def echo(text: str, times: int = 1) -> str:
    """Echo."""
    return text * times

server.run()
'''


def _frames(calls: int) -> bytes:
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
    ]
    for i in range(calls):
        lines.append(
            {
                "jsonrpc": "2.0",
                "id": f"add{i}",
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": i, "b": 1}},
            }
        )
        lines.append(
            {
                "jsonrpc": "2.0",
                "id": f"stats{i}",
                "method": "tools/call",
                "params": {"name": "stats", "arguments": {"words": ["ab", "c" * i]}},
            }
        )
        lines.append(
            {
                "jsonrpc": "2.0",
                "id": f"bad{i}",
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x", "times": "many"}},
            }
        )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_calls_pipelined_behind_the_first_listing_are_answered_right() -> None:
    for _ in range(12):  # fresh processes: each races its own warm-up (a race: repeat)
        done = subprocess.run(
            [sys.executable, "-c", SERVER],
            input=_frames(5),
            capture_output=True,
            timeout=60,
            check=True,
        )
        replies = {reply["id"]: reply for reply in map(json.loads, done.stdout.splitlines())}
        assert len(replies) == 2 + 15, done.stderr.decode()
        for i in range(5):
            assert replies[f"add{i}"]["result"]["structuredContent"] == {"result": i + 1}
            assert replies[f"stats{i}"]["result"]["structuredContent"] == {"ab": 2, "c" * i: i}
            bad = replies[f"bad{i}"]["result"]
            assert bad["isError"] is True
            assert "times" in bad["content"][0]["text"], bad
        assert b"Traceback" not in done.stderr, done.stderr.decode()


def test_sequential_calls_during_the_warm_up_are_answered_right() -> None:
    """One call at a time from the listing on, so calls finish while the warm-up thread is in
    the middle of importing modules (a half-initialized module must never be read)."""
    import select
    import time

    for _ in range(2):
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(_frames(0))
            proc.stdin.flush()
            assert b'"id":0' in proc.stdout.readline()
            assert b'"id":"list"' in proc.stdout.readline()
            deadline = time.monotonic() + 1.5
            count = 0
            while count < 3000 and time.monotonic() < deadline:
                call = {
                    "jsonrpc": "2.0",
                    "id": count,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": count, "b": 1}},
                }
                proc.stdin.write(json.dumps(call).encode() + b"\n")
                proc.stdin.flush()
                ready, _, _ = select.select([proc.stdout], [], [], 30)
                assert ready, "no reply within 30 s"
                reply = json.loads(proc.stdout.readline())
                assert reply["id"] == count
                assert reply["result"]["structuredContent"] == {"result": count + 1}, reply
                count += 1
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
            assert proc.stderr is not None
            errors = proc.stderr.read()
            proc.stderr.close()
            proc.stdout.close()
        assert b"Traceback" not in errors, errors.decode()
