"""Replacing blocks of lines while every untouched line keeps its own ending."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import NOTHING_CHANGED, PatchError
from .text import Line

__all__ = ["Edit", "apply_edits"]


@dataclass(frozen=True)
class Edit:
    """Replace `count` lines from `start` with `new` (texts; their endings are chosen here).

    Attributes:
        start: Index of the first replaced line.
        count: How many lines go.
        new: The texts that come in their place.
    """

    start: int
    count: int
    new: Sequence[str]


def apply_edits(lines: Sequence[Line], edits: Sequence[Edit], path: str) -> list[Line]:
    """Apply edits given in file order; a new line takes the ending of the first line it
    replaces, or none (the file's usual ending is used when writing).

    Raises:
        PatchError: Two edits overlap, or one starts past the end (the message names the file).
    """
    out: list[Line] = []
    cursor = 0
    for edit in edits:
        if edit.start > len(lines):
            raise PatchError(
                f"{path}: a change starts at line {edit.start + 1}, past the end of the file "
                f"({len(lines)} lines). {NOTHING_CHANGED}"
            )
        if edit.start < cursor:
            raise PatchError(
                f"{path}: two hunks change overlapping lines (around line {edit.start + 1}); "
                f"merge them into one hunk. {NOTHING_CHANGED}"
            )
        out.extend(lines[cursor : edit.start])
        ending = lines[edit.start][1] if edit.count and edit.start < len(lines) else None
        out.extend((text, ending if k == 0 else None) for k, text in enumerate(edit.new))
        cursor = edit.start + edit.count
    out.extend(lines[cursor:])
    return out
