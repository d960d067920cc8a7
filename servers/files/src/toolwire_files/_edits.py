"""Text files as the server edits them: decoded with their encoding, BOM and line endings
remembered, edited by exact replacement that refuses ambiguity, and encoded back unchanged in
every respect but the edit.

Encodings: a UTF-8 BOM, a UTF-16 BOM, otherwise UTF-8, otherwise Latin-1 (which maps every
byte, so the file round-trips byte for byte). A file whose line breaks are all CRLF is edited
with LF and written back with CRLF; edits' own CRLFs are normalised the same way.
"""

from __future__ import annotations

import codecs
import hashlib
from dataclasses import dataclass

__all__ = ["EditError", "TextFile", "apply_edits", "sha256", "unified_diff"]


class EditError(ValueError):
    """An edit could not be applied; the message says which and why."""


def sha256(data: bytes) -> str:
    """The SHA-256 of `data`, in hex."""
    return hashlib.sha256(data).hexdigest()


@dataclass
class TextFile:
    """A file's text with what it takes to write it back as it was.

    Attributes:
        text: The text, with LF line breaks when the file used CRLF throughout.
        encoding: The codec name.
        bom: The byte-order mark the file started with (b"" for none).
        crlf: Whether the file's line breaks were all CRLF.
    """

    text: str
    encoding: str
    bom: bytes
    crlf: bool

    @classmethod
    def decode(cls, data: bytes) -> TextFile:
        """Decode a file's bytes (see the module docstring)."""
        bom = b""
        encoding = "utf-8"
        if data.startswith(codecs.BOM_UTF8):
            bom = codecs.BOM_UTF8
        elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            bom = data[:2]
            encoding = "utf-16-le" if bom == codecs.BOM_UTF16_LE else "utf-16-be"
        body = data[len(bom) :]
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError:
            encoding = "latin-1"
            text = body.decode(encoding)
        crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        if crlf:
            text = text.replace("\r\n", "\n")
        return cls(text, encoding, bom, crlf)

    def encode(self, text: str) -> bytes:
        """`text` (LF line breaks where the file had CRLF) as the file's bytes."""
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as error:
            raise EditError(
                f"the new text holds {error.object[error.start : error.end]!r}, which the "
                f"file's encoding ({self.encoding}) cannot represent"
            ) from None


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _positions(text: str, needle: str) -> list[int]:
    found = []
    start = text.find(needle)
    while start >= 0:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


_LENIENT_WORK = 20_000_000  # line comparisons the whitespace-tolerant passes may make


def _trimmed_matches(lines: list[str], old: list[str]) -> list[int]:
    if len(lines) * len(old) > _LENIENT_WORK:
        return []  # too large to search line by line: only exact matches count
    wanted = [line.strip() for line in old]
    stripped = [line.strip() for line in lines]
    first = wanted[0]
    return [
        i
        for i in range(len(lines) - len(old) + 1)
        if stripped[i] == first and stripped[i : i + len(old)] == wanted
    ]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _reindent(found: list[str], old: list[str], new: list[str]) -> list[str]:
    """New lines indented as the matched lines are: each keeps its indentation relative to
    the oldText line in the same place (the last one for lines beyond), applied to the
    file's line there."""
    out = []
    for j, line in enumerate(new):
        if not line.strip():
            out.append(line)
            continue
        k = min(j, len(old) - 1)
        have, was = _indent(found[k]), _indent(old[k])
        delta = len(_indent(line)) - len(was)
        width = max(0, len(have) + delta)
        indent = have[:width] if width <= len(have) else have + " " * (width - len(have))
        out.append(indent + line.lstrip())
    return out


def _mismatch_hint(text: str, old: str) -> str:
    """Where the first line of `old` occurs, and the first line that then differs."""
    lines = text.split("\n")
    wanted = old.split("\n")
    first = wanted[0].strip()
    if not first or len(lines) * len(wanted) > _LENIENT_WORK:
        return ""
    for i, line in enumerate(lines):
        if line.strip() != first:
            continue
        for j in range(1, len(wanted)):
            have = lines[i + j] if i + j < len(lines) else None
            if have is None:
                return (
                    f" Its first line matches line {i + 1}, but the file ends before "
                    f"its line {j + 1}."
                )
            if have.strip() != wanted[j].strip():
                return (
                    f" Its first line matches line {i + 1}, but its line {j + 1} "
                    f"({wanted[j]!r}) differs from line {i + j + 1} of the file ({have!r})."
                )
    return ""


def apply_edits(text: str, edits: list[tuple[str, str]]) -> str:
    """Apply each (oldText, newText) in order and return the new text.

    Each oldText must occur exactly once: first as written, else line by line with leading
    and trailing whitespace ignored (the new lines then take the matched indentation).

    Raises:
        EditError: An oldText is empty, not found (with the first diverging line when its
            first line is found) or found more than once (naming the lines).
    """
    for number, (old_given, new_given) in enumerate(edits, start=1):
        old = old_given.replace("\r\n", "\n")
        new = new_given.replace("\r\n", "\n")
        if not old:
            raise EditError(f"edit {number}: oldText is empty")
        positions = _positions(text, old)
        if len(positions) == 1:
            at = positions[0]
            text = text[:at] + new + text[at + len(old) :]
            continue
        if len(positions) > 1:
            lines = ", ".join(str(_line_of(text, at)) for at in positions[:20])
            raise EditError(
                f"edit {number}: oldText matches {len(positions)} times (at lines {lines}); "
                "add surrounding lines to make it unique"
            )
        lines_now = text.split("\n")
        old_lines = old.split("\n")
        matches = _trimmed_matches(lines_now, old_lines)
        if len(matches) > 1:
            listed = ", ".join(str(i + 1) for i in matches[:20])
            raise EditError(
                f"edit {number}: oldText matches {len(matches)} times when whitespace is "
                f"ignored (at lines {listed}); add surrounding lines to make it unique"
            )
        if not matches:
            raise EditError(f"edit {number}: oldText was not found.{_mismatch_hint(text, old)}")
        i = matches[0]
        replaced = _reindent(lines_now[i : i + len(old_lines)], old_lines, new.split("\n"))
        text = "\n".join([*lines_now[:i], *replaced, *lines_now[i + len(old_lines) :]])
    return text


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    return lines


def unified_diff(before: str, after: str, path: str) -> str:
    """A git-style unified diff of two texts, fenced for Markdown as the reference does.

    Only the window between the common leading and trailing lines is compared (an edit is
    local), so a large file costs its length, not difflib's quadratic worst case over it."""
    import difflib

    old, new = _lines(before), _lines(after)
    same = 0
    while same < min(len(old), len(new)) and old[same] == new[same]:
        same += 1
    end = 0
    while end < min(len(old), len(new)) - same and old[-1 - end] == new[-1 - end]:
        end += 1
    start = max(0, same - 3)
    old_window = old[start : len(old) - max(0, end - 3)]
    new_window = new[start : len(new) - max(0, end - 3)]
    body = []
    for line in difflib.unified_diff(old_window, new_window, fromfile=path, tofile=path):
        body.append(_shifted(line, start) if line.startswith("@@ ") else line)
    text = "".join(body)
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}diff\n{text}{fence}\n"


def _shifted(header: str, offset: int) -> str:
    """A hunk header `@@ -a,b +c,d @@` with both start lines moved down by `offset`."""
    ranges = header.split(" ")[1:3]
    moved = []
    for item in ranges:
        sign, numbers = item[0], item[1:]
        first, comma, count = numbers.partition(",")
        moved.append(f"{sign}{int(first) + offset}{comma}{count}")
    return f"@@ {moved[0]} {moved[1]} @@\n"
