"""URI templates for resource templates: the part of RFC 6570 whose matches are unambiguous.
Accepted: `{name}` (one path segment), `{+name}` (may span segments) and, only at the end, `{?a,b}`
(optional query parameters); matched values are percent-decoded as strict UTF-8. Anything else is a
`ValueError` naming the template and the problem. Matching takes time in proportion to the URI's
length times the template's parts, whatever the URI: where several splits fit, each variable takes
the longest value that lets the rest match."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import NoReturn
from urllib.parse import quote, unquote

__all__ = ["UriTemplate"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# A template's pieces: literal text, an expression, or a brace that pairs with none.
_TOKEN = re.compile(r"([^{}]+)|\{([^{}]*)\}|([{}])")
# What ends a variable's value: a simple one stops at `/` too.
_SEGMENT_STOPS = frozenset("/?#")
_RESERVED_STOPS = frozenset("?#")
# What a reserved expansion leaves unencoded: RFC 6570's reserved set, less `?` and `#`,
# which would end the match of `{+name}` (so the URI made would not read back).
_RESERVED_SAFE = ":/[]@!$&'()*+,;="


@dataclass(frozen=True)
class _Variable:
    name: str
    reserved: bool  # `{+name}`


@dataclass(frozen=True)
class UriTemplate:
    """A parsed URI template: `text` as written (what is advertised), `parts` its literals and
    variables, `query` the names of its `{?...}` expression."""

    text: str
    parts: tuple[str | _Variable, ...]
    query: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> UriTemplate:
        """Parse `text`; a ValueError quoting it when malformed or unsupported."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"resource URI template must be a non-empty string, not {text!r}")
        parts: list[str | _Variable] = []
        query: tuple[str, ...] = ()
        seen: set[str] = set()
        for token in _TOKEN.finditer(text):
            if query:
                _refuse(text, "'{?...}' must end the template")
            literal, body, brace = token.groups()
            if brace == "}":
                _refuse(text, f"'}}' at offset {token.start()} closes nothing")
            if brace == "{":
                _refuse(text, f"'{{' at offset {token.start()} is never closed")
            if literal is not None:
                parts.append(literal)
            elif body.startswith("?"):  # neither kind of variable can swallow its '?'
                query = tuple(_name(text, name, seen) for name in body[1:].split(","))
            else:
                if parts and isinstance(parts[-1], _Variable):
                    _refuse(text, "two expressions need literal text between them")
                reserved = body.startswith("+")
                name = body[1:] if reserved else body
                if name[:1] in ("#", "/", ".", ";", "&"):
                    _refuse(text, f"operator {name[0]!r} in '{{{body}}}' is not supported")
                if "," in name:
                    _refuse(text, f"'{{{body}}}' names several variables; use one per expression")
                parts.append(_Variable(_name(text, name, seen), reserved))
        return cls(text, tuple(parts), query)

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable's name, in the order written (query names last)."""
        return tuple(p.name for p in self.parts if isinstance(p, _Variable)) + self.query

    @property
    def is_template(self) -> bool:
        """Whether the text has any variable (else it names one fixed URI)."""
        return bool(self.variables)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables' decoded values if `uri` matches, else None (absent query variables are
        left out; bad percent-encoding or unknown or repeated query names do not match)."""
        found = self._split(uri)
        if found is None:
            return None
        spans, raw_query = found
        values: dict[str, str] = {}
        try:
            for name, (start, end) in spans.items():
                values[name] = unquote(uri[start:end], errors="strict")
            if raw_query:
                for pair in raw_query.split("&"):
                    key, sep, value = pair.partition("=")
                    if not sep or key not in self.query or key in values:
                        return None
                    values[key] = unquote(value, errors="strict")
        except UnicodeDecodeError:
            return None
        return values

    def _split(self, uri: str) -> tuple[dict[str, tuple[int, int]], str | None] | None:
        """Where each variable's value lies in `uri`, and the raw query; None for no match.

        `ends[i]` holds, ascending, the offsets from which the parts from `i` on match the rest
        of `uri`; it is built from the last part back in one sweep each, then each variable
        takes the farthest end that the rest accepts.
        """
        first = self.parts[0] if self.parts else ""
        if isinstance(first, str) and not uri.startswith(first):
            return None  # most templates part ways with a URI at their scheme
        size = len(uri)
        last_hash = uri.rfind("#")
        tail = [size]  # then an optional `?query` (no `#`) where the template has one
        if self.query:
            tail = [at for at, char in enumerate(uri) if char == "?" and last_hash < at] + tail
        ends: list[list[int]] = [tail]
        stops: list[list[int]] = []
        for part in reversed(self.parts):
            after = ends[0]
            if isinstance(part, str):
                width = len(part)
                here = [
                    at - width for at in after if at >= width and uri.startswith(part, at - width)
                ]
                stops.insert(0, [])
            else:
                run_end = _run_ends(uri, _RESERVED_STOPS if part.reserved else _SEGMENT_STOPS)
                here = []
                nearest = len(after)  # index in `after` of the first end past `at`
                for at in range(size, -1, -1):
                    while nearest > 0 and after[nearest - 1] > at:
                        nearest -= 1
                    if nearest < len(after) and after[nearest] <= run_end[at]:
                        here.append(at)
                here.reverse()
                stops.insert(0, run_end)
            ends.insert(0, here)
        if not ends[0] or ends[0][0] != 0:
            return None
        spans: dict[str, tuple[int, int]] = {}
        at = 0
        for index, part in enumerate(self.parts):
            if isinstance(part, str):
                at += len(part)
                continue
            following = ends[index + 1]
            end = following[bisect_right(following, stops[index][at]) - 1]
            spans[part.name] = (at, end)
            at = end
        raw_query = uri[at + 1 :] if self.query and at < size else None
        return spans, raw_query

    def expand(self, values: dict[str, str]) -> str:
        """The URI for `values`, percent-encoded (query names without a value left out; KeyError
        for a missing path variable)."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(quote(values[part.name], safe=_RESERVED_SAFE if part.reserved else ""))
        given = [(name, values[name]) for name in self.query if name in values]
        if given:
            out.append("?" + "&".join(f"{name}={quote(value, safe='')}" for name, value in given))
        return "".join(out)


def _run_ends(uri: str, stops: frozenset[str]) -> list[int]:
    """Where a value starting at each offset ends at the latest: its next stop, or the end."""
    run_end = [len(uri)] * (len(uri) + 1)
    for at in range(len(uri) - 1, -1, -1):
        run_end[at] = at if uri[at] in stops else run_end[at + 1]
    return run_end


def _name(template: str, name: str, seen: set[str]) -> str:
    if name.endswith("*") or ":" in name:
        _refuse(template, f"value modifiers ('{name}') are not supported")
    if not _NAME.match(name):
        _refuse(template, f"{name!r} is not a valid parameter name (a Python identifier)")
    if name in seen:
        _refuse(template, f"parameter {name!r} appears twice")
    seen.add(name)
    return name


def _refuse(template: str, problem: str) -> NoReturn:
    raise ValueError(f"invalid resource URI template {template!r}: {problem}")
