"""Codex's patch envelope: parsing `*** Begin Patch` ... `*** End Patch`, and applying its hunks.

The parser is as lenient as Codex's: markers may be padded with spaces, the whole patch may
sit in a `<<'EOF'` heredoc, blank lines may separate hunks (and, here, files), and a file's
first hunk may omit its `@@` line. It also accepts stacked `@@` lines, as the SDK does. The
applier follows Codex: each hunk's old lines (context and removed) are found forward from the
end of the previous hunk with the four matching passes, a hunk without context lines is
appended at the end, `*** End of File` hunks are tried at the end first, and the result ends
with a newline. Unlike Codex, a hunk without an `@@` line whose lines occur at several places
is refused with all of them listed, rather than applied to the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .edits import Edit, apply_edits
from .errors import PatchError
from .match import CODEX_PASSES, Deadline, LineIndex, find, find_all
from .report import NOTHING_CHANGED, Hunk, ambiguous, not_found
from .text import Line

__all__ = ["Chunk", "FilePatch", "parse", "update_lines"]

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
_HEREDOCS = ("<<EOF", "<<'EOF'", '<<"EOF"')


@dataclass
class Chunk:
    """One `@@` hunk of an update.

    Attributes:
        anchors: The texts of its `@@ ...` lines (narrowing where it applies).
        old: Its context and removed lines, in order.
        new: Its context and added lines, in order.
        at_end: Whether it ended with `*** End of File`.
        ops: Its lines in order, each as (" ", "-" or "+", text).
    """

    anchors: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    at_end: bool = False
    ops: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class FilePatch:
    """One file's part of the envelope.

    Attributes:
        kind: "add", "delete" or "update".
        path: The file, as written in the patch.
        move_to: The new name of an updated file, if any.
        contents: An added file's text.
        chunks: An update's hunks.
    """

    kind: Literal["add", "delete", "update"]
    path: str
    move_to: str | None = None
    contents: str = ""
    chunks: list[Chunk] = field(default_factory=list)


def _invalid(message: str) -> PatchError:
    return PatchError(f"invalid patch: {message}. {NOTHING_CHANGED}")


def _bad_line(number: int, message: str) -> PatchError:
    return PatchError(f"invalid hunk at line {number}, {message}. {NOTHING_CHANGED}")


def _body(patch: str) -> tuple[list[str], int]:
    """The lines between the markers, and the patch line number of the first of them."""
    lines = [line.rstrip("\r") for line in patch.strip().split("\n")]
    first = 1
    if lines and lines[0].strip().startswith("apply_patch <<"):
        lines[0] = lines[0].strip()[len("apply_patch ") :]
    wrapped = len(lines) >= 4 and lines[0].strip() in _HEREDOCS
    if wrapped and lines[-1].strip().endswith("EOF") and lines[1].strip() == BEGIN:
        lines = lines[1:-1]
        first = 2
    if not lines or lines[0].strip() != BEGIN:
        got = lines[0] if lines else ""
        raise _invalid(f"The first line of the patch must be '{BEGIN}', got '{got[:120]}'")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise _invalid(f"The last line of the patch must be '{END}', got '{lines[-1][:120]}'")
    return lines[1:-1], first + 1


def _is_anchor(line: str) -> bool:
    return line.rstrip() == "@@" or line.startswith("@@ ")


def _chunk(lines: list[str], index: int, base: int) -> tuple[Chunk, int]:
    chunk = Chunk()
    while index < len(lines) and _is_anchor(lines[index]):
        text = lines[index][3:] if lines[index].startswith("@@ ") else ""
        if text.strip():
            chunk.anchors.append(text)
        index += 1
    body = 0
    while index < len(lines):
        line = lines[index]
        if line.strip() == END_OF_FILE:
            if body == 0:
                raise _bad_line(base + index, "Update hunk does not contain any lines")
            chunk.at_end = True
            index += 1
            break
        kind = line[0] if line else " "
        if kind in " +-":
            text = line[1:]
            chunk.ops.append((kind, text))
            if kind != "+":
                chunk.old.append(text)
            if kind != "-":
                chunk.new.append(text)
        else:
            if body == 0:
                raise _bad_line(
                    base + index,
                    f"Unexpected line found in update hunk: '{line[:120]}'. Every line should "
                    "start with ' ' (context line), '+' (added line), or '-' (removed line)",
                )
            break
        body += 1
        index += 1
    if body == 0:
        raise _bad_line(base + index, "Update hunk does not contain any lines")
    return chunk, index


def _update(lines: list[str], index: int, path: str, base: int) -> tuple[FilePatch, int]:
    patch = FilePatch("update", path)
    start = index
    if index < len(lines) and lines[index].strip().startswith(MOVE.strip()):
        patch.move_to = lines[index].strip()[len(MOVE.strip()) :].strip()
        index += 1
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        if line.startswith("*"):
            break
        if _is_anchor(line) or not patch.chunks:
            chunk, index = _chunk(lines, index, base)
        else:
            raise _bad_line(
                base + index,
                f"Expected update hunk to start with a @@ context marker, got: '{line[:120]}'",
            )
        patch.chunks.append(chunk)
    if not patch.chunks:
        raise _bad_line(base + start - 1, f"Update file hunk for path '{path}' is empty")
    return patch, index


def parse(patch: str) -> list[FilePatch]:
    """Read an envelope into its files, in order.

    Raises:
        PatchError: The envelope is malformed; the message gives the patch's line number.
    """
    lines, base = _body(patch)
    files: list[FilePatch] = []
    index = 0
    while index < len(lines):
        header = lines[index].strip()
        if not header:
            index += 1
            continue
        index += 1
        if header.startswith(ADD):
            path = header[len(ADD) :].strip()
            added: list[str] = []
            while index < len(lines) and lines[index].startswith("+"):
                added.append(lines[index][1:] + "\n")
                index += 1
            files.append(FilePatch("add", path, contents="".join(added)))
        elif header.startswith(DELETE):
            files.append(FilePatch("delete", header[len(DELETE) :].strip()))
        elif header.startswith(UPDATE):
            update, index = _update(lines, index, header[len(UPDATE) :].strip(), base)
            files.append(update)
        else:
            raise _bad_line(
                base + index - 1,
                f"'{header[:120]}' is not a valid hunk header. Valid hunk headers: "
                f"'{ADD}{{path}}', '{DELETE}{{path}}', '{UPDATE}{{path}}'",
            )
        if not files[-1].path:
            raise _bad_line(base + index - 1, f"'{header}' names no file")
    if not files:
        raise _invalid("the patch names no file to add, delete or update")
    return files


def _seek(
    texts: LineIndex, block: Sequence[str], start: int, at_end: bool, deadline: Deadline
) -> tuple[int, int]:
    if at_end and len(block) <= len(texts):
        at, number = find(texts, block, len(texts) - len(block), CODEX_PASSES, deadline)
        if at != -1:
            return at, number
    return find(texts, block, start, CODEX_PASSES, deadline)


def _edits(ops: Sequence[tuple[str, str]], at: int) -> list[Edit]:
    """A hunk's changes as edits; its context lines keep the file's own text."""
    edits: list[Edit] = []
    position = at
    removed = 0
    added: list[str] = []
    for kind, text in [*ops, (" ", "")]:
        if kind == " ":
            if removed or added:
                edits.append(Edit(position - removed, removed, added))
                removed, added = 0, []
            position += 1
        elif kind == "-":
            removed += 1
            position += 1
        else:
            added.append(text)
    return edits


def update_lines(
    old: Sequence[Line], chunks: Sequence[Chunk], path: str, deadline: Deadline
) -> list[Line]:
    """Apply an update's hunks to a file's lines (no empty line standing for a final newline).

    Raises:
        PatchError: An anchor or a hunk's lines are not found, or a hunk is ambiguous.
    """
    texts = [text for text, _ in old]
    index_of = LineIndex(texts)
    edits: list[Edit] = []
    index = 0
    for number, chunk in enumerate(chunks, 1):
        deadline.check()
        hunk = Hunk(path, number, chunk.anchors)
        for anchor in chunk.anchors:
            at, _ = find(index_of, [anchor], index, CODEX_PASSES, deadline)
            if at == -1:
                raise not_found(
                    hunk,
                    texts,
                    [anchor],
                    index,
                    what=f'@@ line "{anchor}"',
                    headline=f"Failed to find context '{anchor}' in {path}",
                    deadline=deadline,
                )
            index = at + 1
        if not chunk.old:
            end = len(texts) - 1 if texts and texts[-1] == "" else len(texts)
            edits.append(Edit(end, 0, chunk.new))
            continue
        block, ops = chunk.old, chunk.ops
        at, number_of_pass = _seek(index_of, block, index, chunk.at_end, deadline)
        while at == -1 and len(block) > 1 and block[-1] == "":
            # Blank lines closing a hunk may separate it from the next one, or stand for
            # the file's final newline: try again without them, one at a time.
            block = block[:-1]
            last = max(k for k, (kind, _) in enumerate(ops) if kind != "+")
            ops = ops[:last] + ops[last + 1 :]
            at, number_of_pass = _seek(index_of, block, index, chunk.at_end, deadline)
        if at == -1:
            raise not_found(
                hunk,
                texts,
                block,
                index,
                headline=f"Failed to find expected lines in {path}",
                deadline=deadline,
            )
        at_the_end = chunk.at_end and at == len(texts) - len(block)
        if block and not chunk.anchors and not at_the_end:
            places = find_all(index_of, block, index, CODEX_PASSES[number_of_pass], deadline)
            if len(places) > 1:
                raise ambiguous(hunk, texts, block, places)
        edits.extend(_edits(ops, at))
        index = at + len(block)
    edits.sort(key=lambda edit: edit.start)
    return apply_edits(old, edits, path)
