"""What a function's docstring tells a model: a description and one note per parameter.

The names and results are the Agents SDK's, to the character. griffe is imported only for a
docstring with structure; a google one without a title-shaped line is answered here directly.
`tool_text` adds the overrides and the lossless description (every section but the parameters).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "generate_func_documentation",
    "tool_text",
]

DocstringStyle = Literal["google", "numpy", "sphinx"]


@dataclass
class FuncDocumentation:
    """A function's name with what its docstring says about it.

    Attributes:
        name: The function's `__name__`.
        description: The docstring's first text block; None without a docstring.
        param_descriptions: Parameter name to its documented description; None when the
            docstring documents no parameter.
    """

    name: str
    description: str | None
    param_descriptions: dict[str, str] | None


def generate_func_documentation(
    func: Callable[..., Any], style: DocstringStyle | None = None
) -> FuncDocumentation:
    """Read `func`'s docstring as the Agents SDK does.

    Args:
        func: The function (or any object with `__name__`) to document.
        style: The docstring convention; guessed from the text when None.

    Returns:
        The name, description and parameter descriptions.
    """
    return tool_text(func, style, True, False, None, None)


def tool_text(
    func: Callable[..., Any],
    style: DocstringStyle | None,
    use_docstring_info: bool,
    lossless: bool,
    name_override: str | None,
    description_override: str | None,
    /,
) -> FuncDocumentation:
    """A tool's name, description and parameter notes after the overrides (each if not empty);
    `lossless` describes with every section but the parameters, not only the first text block."""
    if not use_docstring_info:
        return FuncDocumentation(name_override or func.__name__, description_override or None, None)
    name = func.__name__  # read even when overridden: the SDK refuses a nameless callable here
    text = inspect.getdoc(func)
    if not text:
        return FuncDocumentation(name_override or name, description_override or None, None)
    sections = _read_sections(text, style or guess_style(text))
    if lossless:
        description = "\n\n".join(filter(None, map(_paragraph, sections))) or None
    else:
        description = next((str(s.value) for s in sections if s.kind == "text"), None)
    # Not "Other Parameters"; `*args` without its stars; a repeated name: the later wins.
    notes = {
        item.name.lstrip("*"): item.description
        for section in sections
        if section.kind == "parameters"
        for item in section.value
    }
    return FuncDocumentation(
        name_override or name, description_override or description, notes or None
    )


# A style scores one per marker found; the highest wins, a tie the earlier, none: google.
_MARKERS: tuple[tuple[DocstringStyle, tuple[str, ...]], ...] = (
    ("sphinx", (r"^:param\s", r"^:type\s", r"^:return:", r"^:rtype:")),
    ("numpy", tuple(rf"^{title}\s*\n\s*-{{3,}}" for title in ("Parameters", "Returns", "Yields"))),
    ("google", (r"^(?:Args|Arguments):", r"^Returns:", r"^Raises:")),
)


def guess_style(text: str) -> DocstringStyle:
    """The convention the SDK guesses for a cleaned docstring."""
    scores = {
        style: sum(1 for marker in markers if re.search(marker, text, re.MULTILINE))
        for style, markers in _MARKERS
    }
    best = max(scores, key=scores.__getitem__)  # the earliest of the highest
    return best if scores[best] else "google"


_PARAMETERS_HEADER = re.compile(r"(?:args|arguments|params|parameters):\s*", re.IGNORECASE)


def space_google_headers(text: str) -> str:
    """`text` with a blank line opened above a flush-left parameters header that follows
    text and precedes an indented line (griffe ignores a title right under prose), as the SDK
    does; the lines are then rejoined by "\\n", else `text` comes back untouched."""
    lines = text.splitlines()
    rebuilt: list[str] = []
    opened = False
    for index, line in enumerate(lines):
        if (
            index
            and index + 1 < len(lines)
            and _PARAMETERS_HEADER.fullmatch(line)
            and lines[index - 1].strip()
            and lines[index + 1][:1] in (" ", "\t")
        ):
            rebuilt.append("")
            opened = True
        rebuilt.append(line)
    return "\n".join(rebuilt) if opened else text


# A line griffe's google reader might open a section or an admonition with (it also wants an
# indented line below: ignoring that sends a few plain docstrings to griffe, never the reverse).
_TITLE_LINE = re.compile(r"\w[\w\s-]*:(?:\s+\S.*)?\s*")


@dataclass(frozen=True)
class _Section:
    """One block of a parsed docstring in griffe's terms: kind, text or items, heading."""

    kind: str
    value: Any
    title: str | None = None


def _read_sections(text: str, style: DocstringStyle) -> list[_Section]:
    if style == "google":
        block = plain_text_block(text)
        if block is not None:
            return [_Section("text", block)] if block else []
        text = space_google_headers(text)
    from griffe import Docstring  # deferred: only docstrings with structure pay for it

    # warnings=False: griffe would log each untyped parameter on the author's stderr.
    parsed = Docstring(_as_written(text)).parse(style, warnings=False)
    return [_Section(s.kind.value, s.value, getattr(s, "title", None)) for s in parsed]


def plain_text_block(text: str) -> str | None:
    """The one text block griffe would make of a cleaned google docstring (normalised as griffe
    does), or None when a title-shaped line needs griffe."""
    if any(":" in line and _TITLE_LINE.fullmatch(line) for line in text.split("\n")):
        return None
    return inspect.cleandoc(_as_written(text).rstrip())


def _as_written(text: str) -> str:
    # As if the text began after the opening quotes (the SDK's reading): a first line of
    # spaces then survives griffe's cleandoc.
    return "\n" + text


def _paragraph(section: _Section) -> str | None:
    """One section of the lossless description: text as is, others `Heading:` and a body."""
    if section.kind == "parameters":
        return None  # already in the schema
    if section.kind == "text":
        text = str(section.value)
        return text if text.strip() else None
    if section.kind == "admonition":
        kind = str(getattr(section.value, "annotation", "") or "Note")
        heading = section.title or kind.capitalize()
        return _titled(heading, str(getattr(section.value, "description", "") or ""))
    heading = section.title or section.kind.title()
    entries = section.value if isinstance(section.value, list) else [section.value]
    gap = "\n\n" if section.kind == "examples" else "\n"
    return _titled(heading, gap.join(map(_entry, entries)))


def _entry(item: Any) -> str:
    if isinstance(item, tuple):  # griffe gives examples as (kind, text) pairs
        return str(item[1])
    text = str(getattr(item, "description", "") or "")
    label = getattr(item, "name", "") or getattr(item, "annotation", None)
    return f"{label}: {text}" if label else text


def _titled(heading: str, body: str) -> str:
    lines = ["    " + line if line.strip() else "" for line in body.splitlines()]
    return heading + ":\n" + "\n".join(lines)
