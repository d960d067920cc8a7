"""`content.call_result` on values pydantic cannot write: plain JSON nested deeper than its
serializer goes is still sent as JSON (structured and as text), not as a Python repr."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.server import Server

from ..harness import handshake

pytestmark = pytest.mark.anyio


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": True}
    for _ in range(levels):
        value = {"a": [value]}
    return value


async def test_plain_json_deeper_than_pydantic_writes_is_still_json() -> None:
    server = Server("deep")

    @server.tool
    def nested() -> dict[str, Any]:
        """A deeply nested result."""
        return _deep(200)  # 400 levels: dicts and lists

    async with handshake(server) as peer:
        reply = await peer.request(1, "tools/call", {"name": "nested", "arguments": {}})
    result = reply["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == _deep(200)
    assert json.loads(result["content"][0]["text"]) == _deep(200)
