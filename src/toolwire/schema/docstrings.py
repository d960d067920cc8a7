"""What a function's docstring tells a model: a description and one note per parameter.

The public names and results are the Agents SDK's (`generate_func_documentation`,
`FuncDocumentation`, `DocstringStyle`); `document_function` adds toolwire's lossless
description. The work is split by step: `_docstyle` picks the convention and repairs google
headers, `_docparse` reads the sections (griffe only when there is structure to read) and
`_lossless` renders the optional full description.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from ._docparse import parameter_notes, read_sections, summary_of
from ._docstyle import guess_style
from ._lossless import lossless_description

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "ToolText",
    "document_function",
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
    return document_function(func, style)


def document_function(
    func: Callable[..., Any], style: DocstringStyle | None = None, *, lossless: bool = False
) -> FuncDocumentation:
    """`generate_func_documentation`, with toolwire's optional lossless description.

    Args:
        func: The function to document.
        style: The docstring convention; guessed from the text when None.
        lossless: Describe the function with every section of its docstring except the
            parameters (Returns, Raises, Examples, notes, later prose) instead of only the
            first text block. Parameter descriptions are the same either way.

    Returns:
        The name, description and parameter descriptions, from one reading of the docstring.
    """
    name = func.__name__
    text = inspect.getdoc(func)
    if not text:
        return FuncDocumentation(name=name, description=None, param_descriptions=None)
    sections = read_sections(text, style or guess_style(text))
    description = lossless_description(sections) if lossless else summary_of(sections)
    return FuncDocumentation(
        name=name, description=description, param_descriptions=parameter_notes(sections)
    )


class ToolText(NamedTuple):
    """The words a tool shows of its function, after the decorator's overrides."""

    name: str
    description: str | None
    param_notes: dict[str, str]


def tool_text(
    func: Callable[..., Any],
    style: DocstringStyle | None,
    use_docstring_info: bool,
    lossless: bool,
    name_override: str | None,
    description_override: str | None,
    /,
) -> ToolText:
    """A tool's name, description and parameter notes, for both schema builders.

    Both the pydantic builder and the decoration fast path must name and describe a tool
    identically, so they take these words from here.

    Args:
        func: The tool's function.
        style: The docstring convention; guessed from the text when None.
        use_docstring_info: Whether to read the docstring at all.
        lossless: As for `document_function`.
        name_override: The name to use instead of the function's (when not empty).
        description_override: The description to use instead of the docstring's (when
            not empty).

    Returns:
        The name, the description (None when there is none) and the parameter notes.
    """
    if not use_docstring_info:
        return ToolText(name_override or func.__name__, description_override or None, {})
    documented = document_function(func, style, lossless=lossless)
    return ToolText(
        name_override or documented.name,
        description_override or documented.description,
        documented.param_descriptions or {},
    )
