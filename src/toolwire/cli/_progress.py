"""The progress display of `toolwire call`, drawn on stderr from progress notifications.

On a terminal one line is redrawn in place (a bar when the total is known, a counter when
not); into a pipe or a file each notification becomes its own plain line, which logs and
tests can read.
"""

from __future__ import annotations

import shutil
from typing import TextIO

__all__ = ["ProgressDisplay"]

_MIN_BAR = 10
_MAX_BAR = 40


class ProgressDisplay:
    """Shows progress notifications for one call.

    Args:
        stream: Where to draw (stderr).
        live: Redraw one line in place (a terminal) instead of writing a line per update.
    """

    def __init__(self, stream: TextIO, *, live: bool) -> None:
        self._stream = stream
        self._live = live
        self._drawn = 0  # characters of the line currently on screen (live mode)

    def _line(self, progress: float, total: float | None, message: str | None) -> str:
        tail = f" {message}" if message else ""
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
