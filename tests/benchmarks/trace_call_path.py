"""Which of toolwire's source files one `tools/call` passes through, over stdio and over HTTP.

Run: `python -m tests.benchmarks.trace_call_path` from the repository root. It prints, for
each transport, the files entered and how often execution moved from one file to another
while a single warm `tools/call` of `add(2, 3)` was served (over HTTP, once in each protocol
era; `--functions` adds the functions entered in each file). Only files under `src/toolwire` count; the standard library, uvicorn and httpx do not.

- stdio: the server runs as a real subprocess (`python -m ... --stdio-child`) with a profile
  hook that starts recording when a function receives the traced request's bytes and stops
  once the stdio transport has written the reply.
- HTTP: the stateless streamable-HTTP app is called in this process through httpx's ASGI
  transport (the same app uvicorn would run), with the hook on for exactly that request.

A "switch" is any call or return that leaves one file for another: the number a reader
following the request in an editor would count as jumps.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = str(ROOT / "src" / "toolwire") + os.sep
MARK = b'"id":"trace-me"'
CALL = {
    "jsonrpc": "2.0",
    "id": "trace-me",
    "method": "tools/call",
    "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
}


class Recorder:
    """Collects the toolwire files of call and return events, from every thread."""

    def __init__(self) -> None:
        self.on = False
        self.events: list[str] = []
        self.functions: dict[str, list[str]] = {}
        self.lock = threading.Lock()

    def hook(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event not in ("call", "return"):
            return
        filename = frame.f_code.co_filename
        if not filename.startswith(PACKAGE):
            return
        if not self.on:
            return
        name = filename[len(PACKAGE) :]
        with self.lock:
            self.events.append(name)
            if event == "call":
                seen = self.functions.setdefault(name, [])
                if frame.f_code.co_name not in seen:
                    seen.append(frame.f_code.co_name)

    def summary(self) -> dict[str, Any]:
        switches = sum(1 for a, b in zip(self.events, self.events[1:], strict=False) if a != b)
        files: list[str] = []
        for name in self.events:
            if name not in files:
                files.append(name)
        return {"files": files, "switches": switches, "functions": self.functions}


def _server() -> Any:
    from toolwire import Server

    server = Server("trace")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


def _stdio_child() -> None:
    """The traced stdio server: records from the traced request's bytes to its reply."""
    recorder = Recorder()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and not recorder.on:
            for value in frame.f_locals.values():
                if isinstance(value, bytes | bytearray) and MARK in value and b'"method"' in value:
                    recorder.on = True
                    break
        recorder.hook(frame, event, arg)
        if (
            event == "return"
            and recorder.on
            and frame.f_code.co_name == "send"
            and "stdio" in frame.f_code.co_filename
            and any(
                isinstance(v, bytes) and MARK in v and b'"result"' in v
                for v in frame.f_locals.values()
            )
        ):
            recorder.on = False
            sys.setprofile(None)
            threading.setprofile(lambda *_: None)
            os.write(2, b"TRACE " + json.dumps(recorder.summary()).encode() + b"\n")

    threading.setprofile(hook)
    sys.setprofile(hook)
    _server().run()


def trace_stdio() -> dict[str, Any]:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "trace", "version": "0"},
        },
    }
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.benchmarks.trace_call_path", "--stdio-child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    assert child.stdin is not None and child.stdout is not None

    def exchange(message: dict[str, Any], *, answered: bool = True) -> None:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        child.stdin.flush()
        if answered:
            reply = json.loads(child.stdout.readline())
            assert "result" in reply, reply

    # One at a time, each answered before the next: the traced call runs alone.
    exchange(hello)
    exchange({"jsonrpc": "2.0", "method": "notifications/initialized"}, answered=False)
    exchange({**CALL, "id": 2})  # a warm-up call
    exchange(CALL)
    _, stderr = child.communicate(timeout=60)
    for line in stderr.decode().splitlines():
        if line.startswith("TRACE "):
            result: dict[str, Any] = json.loads(line[len("TRACE ") :])
            return result
    raise SystemExit(f"the stdio child printed no trace:\n{stderr.decode()[-2000:]}")


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def trace_http(*, modern: bool) -> dict[str, Any]:
    """One warm stateless `tools/call`, of the handshake era or of 2026-07-28 (`modern`)."""
    import httpx

    app = _server().http_app(stateless=True, json_response=True)
    recorder = Recorder()
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    call: dict[str, Any] = CALL
    if modern:
        call = {**CALL, "params": {**CALL["params"], "_meta": MODERN_META}}
        headers.update(
            {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add"}
        )
    body = json.dumps(call, separators=(",", ":"))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client,
    ):
        warm = await client.post("/mcp", content=body, headers=headers)
        assert warm.status_code == 200, warm.text
        recorder.on = True
        threading.setprofile(recorder.hook)
        sys.setprofile(recorder.hook)
        try:
            answer = await client.post("/mcp", content=body, headers=headers)
        finally:
            sys.setprofile(None)
            threading.setprofile(lambda *_: None)
            recorder.on = False
        assert answer.status_code == 200 and '"result"' in answer.text, answer.text
    return recorder.summary()


def main() -> None:
    if "--stdio-child" in sys.argv:
        _stdio_child()
        return
    traces = (
        ("stdio", trace_stdio()),
        ("http, handshake era", asyncio.run(trace_http(modern=False))),
        ("http, 2026-07-28", asyncio.run(trace_http(modern=True))),
    )
    for name, result in traces:
        files = result["files"]
        print(f"{name}: {len(files)} files entered, {result['switches']} file switches")
        for each in files:
            called = result["functions"].get(each, [])
            print(f"    {each}" + (f": {', '.join(called)}" if "--functions" in sys.argv else ""))


if __name__ == "__main__":
    main()
