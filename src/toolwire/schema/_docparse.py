"""Reading a docstring into sections: griffe when the text has structure, nothing otherwise.

Importing griffe and running its parser is the larger part of describing a tool whose
docstring is a plain sentence or two. A google docstring can only grow a section (or an
admonition) at a line shaped like `Title:` or `Title: words`, so text without such a line
is one text block and is answered here directly; everything else, and every numpy or sphinx
docstring, goes to griffe. tests/schema/test_docstrings.py checks the shortcut against griffe
and the SDK on generated docstrings.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any

from ._docstyle import Style, space_google_headers

# The line shape griffe's google reader inspects before it considers opening a section or an
# admonition (it then also wants an indented line below; not needing that here only sends a
# few plain docstrings to griffe, never the other way round).
_TITLE_LINE = re.compile(r"\w[\w\s-]*:(?:\s+\S.*)?\s*")


@dataclass(frozen=True)
class Section:
    """One block of a parsed docstring, in the terms griffe uses.

    Attributes:
        kind: griffe's section kind ("text", "parameters", "returns", "admonition", ...).
        value: The text of a text section; griffe's parsed items for the others.
        title: The heading as written, when griffe kept one.
    """

    kind: str
    value: Any
    title: str | None = None


def read_sections(text: str, style: Style) -> list[Section]:
    """The sections of a cleaned docstring, read as `style`.

    Args:
        text: A docstring as `inspect.getdoc` returns it (not empty).
        style: The convention to read it with.

    Returns:
        The sections in the order they appear.
    """
    if style == "google":
        block = plain_text_block(text)
        if block is not None:
            return [Section("text", block)] if block else []
        text = space_google_headers(text)
    return _griffe_sections(_as_written(text), style)


def plain_text_block(text: str) -> str | None:
    """The single text block griffe's google reader would make of `text`, if that is all.

    Args:
        text: A cleaned docstring.

    Returns:
        The block, normalised as griffe normalises (possibly empty); None when a line is
        title-shaped and griffe has to read the text.
    """
    if any(":" in line and _TITLE_LINE.fullmatch(line) for line in text.split("\n")):
        return None
    return inspect.cleandoc(_as_written(text).rstrip())


def _as_written(text: str) -> str:
    # The SDK's results are griffe's reading of the text as if it began on the line after the
    # opening quotes: a first line holding only spaces then survives griffe's cleandoc (which
    # would drop it as a blank first line) and stays part of the description.
    return "\n" + text


def _griffe_sections(text: str, style: Style) -> list[Section]:
    from griffe import Docstring  # deferred: only docstrings with structure pay for it

    # warnings=False: griffe would otherwise log about every parameter without a type, on the
    # author's stderr, for docstrings that are perfectly fine for a tool.
    parsed = Docstring(text).parse(style, warnings=False)
    return [
        Section(section.kind.value, section.value, getattr(section, "title", None))
        for section in parsed
    ]


def summary_of(sections: list[Section]) -> str | None:
    """The description the SDK gives a tool: its docstring's first text block."""
    for section in sections:
        if section.kind == "text":
            return str(section.value)
    return None


def parameter_notes(sections: list[Section]) -> dict[str, str] | None:
    """Each documented parameter's description, by name; None when none is documented.

    Only the main parameters section counts ("Other Parameters" do not reach the schema).
    A name written as `*args` or `**kwargs` is stored without its stars so that it meets the
    signature's name; when griffe reports a name twice, the later entry wins.
    """
    notes = {
        item.name.lstrip("*"): item.description
        for section in sections
        if section.kind == "parameters"
        for item in section.value
    }
    return notes or None
