"""A text file as lines with their own endings: decoding (UTF-8 only, BOM kept) and encoding.

A file's bytes become `FileText`: the BOM flag, the lines without their endings, and each
line's ending ("\\n" or "\\r\\n"; None for an unterminated last line). Edits replace lines and
the file is written back from the same parts, so lines nobody touched keep their endings
byte for byte and new lines take the ending that dominates the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import NOTHING_CHANGED, PatchError

__all__ = ["BOM", "FileText", "Line", "decode", "dominant_ending", "encode"]

BOM = b"\xef\xbb\xbf"

# A line's text and the ending it had on disk (None: new, or unterminated).
Line = tuple[str, "str | None"]


@dataclass
class FileText:
    """A decoded file.

    Attributes:
        bom: Whether the file started with a UTF-8 byte order mark.
        lines: Each line's text and ending; a file ending in a newline has no empty last line
            here (its last line simply carries an ending).
    """

    bom: bool
    lines: list[Line]

    @property
    def ends_with_newline(self) -> bool:
        """Whether the last line is terminated (True for an empty file)."""
        return not self.lines or self.lines[-1][1] is not None

    def texts(self) -> list[str]:
        """The lines' texts, without endings."""
        return [text for text, _ in self.lines]


def decode(data: bytes, path: str) -> FileText:
    """Split a file's bytes into lines, refusing anything that is not UTF-8.

    Raises:
        PatchError: The bytes are not valid UTF-8 (the message gives the offset and the byte).
    """
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(BOM) if bom else 0)
        raise PatchError(
            f"{path} is not UTF-8 text (byte 0x{body[exc.start]:02x} at offset {offset} "
            f"cannot be decoded); apply_patch edits UTF-8 files only. {NOTHING_CHANGED}"
        ) from None
    return FileText(bom=bom, lines=split_lines(text))


def split_lines(text: str) -> list[Line]:
    """Cut text at each "\\n"; a "\\r" just before it belongs to the ending."""
    parts = text.split("\n")
    last = parts.pop()
    lines: list[Line] = [
        (part[:-1], "\r\n") if part.endswith("\r") else (part, "\n") for part in parts
    ]
    if last:
        lines.append((last, None))
    return lines


def dominant_ending(lines: list[Line], fallback: str = "\n") -> str:
    """The ending most lines have ("\\r\\n" wins a tie), or `fallback` when none has one."""
    crlf = sum(1 for _, ending in lines if ending == "\r\n")
    lf = sum(1 for _, ending in lines if ending == "\n")
    if crlf == 0 and lf == 0:
        return fallback
    return "\r\n" if crlf >= lf else "\n"


def join(lines: list[Line], newline: str, *, terminate_last: bool) -> str:
    """Lines back to text: each line's own ending, `newline` for those without one.

    The last line gets an ending only when `terminate_last` is set.
    """
    parts: list[str] = []
    last = len(lines) - 1
    for index, (text, ending) in enumerate(lines):
        parts.append(text)
        if index < last or terminate_last:
            parts.append(ending if ending is not None else newline)
    return "".join(parts)


def encode(text: str, *, bom: bool) -> bytes:
    """Text to UTF-8 bytes, with the BOM when the file had one."""
    data = text.encode("utf-8")
    return BOM + data if bom else data
