"""Glob patterns over `/`-separated relative paths, as the reference server matches them.

`*` matches within one component, `**` across components (`**/` also matches nothing), `?`
one character other than `/`, `[...]` a class (`[!...]` negated); a leading dot needs no
special pattern. `excluded` adds the reference's leniency for exclude patterns without a `*`:
the pattern also matches as a name anywhere in the path, or as a directory holding it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["Glob", "GlobSet", "excluded"]


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                i += 2
                if at_start and pattern.startswith("/", i):
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern.startswith("[!", i) else i + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out), re.DOTALL)


class Glob:
    """One pattern, compiled once.

    Args:
        pattern: The glob.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._regex = _compile(pattern)

    def matches(self, relative: str) -> bool:
        """Whether the whole relative path matches."""
        return self._regex.fullmatch(relative) is not None


class GlobSet:
    """Several patterns matched in one pass (one alternation).

    Args:
        patterns: The globs; none matches nothing.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        joined = "|".join(f"(?:{_compile(pattern).pattern})" for pattern in patterns)
        self._regex = re.compile(joined, re.DOTALL) if patterns else None

    def matches(self, relative: str) -> bool:
        """Whether one of the patterns matches the whole of `relative`."""
        return self._regex is not None and self._regex.fullmatch(relative) is not None


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
