"""Helpers of the scale-out tests: raw handshake-era requests, SSE parsing, the official
client's session, and `toolwire run` refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import httpx2 as httpx
from tests._jsonrpc import encoded_request as request
from tests.scale._infra import ROOT

if TYPE_CHECKING:
    from mcp import ClientSession

TARGET = "tests.scale.servers.shared_sessions:server"
VERSION = "2025-11-25"
ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def initialize(url: str, client: str = "redis-test") -> str:
    """Open a session on `url` (initialize + initialized); return its id."""
    params = {
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": client, "version": "1"},
    }
    answer = httpx.post(url, content=request("initialize", params), headers=ACCEPT, timeout=30)
    assert answer.status_code == 200, answer.text
    session_id = answer.headers["mcp-session-id"]
    done = httpx.post(
        url,
        content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        headers=session_headers(session_id),
        timeout=30,
    )
    assert done.status_code == 202, done.text
    return session_id


def session_headers(session_id: str, **extra: str) -> dict[str, str]:
    return {**ACCEPT, "mcp-session-id": session_id, "mcp-protocol-version": VERSION, **extra}


def call(
    url: str, session_id: str, tool: str, arguments: dict[str, Any] | None = None, rid: int = 2
) -> httpx.Response:
    params = {"name": tool, "arguments": arguments or {}}
    return httpx.post(
        url,
        content=request("tools/call", params, rid),
        headers=session_headers(session_id),
        timeout=30,
    )


def events(text: str) -> list[tuple[str | None, dict[str, Any] | None]]:
    """Each SSE event of a body: its id and its JSON message (None for a priming event)."""
    found: list[tuple[str | None, dict[str, Any] | None]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = block.split("\n")
        event_id = next((line[3:].strip() for line in lines if line.startswith("id:")), None)
        data = "\n".join(line[5:].lstrip() for line in lines if line.startswith("data:"))
        if event_id is None and not data:
            continue
        found.append((event_id, json.loads(data) if data else None))
    return found


async def sse_messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON messages of a streamed SSE response, each as soon as its event is complete."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            text, data = "\n".join(data), []
            if text:
                yield json.loads(text)


def result_text(answer: httpx.Response) -> str:
    """The text of the one tools/call result in an answer (JSON or SSE)."""
    for _, message in (
        events(answer.text)
        if "event-stream" in answer.headers.get("content-type", "")
        else [(None, answer.json())]
    ):
        if message is not None and "result" in message:
            return str(message["result"]["content"][0]["text"])
    raise AssertionError(f"no result in {answer.status_code} {answer.text[:500]}")


@asynccontextmanager
async def official_session(url: str) -> AsyncIterator[ClientSession]:
    """The official `mcp` client's session on `url` (streamable HTTP), initialized."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def toolwire_run(target: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`toolwire run TARGET ARGS` to its end (a refusal, for these tests), `env` added."""
    pythonpath = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    return subprocess.run(
        [sys.executable, "-m", "toolwire", "run", target, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": pythonpath, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
