"""`lossless_docstring=True`: a description that keeps what the SDK's leaves out.

The SDK describes a tool with its docstring's first text block and drops the rest: what it
returns, what it raises, examples, notes, and prose written after the parameters. Here every
section but the parameter list (which the schema already carries) becomes a plain-text
paragraph, `Heading:` followed by its body indented four spaces, in the docstring's order.
The output is text rather than markdown because it reaches a model verbatim.
"""

from __future__ import annotations

from typing import Any

from ._docparse import Section

_INDENT = "    "


def lossless_description(sections: list[Section]) -> str | None:
    """The whole docstring as one description, or None when nothing but parameters is left."""
    paragraphs = [text for text in map(_paragraph, sections) if text]
    return "\n\n".join(paragraphs) or None


def _paragraph(section: Section) -> str | None:
    if section.kind == "parameters":
        return None  # already in the schema, one description per property
    if section.kind == "text":
        text = str(section.value)
        return text if text.strip() else None
    if section.kind == "admonition":
        # griffe keeps the admonition's kind ("note", "warning") as its annotation.
        kind = str(getattr(section.value, "annotation", "") or "Note")
        heading = section.title or kind.capitalize()
        return _titled(heading, str(getattr(section.value, "description", "") or ""))
    heading = section.title or section.kind.title()
    entries = section.value if isinstance(section.value, list) else [section.value]
    # Examples alternate prose and doctest blocks; a blank line keeps each one readable.
    gap = "\n\n" if section.kind == "examples" else "\n"
    return _titled(heading, gap.join(map(_entry, entries)))


def _entry(item: Any) -> str:
    if isinstance(item, tuple):  # griffe gives examples as (kind, text) pairs
        return str(item[1])
    text = str(getattr(item, "description", "") or "")
    # A named entry (a yielded value, an attribute) shows its name, else its type if any.
    label = getattr(item, "name", "") or getattr(item, "annotation", None)
    return f"{label}: {text}" if label else text


def _titled(heading: str, body: str) -> str:
    lines = [_INDENT + line if line.strip() else "" for line in body.splitlines()]
    return heading + ":\n" + "\n".join(lines)
