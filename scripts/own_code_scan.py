"""How the own-code guard reads a Python file: counted code lines, and prose cut into sentences.

Every file goes through :mod:`tokenize`, so strings and comments are told apart exactly, and a
file is read once whatever side of the comparison it is on.

A code line's normal form is its tokens joined by single spaces, with the whitespace inside
string literals collapsed too: re-indenting, re-spacing or re-wrapping does not hide a copy,
and ``f(a,b)`` equals ``f(a, b)``. A multi-line string inside code counts once, on the line
where it starts. These lines are not counted (and do not break a run either):

* blank lines and comments;
* import statements, the whole logical statement, so a parenthesised ``from x import (...)``
  over many lines goes too: two modules using the same names import them alike;
* docstrings, meaning any statement that is only a string literal. Prose is judged by the
  sentence rule instead, so a copied docstring is reported once, as sentences;
* lines of punctuation only (``)``, ``],``, ``}):``);
* lines of keywords and punctuation only (``else:``, ``pass``, ``return None``, ``try:``,
  ``raise``, ``) -> None:``), and decorators without arguments (``@property``,
  ``@dataclass``). They occur in any Python file, so a run padded with them says nothing about
  where the code came from; and because they are skipped rather than treated as a break,
  sprinkling them into a copy does not hide it either.

Prose is each docstring, each trailing comment, and each block of whole-line comments on
consecutive lines (a sentence often runs over several ``#`` lines). URLs are dropped first:
citing the same specification is not copying it. The text is cut at ``.``, ``!``, ``?``,
``;`` or ``:`` followed by whitespace, at blank lines and before bullet items, so the entries
of a Google-style ``Args:`` section become clauses of their own; the words of each piece
(runs of letters, digits and underscores, inner apostrophes kept; lower-cased) make the
sentence.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

_LAYOUT_TOKENS = frozenset({tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING})
# Literal text: a whole string before Python 3.12, the text pieces of f- and t-strings after.
_TEXT_TOKENS = frozenset(
    getattr(tokenize, kind)
    for kind in ("STRING", "FSTRING_MIDDLE", "TSTRING_MIDDLE")
    if hasattr(tokenize, kind)
)
_STRING_BODY = re.compile(r"^[A-Za-z]*('''|\"\"\"|'|\")(.*)\1$", re.DOTALL)
_URL = re.compile(r"\b(?:https?|ftp)://\S+")
_SENTENCE_BREAK = re.compile(r"[.!?;:]+(?=\s|$)|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+•]|\d+[.)])\s)")
_WORD = re.compile(r"\w+(?:'\w+)*")


@dataclass(frozen=True)
class Prose:
    """A docstring or comment text and the line it starts on."""

    row: int
    text: str


@dataclass(frozen=True)
class Sentence:
    """The words of one sentence, normalised, and the line it starts on."""

    row: int
    words: tuple[str, ...]


@dataclass
class Scan:
    """What one file brings to the comparison."""

    name: str
    rows: list[int]  # the physical line of each counted code line
    lines: list[str]  # the normal form of each counted code line
    prose: list[Prose]
    source: list[str]  # the file's physical lines, to show a finding as written


def scan(name: str, text: str) -> Scan:
    """Tokenise a file into its counted code lines and its prose.

    Raises:
        tokenize.TokenError: The text ends inside a bracket or a string.
        SyntaxError: The tokenizer met an inconsistent dedent or a stray character.
    """
    result = Scan(name, [], [], [], text.splitlines())
    statement: list[tokenize.TokenInfo] = []
    comments: list[str] = []  # the whole-line comment block being gathered
    first_comment = last_comment = 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        kind = token.type
        if kind == tokenize.COMMENT:
            body = token.string.lstrip("#").strip()
            row = token.start[0]
            if not token.line.lstrip().startswith("#"):
                result.prose.append(Prose(row, body))  # trailing: a text of its own
                continue
            if comments and row != last_comment + 1:
                result.prose.append(Prose(first_comment, "\n".join(comments)))
                comments = []
            if not comments:
                first_comment = row
            comments.append(body)
            last_comment = row
        elif kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
            _take_statement(statement, result)
            statement = []
        elif kind not in _LAYOUT_TOKENS:
            statement.append(token)
    if comments:
        result.prose.append(Prose(first_comment, "\n".join(comments)))
    result.prose.sort(key=lambda prose: prose.row)
    return result


def read_scan(path: Path, name: str) -> Scan:
    """Scan a file on disk, honouring its encoding declaration (see `scan` for errors)."""
    with tokenize.open(path) as handle:
        return scan(name, handle.read())


def _take_statement(tokens: list[tokenize.TokenInfo], into: Scan) -> None:
    """File one logical statement's tokens as prose, as counted lines, or as nothing."""
    if not tokens:
        return
    head = tokens[0]
    if head.type == tokenize.NAME and head.string in ("import", "from"):
        return  # `from` can only open a statement as an import
    if all(token.type == tokenize.STRING for token in tokens):
        for token in tokens:
            body = _STRING_BODY.match(token.string)
            into.prose.append(Prose(token.start[0], body.group(2) if body else token.string))
        return
    row = head.start[0]
    parts: list[str] = []
    telling = False  # holds a name, number or string: something a copy would carry over
    for token in tokens:
        if token.start[0] != row:
            _take_line(row, parts, telling, into)
            row, parts, telling = token.start[0], [], False
        text = token.string
        if token.type in _TEXT_TOKENS:
            text = " ".join(text.split())
            telling = True
        elif token.type == tokenize.NUMBER or (
            token.type == tokenize.NAME and not keyword.iskeyword(text)
        ):
            telling = True
        parts.append(text)
    _take_line(row, parts, telling, into)


def _take_line(row: int, parts: list[str], telling: bool, into: Scan) -> None:
    if not telling or (parts[0] == "@" and "(" not in parts):
        return
    into.rows.append(row)
    into.lines.append(" ".join(parts))


def sentences(prose: Sequence[Prose]) -> Iterator[Sentence]:
    """Cut prose texts into sentences, each with the line it starts on."""
    for piece in prose:
        text = _URL.sub(" ", piece.text)
        start = 0
        for cut in [*_SENTENCE_BREAK.finditer(text), None]:
            end = cut.start() if cut else len(text)
            chunk = text[start:end]
            words = tuple(_WORD.findall(chunk.casefold().replace("\u2019", "'")))
            if words:
                leading = len(chunk) - len(chunk.lstrip())
                yield Sentence(piece.row + text.count("\n", 0, start + leading), words)
            if cut:
                start = cut.end()
