"""Error texts that let a model repair its patch: where it failed, and what the file holds there.

Every message names the file and the hunk (its number and its `@@` line), quotes the first
line of the hunk that does not match beside the file's line at that place, and shows a few
numbered lines of the file around it. An ambiguous hunk lists every line it matches at.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import NOTHING_CHANGED, PatchError
from .match import Deadline, nearest_miss

__all__ = ["NOTHING_CHANGED", "Hunk", "ambiguous", "excerpt", "not_found"]

_SHOWN_MATCHES = 20
_LINE_CAP = 200


def _clip(line: str) -> str:
    return line if len(line) <= _LINE_CAP else line[:_LINE_CAP] + "…"


def excerpt(lines: Sequence[str], first: int, last: int, mark: int | None = None) -> str:
    """Lines `first..last` (0-based, inclusive, clamped) numbered from 1; `mark` gets a '>'."""
    if not lines:
        return "      (the file is empty)"
    first = max(0, first)
    last = min(len(lines) - 1, last)
    width = len(str(last + 1))
    rows = []
    for index in range(first, last + 1):
        pointer = ">" if index == mark else " "
        rows.append(f"  {pointer} {index + 1:>{width}} | {_clip(lines[index])}")
    return "\n".join(rows)


class Hunk:
    """How a hunk is named in messages: the file, its number and its `@@` lines.

    Args:
        path: The file as the patch names it.
        number: The hunk's 1-based position among the file's hunks.
        anchors: Its `@@` texts (may be empty).
    """

    def __init__(self, path: str, number: int, anchors: Sequence[str]) -> None:
        self.path = path
        self.number = number
        self.anchors = list(anchors)

    def __str__(self) -> str:
        label = f"{self.path}, hunk {self.number}"
        if self.anchors:
            label += " (" + " / ".join(f"@@ {anchor}" for anchor in self.anchors) + ")"
        return label


def not_found(
    hunk: Hunk,
    lines: Sequence[str],
    block: Sequence[str],
    cursor: int,
    *,
    what: str = "context",
    headline: str | None = None,
    deadline: Deadline | None = None,
) -> PatchError:
    """The error for a block of lines (a hunk's context, or an anchor) missing from the file."""
    parts = [headline] if headline else []
    where = f"after line {cursor}" if cursor > 0 else "in the file"
    parts.append(f"{hunk}: the hunk's {what} was not found {where}.")
    miss = nearest_miss(lines, block, cursor, deadline or Deadline(None))
    if miss is None or miss.agree == 0:
        first = block[0] if block else ""
        parts.append(f'Its first line "{_clip(first)}" occurs nowhere in the file.')
        around = min(cursor, max(0, len(lines) - 1))
        parts.append(f"The file from line {around + 1}:")
        parts.append(excerpt(lines, around, around + 4))
    elif miss.first_wrong == len(block):
        parts.append(f"Its lines do occur at line {miss.at + 1},")
        if miss.at < cursor:
            parts.append(
                f"above line {cursor + 1}, where the previous hunk left off: hunks must "
                "follow the file's order."
            )
        else:
            parts.append(
                "but only once typographic punctuation (dashes, curly quotes, odd spaces) "
                "is ignored, which this tool does not do: copy those lines exactly."
            )
        parts.append("The file there:")
        parts.append(excerpt(lines, miss.at - 1, miss.at + len(block), miss.at))
    else:
        file_index = miss.at + miss.first_wrong
        parts.append(
            f"Closest place: line {miss.at + 1}, where {miss.agree} of its {len(block)} lines "
            f"match. The hunk's line {miss.first_wrong + 1} differs from the file's line "
            f"{file_index + 1}:"
        )
        parts.append(f'  hunk: "{_clip(block[miss.first_wrong])}"')
        shown = lines[file_index] if file_index < len(lines) else "(end of file)"
        parts.append(f'  file: "{_clip(shown)}"')
        if miss.at < cursor:
            parts.append(
                f"That place is above line {cursor + 1}, where the previous hunk left off: "
                "hunks must follow the file's order."
            )
        parts.append("The file there:")
        parts.append(
            excerpt(lines, miss.at - 1, miss.at + max(len(block), miss.first_wrong + 1), file_index)
        )
    parts.append(NOTHING_CHANGED)
    return PatchError("\n".join(parts))


def ambiguous(
    hunk: Hunk, lines: Sequence[str], block: Sequence[str], places: list[int]
) -> PatchError:
    """The error for a hunk whose context occurs at several places."""
    numbers = ", ".join(str(at + 1) for at in places[:_SHOWN_MATCHES])
    if len(places) > _SHOWN_MATCHES:
        numbers += f" and {len(places) - _SHOWN_MATCHES} more"
    parts = [
        f"{hunk}: the hunk's context matches {len(places)} places (starting at lines "
        f"{numbers}); which one is meant is unclear. Add an @@ line naming the enclosing "
        "function or class, or more context lines.",
    ]
    for at in places[:3]:
        parts.append(f"At line {at + 1}:")
        parts.append(excerpt(lines, at, at + len(block) - 1))
    parts.append(NOTHING_CHANGED)
    return PatchError("\n".join(parts))
