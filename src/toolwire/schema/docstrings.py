"""Docstrings -> tool description and parameter descriptions (google, numpy, sphinx).

Adapted from openai-agents 0.24.0 `agents/function_schema.py` (MIT) for byte parity. griffe is
imported only when a docstring is actually parsed, so importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal


@dataclass
class FuncDocumentation:
    """Contains metadata about a Python function, extracted from its docstring."""

    name: str
    """The name of the function, via `__name__`."""
    description: str | None
    """The description of the function, derived from the docstring."""
    param_descriptions: dict[str, str] | None
    """The parameter descriptions of the function, derived from the docstring."""


DocstringStyle = Literal["google", "numpy", "sphinx"]


# As of Feb 2025, the automatic style detection in griffe is an Insiders feature. This
# code approximates it.
def _detect_docstring_style(doc: str) -> DocstringStyle:
    scores: dict[DocstringStyle, int] = {"sphinx": 0, "numpy": 0, "google": 0}

    # Sphinx style detection: look for :param, :type, :return:, and :rtype:
    sphinx_patterns = [r"^:param\s", r"^:type\s", r"^:return:", r"^:rtype:"]
    for pattern in sphinx_patterns:
        if re.search(pattern, doc, re.MULTILINE):
            scores["sphinx"] += 1

    # Numpy style detection: look for headers like 'Parameters', 'Returns', or 'Yields' followed by
    # a dashed underline
    numpy_patterns = [
        r"^Parameters\s*\n\s*-{3,}",
        r"^Returns\s*\n\s*-{3,}",
        r"^Yields\s*\n\s*-{3,}",
    ]
    for pattern in numpy_patterns:
        if re.search(pattern, doc, re.MULTILINE):
            scores["numpy"] += 1

    # Google style detection: look for section headers with a trailing colon
    google_patterns = [r"^(Args|Arguments):", r"^(Returns):", r"^(Raises):"]
    for pattern in google_patterns:
        if re.search(pattern, doc, re.MULTILINE):
            scores["google"] += 1

    max_score = max(scores.values())
    if max_score == 0:
        return "google"

    # Priority order: sphinx > numpy > google in case of tie
    styles: list[DocstringStyle] = ["sphinx", "numpy", "google"]

    for style in styles:
        if scores[style] == max_score:
            return style

    return "google"


@contextlib.contextmanager
def _suppress_griffe_logging() -> Iterator[None]:
    # Suppresses warnings about missing annotations for params
    logger = logging.getLogger("griffe")
    previous_level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous_level)


# Aliases of the Google-style parameter section header ("Args:") — the only section kind
# that generate_func_documentation below consumes for parameter descriptions. A header only
# counts when the whole line is exactly ``Header:`` (griffe anchors these at column 0), so
# inline mentions such as "see Args: below" never match.
_GOOGLE_SECTION_HEADER_RE = re.compile(
    r"^(args|arguments|params|parameters):\s*$",
    re.IGNORECASE,
)


def _ensure_blank_line_before_google_sections(doc: str) -> str:
    """Insert a blank line before a Google-style parameter section header (``Args:`` or an
    alias) that directly follows a non-blank line, such as a summary line or the indented body
    of a preceding section.

    griffe's Google parser silently skips a section header when there is no blank line above
    it and the following line is indented (it logs "Missing blank line above section"). That
    drops every parameter description and leaks the raw ``Args:`` block into the description.
    griffe applies that gate no matter how the line above is indented, so a header that follows
    another section's indented body (for example ``Note:`` or ``Example:``) needs the same
    normalization as one that follows the summary. numpy/sphinx parsing already tolerates the
    missing blank line, so this normalizes the Google case to match. Only the parameter section
    is normalized because generate_func_documentation only consumes parameter sections (plus
    the first text block); other griffe sections are intentionally left alone. The string is
    returned unchanged when no insertion is needed, which keeps well-formed docstrings
    byte-identical.
    """
    lines = doc.splitlines()
    output: list[str] = []
    inserted = False
    for index, line in enumerate(lines):
        if (
            index > 0
            and _GOOGLE_SECTION_HEADER_RE.match(line)
            # Preceding line is non-blank, so griffe would skip the header. Its indentation does
            # not matter, because the header itself is anchored at column 0 by the regex above.
            and output
            and output[-1].strip()
            # Following line is an indented block, matching griffe's "indented line below" gate.
            and index + 1 < len(lines)
            and lines[index + 1].startswith((" ", "\t"))
        ):
            output.append("")
            inserted = True
        output.append(line)

    if not inserted:
        # Preserve the original object (splitlines/join would drop a trailing newline).
        return doc
    return "\n".join(output)


def generate_func_documentation(
    func: Callable[..., Any], style: DocstringStyle | None = None
) -> FuncDocumentation:
    """
    Extracts metadata from a function docstring, in preparation for sending it to an LLM as a tool.

    Args:
        func: The function to extract documentation from.
        style: The style of the docstring to use for parsing. If not provided, we will attempt to
            auto-detect the style.

    Returns:
        A FuncDocumentation object containing the function's name, description, and parameter
        descriptions.
    """
    name = func.__name__
    doc = inspect.getdoc(func)
    if not doc:
        return FuncDocumentation(name=name, description=None, param_descriptions=None)

    # Resolve the style against the original docstring before any normalization.
    resolved_style = style or _detect_docstring_style(doc)
    if resolved_style == "google":
        doc = _ensure_blank_line_before_google_sections(doc)

    from griffe import Docstring, DocstringSectionKind

    with _suppress_griffe_logging():
        # Griffe runs cleandoc again. A leading newline keeps the already-cleaned first
        # line in its indentation calculation, preserving an initial Args: section's body.
        docstring = Docstring("\n" + doc, lineno=1, parser=resolved_style)
        parsed = docstring.parse()

    description: str | None = next(
        (section.value for section in parsed if section.kind == DocstringSectionKind.text), None
    )

    param_descriptions: dict[str, str] = {
        # Google and NumPy style docstrings write variadic parameters with their
        # stars ("*args:", "**kwargs:") and griffe returns those names verbatim.
        # Strip the stars so lookups by the signature parameter name succeed.
        param.name.lstrip("*"): param.description
        for section in parsed
        if section.kind == DocstringSectionKind.parameters
        for param in section.value
    }

    return FuncDocumentation(
        name=func.__name__,
        description=description,
        param_descriptions=param_descriptions or None,
    )


_SKIPPED_SECTIONS = frozenset({"parameters", "other_parameters"})
_SECTION_TITLES = {
    "returns": "Returns",
    "yields": "Yields",
    "receives": "Receives",
    "raises": "Raises",
    "warns": "Warns",
    "examples": "Examples",
    "attributes": "Attributes",
    "deprecated": "Deprecated",
}


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines())


def _render_item(item: Any) -> str:
    if isinstance(item, tuple):  # examples: (kind, text)
        return str(item[1])
    description = str(getattr(item, "description", "") or "")
    label = getattr(item, "name", "") or ""
    annotation = getattr(item, "annotation", None)
    if not label and annotation is not None:
        label = str(annotation)
    return f"{label}: {description}" if label else description


def _render_section(section: Any) -> str | None:
    kind = str(getattr(section.kind, "value", section.kind))
    if kind in _SKIPPED_SECTIONS:
        return None
    value = section.value
    if kind == "text":
        return str(value)
    if kind == "admonition":
        title = section.title or str(getattr(value, "annotation", "") or "Note").capitalize()
        return f"{title}:\n{_indent(str(getattr(value, 'description', '') or ''))}"
    title = section.title or _SECTION_TITLES.get(kind, kind.replace("_", " ").capitalize())
    items = value if isinstance(value, list) else [value]
    body = "\n".join(_render_item(item) for item in items)
    return f"{title}:\n{_indent(body)}"


def generate_lossless_description(
    func: Callable[..., Any], style: DocstringStyle | None = None
) -> str | None:
    """The whole docstring as a description, less the parameter sections.

    The SDK keeps only the first text block; this keeps Returns, Raises, Examples, notes and
    free text after `Args:` too, so a model sees the tool's whole contract. Parameter
    descriptions still go to the schema and are not repeated here.
    """
    doc = inspect.getdoc(func)
    if not doc:
        return None
    resolved_style = style or _detect_docstring_style(doc)
    if resolved_style == "google":
        doc = _ensure_blank_line_before_google_sections(doc)
    from griffe import Docstring

    with _suppress_griffe_logging():
        parsed = Docstring("\n" + doc, lineno=1, parser=resolved_style).parse()
    parts = [text for text in (_render_section(section) for section in parsed) if text]
    return "\n\n".join(parts) or None
