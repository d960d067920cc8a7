"""Newline-delimited framing: bytes in, whole frames (or "too long" verdicts) out. A line longer
than the limit is never buffered whole: it is counted to its newline, then reported with its
length and first bytes (enough for the session to answer the request's id)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HEAD_BYTES", "LineSplitter", "Oversized"]

HEAD_BYTES = 4096  # how much of a refused line is kept (clients write "id" before "params")


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than the limit: its full length and its first `HEAD_BYTES` bytes."""

    size: int
    head: bytes


class LineSplitter:
    """Split a byte stream into frames (stripped; blank lines skipped) and `Oversized` verdicts
    for lines over `limit` bytes (not counting the line ending)."""

    __slots__ = ("_buffer", "_head", "_limit", "_skipped")

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self._limit = limit
        self._buffer = bytearray()
        self._skipped = -1  # >= 0 while discarding an oversized line: bytes seen so far
        self._head = b""  # the first bytes of the line being discarded

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """Consume a chunk; return the frames and oversize verdicts it completed."""
        out: list[bytes | Oversized] = []
        start = 0
        end = len(chunk)
        while start < end:
            newline = chunk.find(b"\n", start)
            if self._skipped >= 0:
                if newline < 0:
                    self._skipped += end - start
                    return out
                out.append(Oversized(self._skipped + newline - start, self._head))
                self._skipped = -1
                self._head = b""
                start = newline + 1
                continue
            if newline < 0:
                self._buffer += chunk[start:]
                if len(self._buffer) > self._limit + 1:  # +1: a lone "\r" may still follow
                    self._skipped = len(self._buffer)
                    self._head = bytes(self._buffer[:HEAD_BYTES])
                    self._buffer = bytearray()
                return out
            if self._buffer:
                self._buffer += chunk[start:newline]
                line: bytes = bytes(self._buffer)
                self._buffer = bytearray()
            else:
                line = chunk[start:newline]
            start = newline + 1
            self._emit(line, out)
        return out

    def finish(self) -> list[bytes | Oversized]:
        """End of stream: a last line without a newline still counts as a frame."""
        out: list[bytes | Oversized] = []
        if self._skipped >= 0:
            out.append(Oversized(self._skipped, self._head))
        elif self._buffer:
            self._emit(bytes(self._buffer), out)
        self._buffer = bytearray()
        self._skipped = -1
        self._head = b""
        return out

    def _emit(self, line: bytes, out: list[bytes | Oversized]) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self._limit:
            out.append(Oversized(len(line), line[:HEAD_BYTES]))
            return
        line = line.strip()
        if line:
            out.append(line)
