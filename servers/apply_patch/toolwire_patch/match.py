"""Finding a hunk's lines in a file: the matching passes, ambiguity, and the nearest miss.

Both formats look for a block of lines forward from a cursor, each pass looser than the one
before: the exact text, then trailing whitespace ignored, then both ends trimmed. The Codex
form adds a fourth pass that also folds typographic punctuation (dashes, curly quotes, odd
spaces) to ASCII. The first pass that finds the block decides where it is; `find_all` lists
every place that pass finds, so an ambiguous hunk can be refused with all its matches.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import NOTHING_CHANGED, LimitError

__all__ = [
    "CODEX_PASSES",
    "SDK_PASSES",
    "Deadline",
    "LineIndex",
    "Miss",
    "find",
    "find_all",
    "fold",
    "nearest_miss",
]

_FOLDED = {
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys(
        "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
    ),
}
_FOLD_TABLE = str.maketrans(_FOLDED)


def fold(line: str) -> str:
    """A line trimmed at both ends with typographic punctuation turned into ASCII."""
    return line.strip().translate(_FOLD_TABLE)


def _same(line: str) -> str:
    return line


def _rstrip(line: str) -> str:
    return line.rstrip()


def _strip(line: str) -> str:
    return line.strip()


Pass = Callable[[str], str]
SDK_PASSES: tuple[Pass, ...] = (_same, _rstrip, _strip)
CODEX_PASSES: tuple[Pass, ...] = (_same, _rstrip, _strip, fold)


class Deadline:
    """The time a patch may spend; `check` raises once it is spent.

    Args:
        seconds: The budget (None: unbounded).
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._end = None if seconds is None else time.monotonic() + seconds

    def check(self) -> None:
        """Raise `LimitError` naming the bound when the time is up."""
        if self._end is not None and time.monotonic() > self._end:
            raise LimitError(
                f"applying the patch took longer than the server's time limit "
                f"({self.seconds:g} s, --max-seconds); split the patch into smaller ones. "
                f"{NOTHING_CHANGED}"
            )


_UNBOUNDED = Deadline(None)


class LineIndex:
    """A file's lines, with each pass's view of them indexed by content, built when first
    needed, so finding a block costs a dictionary lookup and a few comparisons.

    Args:
        texts: The lines (without endings).
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self._views: dict[Pass, tuple[list[str], dict[str, list[int]]]] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def view(self, key: Pass) -> tuple[list[str], dict[str, list[int]]]:
        """The lines as `key` sees them, and where each such line occurs (ascending)."""
        found = self._views.get(key)
        if found is None:
            mapped = self.texts if key is _same else [key(line) for line in self.texts]
            where: dict[str, list[int]] = {}
            for index, line in enumerate(mapped):
                where.setdefault(line, []).append(index)
            found = self._views[key] = (mapped, where)
        return found

    def starts(
        self, block: Sequence[str], key: Pass, start: int, end: int | None = None
    ) -> list[int]:
        """Every index from `start` where `block` occurs under `key`, ending by `end`."""
        if not block:
            return [start]
        mapped, where = self.view(key)
        wanted = [key(line) for line in block]
        size = len(wanted)
        limit = len(mapped) if end is None else end
        positions = where.get(wanted[0], [])
        found: list[int] = []
        for at in positions[bisect_left(positions, start) :]:
            if at + size > limit:
                break
            if mapped[at : at + size] == wanted:
                found.append(at)
        return found

    def first(self, block: Sequence[str], key: Pass, start: int, end: int | None = None) -> int:
        """The first index from `start` where `block` occurs under `key`, or -1."""
        if not block:
            return start
        mapped, where = self.view(key)
        wanted = [key(line) for line in block]
        size = len(wanted)
        limit = len(mapped) if end is None else end
        positions = where.get(wanted[0], [])
        for at in positions[bisect_left(positions, start) :]:
            if at + size > limit:
                break
            if mapped[at : at + size] == wanted:
                return at
        return -1


def find(
    lines: LineIndex,
    block: Sequence[str],
    start: int,
    passes: Sequence[Pass],
    deadline: Deadline = _UNBOUNDED,
    end: int | None = None,
) -> tuple[int, int]:
    """Where `block` first occurs at or after `start` (and ends by `end`): (index, pass
    number), or (-1, -1). An empty block is found at `start` by the first pass.
    """
    if not block:
        return start, 0
    for number, key in enumerate(passes):
        at = lines.first(block, key, start, end)
        if at != -1:
            return at, number
        deadline.check()
    return -1, -1


def find_all(
    lines: LineIndex, block: Sequence[str], start: int, key: Pass, deadline: Deadline = _UNBOUNDED
) -> list[int]:
    """Every index at or after `start` where `block` occurs under one pass."""
    found = lines.starts(block, key, start)
    deadline.check()
    return found


@dataclass(frozen=True)
class Miss:
    """The place that comes closest to a block that was not found.

    Attributes:
        at: Index in the file where the block would start.
        agree: How many of the block's lines match there (loosest comparison).
        first_wrong: Index in the block of the first line that does not match.
    """

    at: int
    agree: int
    first_wrong: int


def nearest_miss(
    lines: Sequence[str], block: Sequence[str], start: int, deadline: Deadline = _UNBOUNDED
) -> Miss | None:
    """The alignment of `block` on `lines` where most of its lines match (folded).

    Alignments at or after `start` win ties; None when no line of the block occurs at all.
    """
    if not block or not lines:
        return None
    folded_file = [fold(line) for line in lines]
    folded_block = [fold(line) for line in block]
    where: dict[str, list[int]] = {}
    for index, line in enumerate(folded_file):
        where.setdefault(line, []).append(index)
    tried: set[int] = set()
    best: tuple[int, int, int] | None = None  # (agree, after cursor, -at)
    best_at = 0
    budget = 20_000
    # Blank lines and lone braces say little about where a block belongs: align on the
    # other lines first, and on those only when nothing else occurs.
    telling = [k for k, line in enumerate(folded_block) if len(line) >= 2]
    for offsets in (telling, range(len(block))):
        for offset in offsets:
            for index in where.get(folded_block[offset], ()):
                at = index - offset
                if at in tried or at < 0 or at + len(block) > len(lines) or budget <= 0:
                    continue
                tried.add(at)
                budget -= len(block)
                agree = sum(1 for k, line in enumerate(folded_block) if folded_file[at + k] == line)
                rank = (agree, int(at >= start), -at)
                if best is None or rank > best:
                    best, best_at = rank, at
        if best is not None:
            break
    deadline.check()
    if best is None:
        return None
    first_wrong = next(
        (k for k, line in enumerate(folded_block) if folded_file[best_at + k] != line),
        len(block),
    )
    return Miss(at=best_at, agree=best[0], first_wrong=first_wrong)
