"""How `toolwire call` shows each kind of result block, and its progress lines."""

from __future__ import annotations

import asyncio
import base64
import io
from pathlib import Path

from toolwire.cli._render import ProgressDisplay, render_result

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_every_block_kind(tmp_path: Path) -> None:
    result = {
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "audio", "data": _b64(WAV), "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
            {"type": "resource", "resource": {"uri": "mem://t", "text": "inline text"}},
            {
                "type": "resource",
                "resource": {"uri": "mem://b", "blob": _b64(b"\x00\x01"), "mimeType": "x/unknown"},
            },
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "future_kind", "x": 1},
        ]
    }
    shown = render_result(result, save_dir=tmp_path, stem="my tool/1").splitlines()
    assert shown == [
        "hello",
        f"[audio audio/wav, {len(WAV)} bytes] saved to {tmp_path / 'my_tool_1-1.wav'}",
        "[link] file:///a.txt (a.txt)",
        "[resource mem://t]",
        "inline text",
        f"[resource mem://b] [resource x/unknown, 2 bytes] saved to {tmp_path / 'my_tool_1-2.bin'}",
        "[image image/png: the server sent data that is not base64]",
        '[future_kind block] {"type": "future_kind", "x": 1}',
    ]
    assert (tmp_path / "my_tool_1-1.wav").read_bytes() == WAV


def test_files_never_overwrite(tmp_path: Path) -> None:
    (tmp_path / "pic-1.png").write_bytes(b"mine")
    block = {"type": "image", "data": _b64(b"\x89PNG"), "mimeType": "image/png"}
    shown = render_result({"content": [block]}, save_dir=tmp_path, stem="pic")
    assert shown.endswith(f"saved to {tmp_path / 'pic-2.png'}")
    assert (tmp_path / "pic-1.png").read_bytes() == b"mine"


def test_a_result_is_said_once_content_first(tmp_path: Path) -> None:
    same = {"content": [{"type": "text", "text": '{"a": 1}'}], "structuredContent": {"a": 1}}
    assert render_result(same, save_dir=tmp_path, stem="t") == '{"a": 1}'
    other = {"content": [{"type": "text", "text": "one"}], "structuredContent": {"a": 1}}
    assert render_result(other, save_dir=tmp_path, stem="t") == "one"
    # Without content, the structured result is the result.
    bare = {"content": [], "structuredContent": {"a": [1, 2]}}
    shown = render_result(bare, save_dir=tmp_path, stem="t")
    assert shown == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert render_result({"content": []}, save_dir=tmp_path, stem="t") == ""


def test_progress_lines_without_a_terminal() -> None:
    out = io.StringIO()
    display = ProgressDisplay(out, live=False)

    async def feed() -> None:
        await display.update(1, None, None)
        await display.update(2.5, 10, "copying")

    asyncio.run(feed())
    display.finish()
    assert out.getvalue() == "progress 1\nprogress 2.5/10 (25%) copying\n"


def test_progress_bar_on_a_terminal_redraws_in_place() -> None:
    out = io.StringIO()
    display = ProgressDisplay(out, live=True)

    async def feed() -> None:
        await display.update(1, 2, "a much longer message first")
        await display.update(2, 2, None)

    asyncio.run(feed())
    display.finish()
    first, second = out.getvalue().split("\r")[1:]
    assert second.endswith("\n") and second.rstrip().endswith("100% 2/2")
    assert len(second.rstrip("\n")) == len(first)  # padded over the longer line
