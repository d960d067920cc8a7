"""`ctx.session_id`, `CallInfo.session_id` and `Server.on_session_end` over every transport:
the id a tool sees is the transport's own session id, and the hooks hear it once that session
ends (DELETE, idle expiry, shutdown, a closed SSE stream, stdin EOF, an in-memory client
leaving); session-less requests see None and never fire a hook."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from tests._listening import free_port, listening

import toolwire.server as session_end
from toolwire import Server, ToolContext
from toolwire.client import MCPServerInMemory

ROOT = Path(__file__).resolve().parents[1]
APP = [sys.executable, "-m", "tests._session_end_app"]
VERSION = "2025-06-18"
ACCEPT = "application/json, text/event-stream"


def _ended(record: Path) -> list[str]:
    return record.read_text().split() if record.exists() else []


def _wait_for(check: Callable[[], bool], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _message(response: httpx.Response) -> dict[str, Any]:
    """The one JSON-RPC message of a POST's answer, JSON or SSE."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        datas = [
            line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")
        ]
        frames = [json.loads(data) for data in datas if data]
        [answer] = [frame for frame in frames if "id" in frame]
        return answer
    answer: dict[str, Any] = response.json()
    return answer


def _headers(session_id: str | None = None) -> dict[str, str]:
    headers = {
        "accept": ACCEPT,
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
    }
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    return headers


def _open(http: httpx.Client, url: str) -> str:
    """Initialize a session over streamable HTTP; its `Mcp-Session-Id`."""
    params = {
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    response = http.post(url, json=body, headers=_headers())
    _message(response)
    session_id = response.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert http.post(url, json=note, headers=_headers(session_id)).status_code == 202
    return session_id


def _whoami(http: httpx.Client, url: str, session_id: str | None) -> str:
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}}
    answer = _message(http.post(url, json=body, headers=_headers(session_id)))
    text: str = answer["result"]["content"][0]["text"]
    return text


def test_http_delete_and_shutdown_fire_the_hook(tmp_path: Path) -> None:
    record, port = tmp_path / "ended", free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with listening([*APP, "http", str(record), str(port)], port, cwd=ROOT):
        with httpx.Client(timeout=30) as http:
            first, second = _open(http, url), _open(http, url)
            assert first != second
            assert _whoami(http, url, first) == f"{first}|{first}"
            assert _whoami(http, url, second) == f"{second}|{second}"
            assert http.delete(url, headers=_headers(first)).status_code == 200
            assert _wait_for(lambda: _ended(record) == [first]), _ended(record)
            # Once gone, the session is unknown: the hook fired for a session that ended.
            assert (
                http.post(
                    url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=_headers(first)
                ).status_code
                == 404
            )
    # Shutting the server down ends the other one (its hook ran before the process left).
    assert _ended(record) == [first, second]


def test_http_idle_expiry_fires_the_hook(tmp_path: Path) -> None:
    record, port = tmp_path / "ended", free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [*APP, "http", str(record), str(port), "idle=0.5"]
    with listening(command, port, cwd=ROOT) as process:
        with httpx.Client(timeout=30) as http:
            session_id = _open(http, url)
            assert _whoami(http, url, session_id) == f"{session_id}|{session_id}"
            assert _wait_for(lambda: _ended(record) == [session_id]), _ended(record)
            assert process.poll() is None


def test_stateless_http_has_no_session_and_fires_nothing(tmp_path: Path) -> None:
    record, port = tmp_path / "ended", free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [*APP, "http", str(record), str(port), "stateless"]
    with listening(command, port, cwd=ROOT):
        with httpx.Client(timeout=30) as http:
            assert _whoami(http, url, None) == "None|None"
            assert _whoami(http, url, None) == "None|None"
    assert not record.exists()


def test_legacy_sse_closing_the_stream_fires_the_hook(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.sse import sse_client

    record, port = tmp_path / "ended", free_port()
    seen: list[str] = []

    async def main() -> None:
        with anyio.fail_after(60):
            async with (
                sse_client(f"http://127.0.0.1:{port}/sse") as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                result = await client.call_tool("whoami", {})
                seen.append(result.content[0].text)  # type: ignore[union-attr]

    with listening([*APP, "sse", str(record), str(port)], port, cwd=ROOT):
        anyio.run(main)
        [text] = seen
        session_id, _, made = text.partition("|")
        assert len(session_id) == 32 and int(session_id, 16) >= 0
        assert made == session_id
        assert _wait_for(lambda: _ended(record) == [session_id]), _ended(record)


def test_stdio_eof_fires_the_hook(tmp_path: Path) -> None:
    record = tmp_path / "ended"
    params = {
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}},
    ]
    process = subprocess.Popen(
        [*APP, "stdio", str(record), "0"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
        process.stdin.flush()
        json.loads(process.stdout.readline())
        answer = json.loads(process.stdout.readline())
        assert not _ended(record)  # the session is still served
        _, errors = process.communicate(timeout=30)  # closes stdin: EOF
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = answer["result"]["content"][0]["text"]
    session_id, _, made = text.partition("|")
    assert len(session_id) == 32 and made == session_id
    assert process.returncode == 0, errors
    assert _ended(record) == [session_id]
    # The first hook raised: logged on stderr, and the second still ran.
    assert b"this hook fails on purpose" in errors


def _in_memory_server(ended: list[str]) -> Server:
    server = Server("in-memory", context_factory=lambda info: info.session_id)

    @server.tool
    def whoami(ctx: ToolContext[Any]) -> str:
        """The session id seen."""
        return f"{ctx.session_id}|{ctx.context}"

    @server.on_session_end
    def broken(session_id: str) -> None:
        raise RuntimeError("broken hook")

    @server.on_session_end
    def note(session_id: str) -> None:
        ended.append(session_id)

    return server


def test_in_memory_client_fires_the_hook_and_a_failing_hook_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ended: list[str] = []
    server = _in_memory_server(ended)
    texts: list[str] = []

    async def main() -> None:
        for _ in range(2):
            async with MCPServerInMemory(server) as client:
                result = await client.call_tool("whoami", {})
                texts.append(result.content[0].text)  # type: ignore[union-attr]

    with caplog.at_level(logging.ERROR, logger="toolwire"):
        anyio.run(main)
    ids = [text.partition("|")[0] for text in texts]
    assert texts == [f"{i}|{i}" for i in ids]
    assert ids[0] != ids[1]
    assert ended == ids
    failures = [r for r in caplog.records if "on_session_end hook" in r.getMessage()]
    assert len(failures) == 2 and "broken" in failures[0].getMessage()


def test_a_hanging_hook_is_left_after_the_bound(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(session_end, "SESSION_END_BOUND_SECONDS", 0.2)
    server = Server("hangs")
    cancelled: list[str] = []

    @server.tool
    def ping() -> str:
        """pong"""
        return "pong"

    @server.on_session_end
    async def hang(session_id: str) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.append(session_id)

    async def main() -> None:
        with anyio.fail_after(30):
            async with MCPServerInMemory(server) as client:
                await client.call_tool("ping", {})

    with caplog.at_level(logging.WARNING, logger="toolwire"):
        anyio.run(main)
    assert len(cancelled) == 1
    assert any("did not finish within" in r.getMessage() for r in caplog.records)


def test_on_session_end_refuses_what_is_not_callable() -> None:
    server = Server("x")
    with pytest.raises(TypeError, match="function of the session id, not int"):
        server.on_session_end(3)  # type: ignore[type-var]


def test_modern_era_requests_have_no_session_and_fire_nothing(tmp_path: Path) -> None:
    from mcp import Client

    record, port = tmp_path / "ended", free_port()
    seen: list[tuple[str, str]] = []

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                result = await client.call_tool("whoami", {})
                seen.append((str(client.protocol_version), result.content[0].text))  # type: ignore[union-attr]

    with listening([*APP, "http", str(record), str(port)], port, cwd=ROOT):
        anyio.run(main)
    [(version, text)] = seen
    assert version == "2026-07-28"
    assert text == "None|None"
    assert not record.exists()  # the server shut down without a session to end


def test_a_hook_raising_a_base_exception_is_logged_and_the_others_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server("exiting")
    ended: list[str] = []

    @server.on_session_end
    def exits(session_id: str) -> None:
        raise SystemExit(3)

    @server.on_session_end
    def note(session_id: str) -> None:
        ended.append(session_id)

    async def main() -> None:
        async with MCPServerInMemory(server) as client:
            await client.list_tools()

    with caplog.at_level(logging.ERROR, logger="toolwire"):
        anyio.run(main)  # the SystemExit never reaches the client's close
    assert len(ended) == 1
    failures = [r for r in caplog.records if "on_session_end hook" in r.getMessage()]
    assert len(failures) == 1 and "exits" in failures[0].getMessage()
