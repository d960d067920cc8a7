"""Showing a `tools/call` to a person: its progress on stderr (a bar redrawn in place on a
terminal, a line per notification elsewhere), its wire result once on stdout, binary blocks
saved to files, and what the server wrote with its control characters escaped."""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import os
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

__all__ = [
    "ProgressDisplay",
    "StdoutClosed",
    "end_for_closed_stdout",
    "json_text",
    "render_result",
    "visible",
    "write_stdout",
]

# Control characters but newline and tab, and the bidirectional marks and overrides that
# reorder the text around them ("Trojan Source"); joiners such as U+200D stay (emoji use them).
_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_RAW_IN_JSON = re.compile(r"[\x7f-\x9f]")  # json.dumps escapes the others itself


def _escaped(found: re.Match[str]) -> str:
    code = ord(found[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` for a terminal: control characters but newline and tab written as `\\x1b`,
    bidirectional marks and overrides as `\\u202e`."""
    return _UNSHOWN.sub(_escaped, text.replace("\r\n", "\n"))


def json_text(value: Any) -> str:
    """`value` as indented JSON with no raw control character (DEL and C1 as `\\u` escapes)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _RAW_IN_JSON.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


_FALLBACK_SUFFIX = {"image": ".img", "audio": ".audio", "resource": ".bin"}
# The types MCP servers send most, fixed here: the `mimetypes` table depends on the machine
# (/etc/mime.types) and lacks some (audio/wav).
_KNOWN_SUFFIX = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "application/pdf": ".pdf",
    "application/json": ".json",
    "text/plain": ".txt",
}


def _suffix(mime_type: str | None, kind: str) -> str:
    base = (mime_type or "").split(";", 1)[0].strip().lower()
    known = _KNOWN_SUFFIX.get(base)
    if known:
        return known
    guessed = mimetypes.guess_extension(base, strict=False) if base else None
    return guessed or _FALLBACK_SUFFIX.get(kind, ".bin")


class _Saver:
    """Writes binary blocks to numbered files; names never overwrite an existing file. With no
    folder given, the first block saved makes a fresh temporary one."""

    def __init__(self, save_dir: Path | None, stem: str) -> None:
        self._dir = save_dir
        self._stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._") or "result"
        self._count = 0

    def save(self, data: str, mime_type: str | None, kind: str) -> str:
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return f"[{kind} {mime_type or ''}: the server sent data that is not base64]"
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="toolwire-call-"))
        self._dir.mkdir(parents=True, exist_ok=True)
        suffix = _suffix(mime_type, kind)
        while True:
            self._count += 1
            path = self._dir / f"{self._stem}-{self._count}{suffix}"
            try:
                with path.open("xb") as file:  # never replaces a file, even one made just now
                    file.write(raw)
            except FileExistsError:
                continue
            break
        return f"[{kind} {mime_type or 'unknown type'}, {len(raw)} bytes] saved to {path}"


def _block_lines(block: dict[str, Any], saver: _Saver) -> list[str]:
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", ""))]
    if kind in ("image", "audio"):
        return [saver.save(str(block.get("data", "")), block.get("mimeType"), str(kind))]
    if kind == "resource_link":
        name = block.get("title") or block.get("name") or ""
        return [f"[link] {block.get('uri', '')}" + (f" ({name})" if name else "")]
    if kind == "resource":
        resource = block.get("resource") or {}
        uri = resource.get("uri", "")
        if "text" in resource:
            return [f"[resource {uri}]", str(resource["text"])]
        if "blob" in resource:
            saved = saver.save(str(resource["blob"]), resource.get("mimeType"), "resource")
            return [f"[resource {uri}] {saved}"]
        return [f"[resource {uri}]"]
    return [f"[{kind} block] {json.dumps(block, ensure_ascii=False)}"]


def render_result(result: dict[str, Any], *, save_dir: Path | None, stem: str) -> str:
    """The readable form of a wire `tools/call` result: its content, said once.

    `structuredContent` is shown only when there is no content (a server sending both usually
    repeats one in the other). Binary blocks are written to `save_dir` as `stem`-named files
    (None: a temporary folder made when the first one is written).
    """
    saver = _Saver(save_dir, stem)
    lines: list[str] = []
    for block in result.get("content") or []:
        lines.extend(_block_lines(block, saver) if isinstance(block, dict) else [str(block)])
    structured = result.get("structuredContent")
    if not lines and structured is not None:
        lines.append(json.dumps(structured, indent=2, ensure_ascii=False))
    return "\n".join(lines)


_MIN_BAR = 10
_MAX_BAR = 40


class ProgressDisplay:
    """Shows one call's progress on `stream`: one line redrawn when `live`, else a line each."""

    def __init__(self, stream: TextIO, *, live: bool) -> None:
        self._stream = stream
        self._live = live
        self._drawn = 0  # characters of the line currently on screen (live mode)

    def _line(self, progress: float, total: float | None, message: str | None) -> str:
        tail = " " + visible(message).replace("\n", "\\n") if message else ""  # one line
        if total is None or total <= 0:
            return f"progress {progress:g}{tail}"
        fraction = min(max(progress / total, 0.0), 1.0)
        if not self._live:
            return f"progress {progress:g}/{total:g} ({fraction:.0%}){tail}"
        columns = shutil.get_terminal_size((80, 24)).columns
        width = max(_MIN_BAR, min(_MAX_BAR, columns - 30))
        filled = round(fraction * width)
        bar = "#" * filled + "-" * (width - filled)
        line = f"[{bar}] {fraction:4.0%} {progress:g}/{total:g}{tail}"
        return line[: max(columns - 1, width + 2)]

    async def update(self, progress: float, total: float | None, message: str | None) -> None:
        """Draw one notification (the `mcp` client's progress callback signature)."""
        line = self._line(progress, total, message)
        if self._live:
            padding = " " * max(self._drawn - len(line), 0)
            self._stream.write(f"\r{line}{padding}")
            self._drawn = len(line)
        else:
            self._stream.write(line + "\n")
        self._stream.flush()

    def finish(self) -> None:
        """End the in-place line, so what follows starts on a fresh one."""
        if self._live and self._drawn:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = 0


class StdoutClosed(Exception):
    """Whoever read our stdout has gone (`toolwire ... | head`); nothing more can be shown.

    A command catches it around its own writes (never mistaking it for a lost server), cleans
    up, then ends silently by SIGPIPE (`end_for_closed_stdout`), as `cat` does.
    """


def write_stdout(text: str) -> None:
    """Print `text` and a newline to stdout, flushed; `StdoutClosed` if its reader is gone."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        raise StdoutClosed from None


def end_for_closed_stdout() -> int:
    """After clean-up, end as `cat` does on a closed pipe; without SIGPIPE, return a status."""
    # What is still buffered cannot be delivered: the interpreter must not retry it at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)
    sigpipe = getattr(signal, "SIGPIPE", None)
    if sigpipe is None:  # pragma: no cover - Windows
        return 1
    signal.signal(sigpipe, signal.SIG_DFL)
    os.kill(os.getpid(), sigpipe)
    return 128 + int(sigpipe)  # pragma: no cover - the signal ends the process first
