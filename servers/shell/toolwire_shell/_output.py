"""Output kept while it is read: a bounded head and tail per stream, and how it is cut and
rendered for the model.

A `Capture` keeps the first and the last `limit // 2` bytes of a stream, counting the rest, so a
command that prints gigabytes costs a constant amount of memory. What reaches the model is cut
again under one budget spent the way the Agents SDK spends `max_output_length` (each command's
stdout, then its stderr, in order) but keeping head and tail around a marker that says how much
was cut instead of dropping the tail. `render` writes `shell` results as the SDK renders them
(`$ command`, stdout, `stderr:`, `exit code: N`, `status: timeout`, `(no output)`), and
`render_exec` an `exec_command` / `write_stdin` reply as the SDK sandbox's tools do (`Chunk ID`,
`Wall time`, the exit code or the session id, `Output:`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Capture",
    "CommandResult",
    "cut",
    "render",
    "render_exec",
    "spend_budget",
    "token_cut",
]


# Under this many bytes a capture keeps only its start: a marker and a tail would not fit.
_SMALL = 64


def marker(removed: int) -> str:
    """The text standing where `removed` bytes were cut."""
    return f"\n…{removed} bytes cut…\n"


class Capture:
    """The bounded copy of one output stream.

    Args:
        limit: Bytes kept at most (half from the start, half from the end).
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.total = 0
        self.lines = 0
        small = self.limit < _SMALL
        self._head_room = self.limit if small else self.limit - self.limit // 2
        self._tail_room = 0 if small else self.limit // 2

    def add(self, chunk: bytes) -> None:
        """Keep what fits of `chunk`."""
        self.total += len(chunk)
        self.lines += chunk.count(b"\n")
        room = self._head_room - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk or self._tail_room == 0:
            return
        if len(chunk) >= self._tail_room:
            self._tail.clear()
            self._tail.append(bytes(chunk[-self._tail_room :]))
            self._tail_size = self._tail_room
            return
        self._tail.append(bytes(chunk))
        self._tail_size += len(chunk)
        while self._tail_size > self._tail_room:
            first = self._tail[0]
            excess = self._tail_size - self._tail_room
            if len(first) <= excess:
                self._tail.popleft()
                self._tail_size -= len(first)
            else:
                self._tail[0] = first[excess:]
                self._tail_size -= excess

    @property
    def cut_bytes(self) -> int:
        """How many bytes were seen but not kept."""
        return self.total - len(self._head) - self._tail_size

    def tail_text(self, size: int) -> str:
        """The last `size` bytes kept, decoded (for progress messages)."""
        data = b"".join(self._tail) if self._tail_size else bytes(self._head)
        return data[-size:].decode("utf-8", "replace")

    def take(self) -> Capture:
        """Hand over what is kept and start empty (a session's output read so far)."""
        taken = Capture(self.limit)
        taken._head, taken._tail, taken._tail_size = self._head, self._tail, self._tail_size
        taken.total, taken.lines = self.total, self.lines
        self._head, self._tail, self._tail_size = bytearray(), deque(), 0
        self.total = self.lines = 0
        return taken

    def text(self) -> str:
        """What is kept, decoded: at most `limit` characters, the marker included."""
        head = bytes(self._head)
        tail = b"".join(self._tail)
        if self.cut_bytes == 0:
            return (head + tail).decode("utf-8", "replace")
        # Make room for the marker inside the limit, so a later cut to the same budget
        # leaves this text as it is.
        room = self.limit
        for _ in range(3):
            room = max(0, self.limit - len(marker(self.total - room)))
        if room < len(marker(self.total - room)):  # no room for a marker and some output
            return head[: self.limit].decode("utf-8", "replace")[: self.limit]
        head_keep = min(len(head), room - room // 2)
        tail_keep = min(len(tail), room - head_keep)
        kept_tail = tail[len(tail) - tail_keep :] if tail_keep else b""
        removed = self.total - head_keep - len(kept_tail)
        return (
            head[:head_keep].decode("utf-8", "replace")
            + marker(removed)
            + kept_tail.decode("utf-8", "replace")
        )


def cut(text: str, budget: int) -> str:
    """`text` in at most `budget` characters: head and tail around a marker when it is longer."""
    if len(text) <= budget:
        return text
    removed = len(text) - budget
    sign = marker(removed)
    room = budget - len(sign)
    if room < len(sign):  # no room for a marker and as much output: the start, as the SDK
        return text[:budget]
    # The marker's own length shifts what is cut; count what is really left out.
    head = room - room // 2
    tail = room // 2
    removed = len(text) - head - tail
    sign = marker(removed)
    room = budget - len(sign)
    if room <= 0:
        return text[:budget]
    head, tail = room - room // 2, room // 2
    return text[:head] + marker(len(text) - head - tail) + (text[-tail:] if tail else "")


_BYTES_PER_TOKEN = 4


def _tokens(size: int) -> int:
    """Tokens for `size` bytes, rounded up (4 bytes a token)."""
    return max(0, -(-size // _BYTES_PER_TOKEN))


def token_cut(capture: Capture, max_tokens: int | None) -> tuple[str, int | None]:
    """What a session read returns under `max_tokens`, as the SDK sandbox cuts exec output:
    the text as it is when it fits in 4 bytes a token; otherwise `Total output lines: N`,
    then its first and last bytes (whole characters) around `…N tokens truncated…`, in the
    budget. Also the output's size in tokens when it was cut, else None.

    When the capture itself dropped bytes (a session's buffer overflowed between reads), the
    line and token counts are those of everything the command printed.
    """
    text = capture.text()
    data = text.encode("utf-8")
    budget = max(0, max_tokens or 0) * _BYTES_PER_TOKEN
    if max_tokens is None or len(data) <= budget:
        return text, None
    whole = capture.cut_bytes == 0
    total = len(data) if whole else capture.total
    lines = len(text.splitlines()) if whole else capture.lines
    heading = f"Total output lines: {lines}\n\n".encode()
    sign = f"…{_tokens(total)} tokens truncated…".encode()
    if len(heading) + len(sign) > budget:
        heading = b""
    room = budget - len(heading) - len(sign)
    if room < 0:
        return sign[:budget].decode("utf-8", "ignore"), _tokens(total)
    # Whole characters only: a character cut by the edge of either part is left out.
    head = data[: room // 2].decode("utf-8", "ignore").encode()
    tail = data[len(data) - (room - room // 2) :].decode("utf-8", "ignore").encode()
    removed = total - len(head) - len(tail)
    sign = f"…{_tokens(removed)} tokens truncated…".encode()
    return (heading + head + sign + tail).decode(), _tokens(total)


@dataclass
class CommandResult:
    """One command's result in the SDK's `ShellCommandOutput` shape."""

    command: str
    stdout: str = ""
    stderr: str = ""
    outcome: str = "exit"  # "exit" | "timeout"
    exit_code: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The structured form the `shell` tool returns for this command."""
        outcome: dict[str, Any] = {"type": self.outcome}
        if self.outcome == "exit":
            outcome["exit_code"] = self.exit_code
        return {
            "command": self.command,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "outcome": outcome,
            **self.extra,
        }


def spend_budget(results: list[CommandResult], budget: int | None) -> None:
    """Cut the commands' outputs under one budget of characters, in place: each command's
    stdout, then its stderr, in order, as the SDK spends `max_output_length`."""
    if budget is None:
        return
    left = max(0, budget)
    for result in results:
        for name in ("stdout", "stderr"):
            text: str = getattr(result, name)
            kept = cut(text, left) if left > 0 else ""
            setattr(result, name, kept)
            left -= len(kept)


def render(results: list[CommandResult]) -> str:
    """The results as the SDK renders shell output for the model."""
    if not results:
        return "(no output)"
    chunks = []
    for result in results:
        lines = [f"$ {result.command}"] if result.command else []
        stdout, stderr = result.stdout.rstrip("\n"), result.stderr.rstrip("\n")
        if stdout:
            lines.append(stdout)
        if stderr:
            lines.extend(["", "stderr:", stderr] if stdout else ["stderr:", stderr])
        if result.outcome == "exit" and result.exit_code not in (None, 0):
            lines.append(f"exit code: {result.exit_code}")
        if result.outcome == "timeout":
            lines.append("status: timeout")
        chunks.append("\n".join(lines).strip() or "(no output)")
    return "\n\n".join(chunks)


def render_exec(reply: dict[str, Any]) -> str:
    """An `exec_command` or `write_stdin` reply as the SDK sandbox writes it for the model."""
    lines = [
        f"Chunk ID: {reply['chunk_id']}",
        f"Wall time: {reply['wall_time_seconds']:.4f} seconds",
    ]
    if reply.get("exit_code") is not None:
        lines.append(f"Process exited with code {reply['exit_code']}")
    if reply.get("session_id") is not None:
        lines.append(f"Process running with session ID {reply['session_id']}")
    if reply.get("original_token_count") is not None:
        lines.append(f"Original token count: {reply['original_token_count']}")
    lines += ["Output:", reply["output"]]
    return "\n".join(lines)
