"""Glob patterns over `/`-separated relative paths, as the reference server matches them.

A `**` segment matches any number of segments (none included); within a segment `*` matches
any run of characters, `?` one character, `[...]` one of a class (`[!...]` or `[^...]` none
of it); a leading dot needs no special pattern. `excluded` adds the reference's leniency for
exclude patterns without a `*`: the pattern also matches as a name anywhere in the path, or as
a directory holding it.

Matching never backtracks without bound: both levels use the greedy algorithm that returns to
the last star only, so a hostile pattern (`**/**/**/**/z`, `*a*a*a*a*b`) costs at most
pattern length times path length steps, where a regular expression would explode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

__all__ = ["Glob", "GlobSet", "NameSet", "excluded"]

_STAR = "*"
Token = str | Callable[[str], bool]  # "*", a literal character, or a one-character test


def _class_test(body: str) -> Callable[[str], bool]:
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            ranges.append((body[i], body[i + 2]))
            i += 3
        else:
            singles.add(body[i])
            i += 1

    def test(char: str) -> bool:
        inside = char in singles or any(low <= char <= high for low, high in ranges)
        return inside != negated and char != "/"

    return test


def _tokens(segment: str) -> tuple[Token, ...]:
    out: list[Token] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            if not out or out[-1] != _STAR:
                out.append(_STAR)
        elif char == "?":
            out.append(lambda c: c != "/")
        elif char == "[":
            first = i + 2 if segment[i + 1 : i + 2] in ("!", "^") else i + 1
            end = segment.find("]", first + 1)
            if end < 0:
                out.append("[")
            else:
                out.append(_class_test(segment[i + 1 : end]))
                i = end
        else:
            out.append(char)
        i += 1
    return tuple(out)


def _one(token: Token, char: str) -> bool:
    return token == char if isinstance(token, str) else token(char)


def _segment_matches(tokens: tuple[Token, ...], name: str) -> bool:
    p = s = 0
    star = -1
    mark = 0
    while s < len(name):
        if p < len(tokens) and tokens[p] != _STAR and _one(tokens[p], name[s]):
            p += 1
            s += 1
        elif p < len(tokens) and tokens[p] == _STAR:
            star, mark = p, s
            p += 1
        elif star >= 0:
            p = star + 1
            mark += 1
            s = mark
        else:
            return False
    while p < len(tokens) and tokens[p] == _STAR:
        p += 1
    return p == len(tokens)


class _Segment:
    """One pattern segment, with shortcuts for the common shapes."""

    __slots__ = ("exact", "globstar", "halves", "tokens")

    def __init__(self, text: str) -> None:
        self.globstar = text == "**"
        self.tokens = _tokens(text)
        literal = [t for t in self.tokens if isinstance(t, str) and t != _STAR]
        stars = self.tokens.count(_STAR)
        self.exact = "".join(literal) if stars == 0 and len(literal) == len(self.tokens) else None
        # One star between literal text: a prefix and a suffix to compare.
        self.halves: tuple[str, str] | None = None
        if stars == 1 and len(literal) == len(self.tokens) - 1:
            at = self.tokens.index(_STAR)
            self.halves = ("".join(literal[:at]), "".join(literal[at:]))

    def matches(self, name: str) -> bool:
        if self.exact is not None:
            return name == self.exact
        if self.halves is not None:
            head, tail = self.halves
            return (
                len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)
            )
        return _segment_matches(self.tokens, name)


@lru_cache(maxsize=512)
def _segments(pattern: str) -> tuple[_Segment, ...]:
    parts: list[_Segment] = []
    for text in pattern.split("/"):
        if text == "**" and parts and parts[-1].globstar:
            continue  # `**/**` is `**`
        parts.append(_Segment(text))
    return tuple(parts)


class Glob:
    """One pattern, parsed once.

    Args:
        pattern: The glob.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._segments = _segments(pattern)
        globstars = [i for i, segment in enumerate(self._segments) if segment.globstar]
        # The common shapes need no search: no `**` at all, or a single leading one.
        self._fixed = not globstars
        self._tail = self._segments[1:] if globstars == [0] else None

    def matches(self, relative: str) -> bool:
        """Whether the whole relative path matches."""
        names = relative.split("/")
        pattern = self._segments
        if self._fixed:
            return len(names) == len(pattern) and all(
                segment.matches(name) for segment, name in zip(pattern, names, strict=True)
            )
        if self._tail is not None:
            tail = self._tail
            if len(names) < len(tail):
                return False
            last = names[len(names) - len(tail) :]
            return all(segment.matches(name) for segment, name in zip(tail, last, strict=True))
        p = s = 0
        star = -1
        mark = 0
        while s < len(names):
            if p < len(pattern) and not pattern[p].globstar and pattern[p].matches(names[s]):
                p += 1
                s += 1
            elif p < len(pattern) and pattern[p].globstar:
                star, mark = p, s
                p += 1
            elif star >= 0:
                p = star + 1
                mark += 1
                s = mark
            else:
                return False
        while p < len(pattern) and pattern[p].globstar:
            p += 1
        return p == len(pattern)


class GlobSet:
    """Several patterns; a path matches when one of them does.

    Args:
        patterns: The globs; none matches nothing.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self._globs = [Glob(pattern) for pattern in patterns]

    def matches(self, relative: str) -> bool:
        """Whether one of the patterns matches the whole of `relative`."""
        return any(glob.matches(relative) for glob in self._globs)


def _folded(name: str) -> str:
    """`name` as a case-insensitive, normalisation-insensitive volume sees it."""
    if name.isascii():
        return name.lower()
    import unicodedata

    return unicodedata.normalize("NFC", name).casefold()


class NameSet:
    """Patterns for single names (deny lists): exact names are looked up, one-star patterns
    compared by prefix and suffix, the rest matched as a segment. Case and Unicode form are
    ignored, as macOS and Windows volumes ignore them when they open a name: `.ENV` there is
    `.env`.

    Args:
        patterns: The name patterns (a `/` in one makes it match no name).
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self._exact: set[str] = set()
        self._halves: list[tuple[str, str]] = []
        self._other: list[_Segment] = []
        for pattern in patterns:
            if "/" in pattern:
                continue
            segment = _Segment(_folded(pattern))
            if segment.exact is not None:
                self._exact.add(segment.exact)
            elif segment.halves is not None:
                self._halves.append(segment.halves)
            else:
                self._other.append(segment)

    def matches(self, name: str) -> bool:
        """Whether `name` matches one of the patterns."""
        name = _folded(name)
        if name in self._exact:
            return True
        for head, tail in self._halves:
            if len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail):
                return True
        return any(segment.matches(name) for segment in self._other)


def excluded(relative: str, patterns: Sequence[str]) -> bool:
    """Whether `relative` is excluded by one of `patterns` (see the module docstring)."""
    if not patterns:
        return False
    for pattern in patterns:
        if Glob(pattern).matches(relative):
            return True
        if "*" not in pattern and (
            Glob("**/" + pattern).matches(relative)
            or Glob("**/" + pattern + "/**").matches(relative)
        ):
            return True
    return False
