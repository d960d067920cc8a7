"""The Agents SDK's operation form: one V4A diff per file, read with the SDK's grammar.

`create_text` turns a `create_file` diff (every line starts with "+") into the new file's
text, joined without a final newline unless the diff ends with an empty "+" line, as the SDK
does. `update_lines` finds each `@@` section of an `update_file` diff in the file the way
`agents.apply_diff` does (anchors, cursor, the three matching passes, `*** End of File`,
first match wins) and returns the edited lines. Results equal `apply_diff`'s for files with
one kind of line ending; a file that mixes them keeps each line's own.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from .edits import Edit, apply_edits
from .errors import PatchError
from .match import SDK_PASSES, Deadline, LineIndex, find
from .report import NOTHING_CHANGED, Hunk, not_found
from .text import Line, dominant_ending

__all__ = ["create_text", "diff_lines", "update_lines"]

END_PATCH = "*** End Patch"
END_FILE = "*** End of File"
_NEXT_FILE = (END_PATCH, "*** Update File:", "*** Delete File:", "*** Add File:")
_SECTION_STOPS = ("@@", *_NEXT_FILE, END_FILE)


def diff_lines(diff: str) -> list[str]:
    """The diff's lines, "\\r\\n" or "\\n" separated, without one empty last line."""
    lines = [line.rstrip("\r") for line in re.split(r"\r?\n", diff)]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _check_rest(lines: list[str], index: int, path: str, kind: str) -> None:
    """Refuse a diff that goes on past a file marker (the SDK silently drops the rest)."""
    for number in range(index, len(lines)):
        line = lines[number]
        if line.strip() and line.strip() != END_PATCH:
            raise PatchError(
                f'{path}: line {number + 1} of the {kind} diff ("{line}") cannot be read: an '
                "operation carries one file's diff, without *** file markers or anything "
                f"after them; send one operation per file. {NOTHING_CHANGED}"
            )


def create_text(diff: str, path: str) -> str:
    """A `create_file` diff's text.

    Raises:
        PatchError: A line does not start with "+", or something follows a file marker.
    """
    lines = diff_lines(diff)
    newline = "\r\n" if "\r\n" in diff else "\n"
    out: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith(_NEXT_FILE):
            _check_rest(lines, index, path, "create_file")
            break
        if not line.startswith("+"):
            raise PatchError(
                f'{path}: Invalid Add File Line {index + 1}: "{line}". Every line of a '
                f'create_file diff starts with "+" (the file\'s text follows it). '
                f"{NOTHING_CHANGED}"
            )
        out.append(line[1:])
    return newline.join(out)


@dataclass
class _Section:
    context: list[str] = field(default_factory=list)
    edits: list[tuple[int, list[str], list[str]]] = field(default_factory=list)
    end: int = 0
    at_end_of_file: bool = False


def _read_anchors(lines: list[str], index: int) -> tuple[list[str], int, int]:
    """The `@@` lines opening a section: their texts, how many there were, the next index."""
    anchors: list[str] = []
    count = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("@@ "):
            text = line[3:]
        elif line == "@@":
            text = ""
        else:
            break
        index += 1
        count += 1
        if text.strip():
            anchors.append(text)
    return anchors, count, index


def _read_section(lines: list[str], start: int, hunk: Hunk) -> _Section:
    section = _Section()
    removed: list[str] = []
    added: list[str] = []
    mode = "keep"
    index = start

    def flush() -> None:
        nonlocal removed, added
        if removed or added:
            section.edits.append((len(section.context) - len(removed), removed, added))
            removed, added = [], []

    while index < len(lines):
        raw = lines[index]
        if raw.startswith(_SECTION_STOPS) or raw == "***":
            break
        if raw.startswith("***"):
            raise PatchError(
                f'{hunk}: Invalid Line {index + 1}: "{raw}" is not a diff line or a known '
                f"*** marker. {NOTHING_CHANGED}"
            )
        line = raw or " "
        previous = mode
        if line[0] == "+":
            mode = "add"
        elif line[0] == "-":
            mode = "delete"
        elif line[0] == " ":
            mode = "keep"
        else:
            raise PatchError(
                f'{hunk}: Invalid Line {index + 1}: "{line}". A hunk line starts with " " '
                f'(context), "-" (removed) or "+" (added). {NOTHING_CHANGED}'
            )
        index += 1
        if mode == "keep" and previous != "keep":
            flush()
        body = line[1:]
        if mode == "delete":
            removed.append(body)
            section.context.append(body)
        elif mode == "add":
            added.append(body)
        else:
            section.context.append(body)
    flush()
    if index < len(lines) and lines[index] == END_FILE:
        section.end, section.at_end_of_file = index + 1, True
        return section
    if index == start:
        following = lines[index] if index < len(lines) else "(end of diff)"
        raise PatchError(
            f'{hunk}: Nothing in this section (diff line {index + 1}: "{following}"): a hunk '
            f"needs at least one line. {NOTHING_CHANGED}"
        )
    section.end = index
    return section


def _advance_to_anchor(
    anchor: str, lines: LineIndex, cursor: int, *, only_forward: bool
) -> tuple[int, bool]:
    """Move the cursor past an `@@` anchor's line: exact text first, then trimmed.

    An anchor already seen above the cursor leaves it where it is (the SDK's rule) unless
    `only_forward` (a second stacked anchor) says to look below it.
    """
    for key in SDK_PASSES[::2]:  # the exact text, then both ends trimmed
        _, where = lines.view(key)
        positions = where.get(key(anchor), [])
        if not only_forward and positions and positions[0] < cursor:
            return cursor, True
        later = positions[bisect_left(positions, cursor) :]
        if later:
            return later[0] + 1, True
    return cursor, False


def update_lines(
    old: Sequence[Line],
    diff: str,
    path: str,
    deadline: Deadline,
) -> tuple[list[Line], str]:
    """Apply an `update_file` diff to a file's lines (a trailing empty line stands for a final
    newline, as in `text.split("\\n")`).

    Returns:
        The new lines and the ending for lines that have none.

    Raises:
        PatchError: The diff is malformed, or a section's context or anchor is not found.
    """
    texts = [text for text, _ in old]
    index_of = LineIndex(texts)
    lines = diff_lines(diff)
    has_newline = any(ending is not None for _, ending in old)
    newline = dominant_ending(list(old)) if has_newline else ("\r\n" if "\r\n" in diff else "\n")
    shown = texts[:-1] if texts and texts[-1] == "" else texts
    edits: list[Edit] = []
    cursor = 0
    index = 0
    number = 0
    while index < len(lines) and not lines[index].startswith((*_NEXT_FILE, END_FILE)):
        deadline.check()
        number += 1
        anchors, count, index = _read_anchors(lines, index)
        hunk = Hunk(path, number, anchors)
        if count == 0 and cursor != 0:
            raise PatchError(
                f'{hunk}: Invalid Line {index + 1}: "{lines[index]}". Every hunk after the '
                f"first starts with an @@ line. {NOTHING_CHANGED}"
            )
        for position, anchor in enumerate(anchors):
            cursor, found = _advance_to_anchor(anchor, index_of, cursor, only_forward=position > 0)
            if not found and count > 1:
                raise not_found(
                    hunk,
                    shown,
                    [anchor],
                    cursor,
                    what=f'@@ line "{anchor}"',
                    headline=f"Invalid Anchor {cursor}",
                    deadline=deadline,
                )
        section = _read_section(lines, index, hunk)
        context = section.context
        if section.at_end_of_file:
            tail = len(shown)
            at, _ = find(index_of, context, max(0, tail - len(context)), SDK_PASSES, deadline, tail)
            if at == -1:
                at, _ = find(index_of, context, min(cursor, tail), SDK_PASSES, deadline, tail)
        else:
            at, _ = find(index_of, context, cursor, SDK_PASSES, deadline)
        if at == -1:
            label = "Invalid EOF Context" if section.at_end_of_file else "Invalid Context"
            raise not_found(
                hunk,
                shown,
                context,
                cursor,
                what="end-of-file context" if section.at_end_of_file else "context",
                headline=f"{label} {cursor}",
                deadline=deadline,
            )
        cursor = at + len(context)
        index = section.end
        edits.extend(Edit(at + rel, len(removed), added) for rel, removed, added in section.edits)
    _check_rest(lines, index, path, "update_file")
    return apply_edits(old, edits, path), newline
