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


@dataclass(frozen=True)
class _Section:
    """A parsed docstring section, reduced to what toolwire reads (griffe-independent)."""

    kind: str  # griffe's DocstringSectionKind value: "text", "parameters", "returns", ...
    value: Any
    title: str | None = None


# A copy of griffe's google-style section/admonition line pattern (griffe 2.x,
# `_RE_ADMONITION`). A docstring with no line matching it parses to one text section, which is
# what `_plain_google_sections` computes without importing griffe.
_RE_GOOGLE_SECTION_CANDIDATE = re.compile(
    r"^(?P<type>[\w][\s\w-]*):(\s+(?P<title>[^\s].*))?\s*$", re.IGNORECASE
)


def _plain_google_sections(doc: str) -> list[_Section] | None:
    """griffe's google parse of a docstring without any section, or None when it may have one.

    griffe cleans the text (`inspect.cleandoc(value.rstrip())`), then keeps every line that is
    not a section or admonition header as text and strips trailing newlines. Only lines matching
    the header pattern can start anything else (code fences only protect such lines), so when
    none matches, the result is that single text block. tests/schema/test_docstrings.py checks
    this against griffe on hand-written and generated docstrings.
    """
    value = inspect.cleandoc(("\n" + doc).rstrip())
    lines = value.split("\n")
    if any(":" in line and _RE_GOOGLE_SECTION_CANDIDATE.match(line) for line in lines):
        return None
    if not any(lines):
        return []
    return [_Section("text", "\n".join(lines).rstrip("\n"))]


def _parse_sections(doc: str, style: DocstringStyle | None) -> list[_Section]:
    """The sections of a cleaned docstring, exactly as the SDK's griffe call sees them."""
    # Resolve the style against the original docstring before any normalization.
    resolved_style = style or _detect_docstring_style(doc)
    if resolved_style == "google":
        plain = _plain_google_sections(doc)
        if plain is not None:
            return plain
        doc = _ensure_blank_line_before_google_sections(doc)

    from griffe import Docstring  # deferred: most tools never need it, and it costs start-up time

    with _suppress_griffe_logging():
        # Griffe runs cleandoc again. A leading newline keeps the already-cleaned first
        # line in its indentation calculation, preserving an initial Args: section's body.
        parsed = Docstring("\n" + doc, lineno=1, parser=resolved_style).parse()
    return [
        _Section(str(section.kind.value), section.value, getattr(section, "title", None))
        for section in parsed
    ]


def _param_descriptions(sections: list[_Section]) -> dict[str, str] | None:
    param_descriptions: dict[str, str] = {
        # Google and NumPy style docstrings write variadic parameters with their
        # stars ("*args:", "**kwargs:") and griffe returns those names verbatim.
        # Strip the stars so lookups by the signature parameter name succeed.
        param.name.lstrip("*"): param.description
        for section in sections
        if section.kind == "parameters"
        for param in section.value
    }
    return param_descriptions or None


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
    return document_function(func, style)


def document_function(
    func: Callable[..., Any], style: DocstringStyle | None = None, *, lossless: bool = False
) -> FuncDocumentation:
    """Like `generate_func_documentation`, optionally with the lossless description.

    Args:
        func: The function to extract documentation from.
        style: The docstring style; auto-detected when None.
        lossless: Describe the function with its whole docstring (Returns, Raises, Examples,
            notes, free text after the parameters) rather than only its first text block.
            Parameter descriptions go to `param_descriptions` either way.

    Returns:
        The function's name, description and parameter descriptions, parsing the docstring
        once.
    """
    name = func.__name__
    doc = inspect.getdoc(func)
    if not doc:
        return FuncDocumentation(name=name, description=None, param_descriptions=None)
    sections = _parse_sections(doc, style)
    if lossless:
        description = _lossless_description(sections)
    else:
        description = next((s.value for s in sections if s.kind == "text"), None)
    return FuncDocumentation(
        name=name, description=description, param_descriptions=_param_descriptions(sections)
    )


def generate_lossless_description(
    func: Callable[..., Any], style: DocstringStyle | None = None
) -> str | None:
    """The whole docstring as a description, less the parameter sections.

    The SDK keeps only the first text block; this keeps Returns, Raises, Examples, notes and
    free text after `Args:` too, so a model sees the tool's whole contract. Parameter
    descriptions still go to the schema and are not repeated here.

    Args:
        func: The function whose docstring to render.
        style: The docstring style; auto-detected when None.

    Returns:
        Plain text with one paragraph per section, or None without a docstring.
    """
    return document_function(func, style, lossless=True).description


# Only "parameters" feed the schema; everything else the SDK drops is kept, including
# "Other Parameters", whose descriptions would otherwise be lost entirely.
_SCHEMA_SECTIONS = frozenset({"parameters"})


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in text.splitlines())


def _render_item(item: Any) -> str:
    if isinstance(item, tuple):  # an Examples entry: (kind, text)
        return str(item[1])
    description = str(getattr(item, "description", "") or "")
    label = getattr(item, "name", "") or ""
    annotation = getattr(item, "annotation", None)
    if not label and annotation:
        label = str(annotation)
    return f"{label}: {description}" if label else description


def _render_section(section: _Section) -> str | None:
    if section.kind in _SCHEMA_SECTIONS:
        return None
    value = section.value
    if section.kind == "text":
        return str(value) if str(value).strip() else None
    if section.kind == "admonition":
        title = section.title or str(getattr(value, "annotation", "") or "Note").capitalize()
        return f"{title}:\n{_indent(str(getattr(value, 'description', '') or ''))}"
    title = section.title or " ".join(word.capitalize() for word in section.kind.split())
    items = value if isinstance(value, list) else [value]
    # Examples alternate prose and code blocks; a blank line keeps them apart.
    separator = "\n\n" if section.kind == "examples" else "\n"
    body = separator.join(_render_item(item) for item in items)
    return f"{title}:\n{_indent(body)}"


def _lossless_description(sections: list[_Section]) -> str | None:
    parts = [text for text in (_render_section(section) for section in sections) if text]
    return "\n\n".join(parts) or None
