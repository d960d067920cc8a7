"""Line matching for content search that cannot freeze the server.

Python's `re` holds the interpreter lock for a whole match, so one pathological expression
(`^(a+)+$` against a long line) would stop every thread of the server, its event loop
included, for as long as it backtracks. A literal pattern cannot backtrack and is matched
here; any other runs in a helper process (`python -I -S`, nothing imported but `re` and
`json`) that receives the texts already read through the confined root, answers batch by
batch, and is killed at the deadline. The helper never touches the file system.
"""

from __future__ import annotations

import json
import os
import re
import select
import struct
import subprocess
import sys
import time

__all__ = ["Hit", "Matcher", "TimeUp", "matcher_for"]

Hit = tuple[int, str]  # (line number, line)

_HELPER = r"""
import json, re, struct, sys
read, write = sys.stdin.buffer.read, sys.stdout.write
head = json.loads(sys.stdin.buffer.readline())
rx = re.compile(head["pattern"], head["flags"])
screen = re.compile(head["pattern"], head["flags"] | re.M) if head["screen"] else None
width, shown = head["width"], head["shown"]
while True:
    size = read(4)
    if len(size) < 4:
        break
    batch = json.loads(read(struct.unpack(">I", size)[0]))
    found = []
    for text in batch:
        hits = []
        if screen is None or screen.search(text):
            for number, raw in enumerate(text.split("\n"), 1):
                line = raw.rstrip("\r")
                if rx.search(line[:width]):
                    hits.append([number, line[:shown]])
        found.append(hits)
    write(json.dumps(found) + "\n")
    sys.stdout.flush()
"""
_BATCH_CHARS = 1 << 19


class TimeUp(Exception):
    """The deadline passed before the texts were matched."""


class Matcher:
    """Matches texts line by line against one expression, in batches.

    Args:
        regex: The compiled expression.
        deadline: `time.monotonic()` value past which matching stops (TimeUp).
        width: The longest part of a line looked at.
        shown: The longest part of a matching line returned.
    """

    def __init__(self, regex: re.Pattern[str], deadline: float, width: int, shown: int) -> None:
        self.regex = regex
        self.deadline = deadline
        self.width = width
        self.shown = shown
        # With MULTILINE, ^ and $ match wherever they would in a line: a whole-text screen.
        anchored = "\\A" in regex.pattern or "\\Z" in regex.pattern
        self.screen = not anchored
        self._screen = re.compile(regex.pattern, regex.flags | re.MULTILINE)

    def match(self, texts: list[str]) -> list[list[Hit]]:
        """The hits of each text, in order.

        Raises:
            TimeUp: The deadline passed.
        """
        found = []
        for text in texts:
            if time.monotonic() > self.deadline:
                raise TimeUp
            hits: list[Hit] = []
            if not self.screen or self._screen.search(text):
                for number, raw in enumerate(text.split("\n"), start=1):
                    line = raw.rstrip("\r")
                    if self.regex.search(line[: self.width]):
                        hits.append((number, line[: self.shown]))
            found.append(hits)
        return found

    def close(self) -> None:
        """Release what the matcher holds."""


class _HelperMatcher(Matcher):
    """The same, in a helper process killed at the deadline."""

    def __init__(self, regex: re.Pattern[str], deadline: float, width: int, shown: int) -> None:
        super().__init__(regex, deadline, width, shown)
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _HELPER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._buffer = b""
        head = {
            "pattern": regex.pattern,
            "flags": int(regex.flags & ~re.UNICODE),
            "screen": self.screen,
            "width": width,
            "shown": shown,
        }
        self._send(json.dumps(head).encode() + b"\n")

    def _send(self, data: bytes) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(data)
            process.stdin.flush()
        except OSError:
            raise TimeUp from None

    def match(self, texts: list[str]) -> list[list[Hit]]:
        found: list[list[Hit]] = []
        start = 0
        while start < len(texts):
            end, size = start, 0
            while end < len(texts) and (end == start or size + len(texts[end]) < _BATCH_CHARS):
                size += len(texts[end])
                end += 1
            frame = json.dumps(texts[start:end]).encode()
            self._send(struct.pack(">I", len(frame)) + frame)
            for hits in json.loads(self._reply()):
                found.append([(int(number), str(line)) for number, line in hits])
            start = end
        return found

    def _reply(self) -> bytes:
        process = self._process
        assert process is not None and process.stdout is not None
        fd = process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                self.close()
                raise TimeUp
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.close()
                raise TimeUp
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


def matcher_for(regex: re.Pattern[str], deadline: float, width: int, shown: int) -> Matcher:
    """A matcher in this process for a literal pattern, in a helper process otherwise."""
    if re.escape(regex.pattern) == regex.pattern or regex.pattern.isalnum():
        return Matcher(regex, deadline, width, shown)
    return _HelperMatcher(regex, deadline, width, shown)
