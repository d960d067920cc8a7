"""`python -m servers.demo`: every kind of tool over real stdio."""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import zlib
from typing import Any

from tests.transports._proc import INIT, ROOT, call, exchange, frame, read_message, send, spawn


def _by_id(messages: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {m["id"]: m for m in messages if "id" in m}


def _check_png(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, kinds, size = 8, [], (0, 0)
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        if kind == b"IDAT":
            raw = zlib.decompress(body)
            assert len(raw) == size[1] * (1 + 3 * size[0])
        kinds.append(kind)
        offset += 12 + length
    assert kinds == [b"IHDR", b"IDAT", b"IEND"]
    return size


def test_demo_tools_over_stdio() -> None:
    proc = spawn([sys.executable, "-m", "servers.demo"], LANG="C", LC_ALL="C")
    frames = [
        frame(INIT),
        frame({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        frame({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "shout", {"text": "héllo"}),
        call(4, "word_stats", {"text": "a b\nc"}),
        call(5, "swatch", {"red": 10, "green": 20, "blue": 300}),
        call(6, "countdown", {"steps": 3}, _meta={"progressToken": "tok"}),
    ]
    send(proc, *frames)
    # Calls run concurrently (JSON-RPC promises no order), so the ones that change the notes
    # go one at a time, each after the previous reply, as a client that cares would send them.
    messages = [read_message(proc) for _ in range(2)]  # initialize, tools/list
    for request in (
        call(7, "add_note", {"title": "t", "text": "x"}),
        call(8, "delete_note", {"title": "t"}),
        call(9, "delete_note", {"title": "t"}),
        call(10, "list_notes"),
    ):
        send(proc, request)
        sent_id = json.loads(request)["id"]
        while not messages or messages[-1].get("id") != sent_id:
            messages.append(read_message(proc))
    rest, stderr, code = exchange(proc, [])
    messages += rest
    assert code == 0, stderr
    replies = _by_id(messages)
    tools = {tool["name"]: tool for tool in replies[2]["result"]["tools"]}
    assert tools["delete_note"]["annotations"] == {
        "destructiveHint": True,
        "readOnlyHint": False,
        "idempotentHint": True,
    }
    assert tools["shout"]["annotations"]["readOnlyHint"] is True
    assert replies[3]["result"]["content"] == [{"type": "text", "text": "HÉLLO"}]

    stats = replies[4]["result"]
    assert stats["structuredContent"] == {"characters": 5, "words": 3, "lines": 2}
    assert json.loads(stats["content"][0]["text"]) == stats["structuredContent"]

    (image,) = replies[5]["result"]["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    png = base64.b64decode(image["data"])
    assert _check_png(png) == (16, 16)
    pixels = zlib.decompress(png[png.index(b"IDAT") + 4 :][:-16])
    assert pixels[1:4] == bytes([10, 20, 255])  # clamped to 0-255

    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    assert [(p["progressToken"], p["progress"], p["total"]) for p in progress] == [
        ("tok", 1, 3),
        ("tok", 2, 3),
        ("tok", 3, 3),
    ]
    assert replies[6]["result"]["content"][0]["text"] == "lift-off after 3 steps"
    assert replies[7]["result"]["content"][0]["text"] == "added 't'"
    assert replies[8]["result"]["content"][0]["text"] == "deleted 't'"
    assert replies[9]["result"]["content"][0]["text"] == "no note titled 't'"
    assert "t" not in replies[10]["result"]["structuredContent"]
    assert stderr == ""


def test_the_tour_shows_tools_resources_and_prompts() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "servers.demo.tour"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert "7 tools" in done.stdout.split(", first tools/list")[0]
    assert "1 resources, 1 resource templates" in lines
    assert "notes://index: 'welcome'" in lines
    assert "notes://welcome: 'toolwire serves plain functions over MCP.'" in lines
    assert "1 prompts" in lines
    assert "title completes to ['welcome']" in lines
    assert "summarise: messages=[('user', 'resource'), ('user', 'text')]" in lines
    replies = [
        json.loads(line[3:]) for line in lines if line.startswith("<- {") and line.endswith("}")
    ]
    assert all("error" not in reply for reply in replies)
