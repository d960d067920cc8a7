"""Shared bits of the interop tests: the fixture servers and how to launch them."""

from __future__ import annotations

import base64
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
KITCHEN = SERVERS / "kitchen.py"
NOISY = SERVERS / "noisy.py"

# Every way a user starts a toolwire server on stdio: the script's own `server.run()`, and
# the CLI (`python -m toolwire run file.py`), which protects stdout before importing it.
LAUNCHERS: dict[str, list[str]] = {
    "script": [str(KITCHEN)],
    "cli": ["-m", "toolwire", "run", str(KITCHEN)],
}

KITCHEN_TOOLS = {
    "add",
    "echo",
    "profile",
    "pixel",
    "boom",
    "boom_loud",
    "progress",
    "nap",
    "block",
    "stats",
    "wipe",
}

DEFAULT_FAILURE = "An error occurred while running the tool. Please try again."

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

ADD_INPUT_SCHEMA = {
    "type": "object",
    "title": "add_args",
    "properties": {
        "a": {"description": "The first addend.", "title": "A", "type": "integer"},
        "b": {"description": "The second addend.", "title": "B", "type": "integer"},
    },
    "required": ["a", "b"],
    "additionalProperties": False,
}


def command(launcher: str) -> tuple[str, list[str]]:
    """The (command, args) that starts the kitchen server with the given launcher."""
    return sys.executable, list(LAUNCHERS[launcher])


class RawClient:
    """A bare JSON-RPC line client over an anyio subprocess's pipes (no SDK in the way)."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc
        self.buffered = b""
        self.lines: list[bytes] = []  # every line read, in order

    async def send(self, message: dict[str, Any]) -> None:
        await self.proc.stdin.send(json.dumps(message).encode() + b"\n")

    async def line(self) -> bytes:
        while b"\n" not in self.buffered:
            self.buffered += await self.proc.stdout.receive()
        line, self.buffered = self.buffered.split(b"\n", 1)
        self.lines.append(line)
        return line

    async def until_reply(self, request_id: Any) -> tuple[dict[str, Any], list[bytes]]:
        """Read until the reply to `request_id`; also return the other lines seen meanwhile."""
        others: list[bytes] = []
        while True:
            line = await self.line()
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return message, others
            others.append(line)

    async def reply(self, request_id: Any) -> dict[str, Any]:
        """The reply to `request_id` (other lines are skipped, and kept in `lines`)."""
        return (await self.until_reply(request_id))[0]


@contextlib.asynccontextmanager
async def session_at_version(
    version: str, params: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Any, Any]]:
    """The official `ClientSession` over stdio (`params`), initialized offering `version`
    as its latest handshake version: the session and its `initialize` result."""
    import mcp.client.session
    from mcp import ClientSession, stdio_client

    monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", version)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        yield session, await session.initialize()
