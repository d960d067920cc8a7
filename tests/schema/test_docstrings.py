"""Docstring parsing: toolwire's port against the Agents SDK's own functions, and the fast path
(no griffe for docstrings without sections) against griffe itself."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agents import function_schema as sdk
from griffe import Docstring
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.schema import docstrings as ours
from toolwire.schema.docstrings import guess_style, plain_text_block, space_google_headers
from toolwire.schema.function_schema import function_schema

ROOT = Path(__file__).resolve().parents[2]
STYLES: list[Any] = [None, "google", "numpy", "sphinx"]


def _func(doc: str | None) -> Callable[..., Any]:
    def tool(city: str, unit: str = "C", *args: int, **kwargs: str) -> str:
        return city

    tool.__doc__ = doc
    return tool


def _same(doc: str | None, style: Any) -> ours.FuncDocumentation:
    func = _func(doc)
    expected = sdk.generate_func_documentation(func, style)
    got = ours.generate_func_documentation(func, style)
    assert (got.name, got.description, got.param_descriptions) == (
        expected.name,
        expected.description,
        expected.param_descriptions,
    ), (doc, style)
    return got


GOOGLE = """Fetch the weather for a city.

    Longer explanation that is part of the description.

    Args:
        city: The city to look up.
        unit: Temperature unit, "C" or "F".

    Returns:
        A weather report.
    """

NUMPY = """Fetch the weather.

    Parameters
    ----------
    city : str
        The city to look up.
    unit : str
        Temperature unit.

    Returns
    -------
    str
        A weather report.
    """

SPHINX = """Fetch the weather.

    :param city: The city to look up.
    :type city: str
    :param unit: Temperature unit.
    :return: A weather report.
    :rtype: str
    """

EDGE_CASES = [
    None,
    "",
    "   ",
    "One line.",
    "One line with trailing spaces.   \n\n\n",
    "Summary.\n\nSecond paragraph.\n\nThird paragraph, still text.",
    GOOGLE,
    NUMPY,
    SPHINX,
    # Args on the first line
    "Args:\n    city: The city.\n    unit: The unit.",
    # No blank line before Args (the SDK's fix inserts one)
    "Fetch the weather.\nArgs:\n    city: The city.\n    unit: The unit.",
    "Fetch.\n\nNote:\n    Careful.\nArgs:\n    city: The city.",
    "Fetch.\narguments:\n    city: lower-case header.",
    "Fetch.\nParams:\n    city: alias header.",
    # *args / **kwargs written with their stars
    "Fetch.\n\nArgs:\n    city: The city.\n    *args: Extra numbers.\n    **kwargs: Extra names.",
    "Fetch.\n\nParameters\n----------\n*args : int\n    Extra.\n**kwargs : str\n    Named.",
    ":param city: The city.\n:param *args: stars.",
    # multi-paragraph descriptions of parameters
    "Fetch.\n\nArgs:\n    city: The city.\n\n        Still the city.\n    unit: Unit.",
    # colons in free text, urls, times
    "Fetch from http://example.com at 10:30.",
    "Summary: not a section, nothing indented below.",
    "Note: inline note\n    with an indented continuation.",
    "Warning:\n    Admonition only.",
    "Text.\n\n```\nArgs:\n    city: inside a fence\n```",
    "Text.\n\n    indented block\n    more",
    "Tabs\tinside\ttext.\n\n\tand a tab-indented line.",
    "Unicode\u00a0spaces and\u2003more.\n\u00a0",
    "Returns:\n    Only a returns section.",
    "Raises:\n    ValueError: always.",
    "Summary.\n\nArgs:\n    nope: Not a parameter of the function.",
    "Summary.\n\nArgs:\n\n    city: Extraneous blank line below the header.",
    "Summary.\n\nArgs:\n    city (str): Typed in the docstring.\n    unit (str, optional): Unit.",
    "Summary.\n\nExamples:\n    >>> 1 + 1\n    2",
    "Parameters\n----------\ncity : str\n    First line numpy.",
    "Summary\n---\nNot a known numpy header.",
    ":param city:\n:rtype: str",
    "Mixed.\n\nArgs:\n    city: google.\n\n:param unit: sphinx.",
]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("doc", EDGE_CASES)
def test_matches_sdk(doc: str | None, style: Any) -> None:
    _same(doc, style)


def test_golden_descriptions() -> None:
    got = _same(GOOGLE, None)
    assert got.description == (
        "Fetch the weather for a city.\n\nLonger explanation that is part of the description."
    )
    assert got.param_descriptions == {
        "city": "The city to look up.",
        "unit": 'Temperature unit, "C" or "F".',
    }
    assert _same(NUMPY, None).param_descriptions == {
        "city": "The city to look up.",
        "unit": "Temperature unit.",
    }
    assert _same(SPHINX, None).description == "Fetch the weather."
    stars = _same(EDGE_CASES[14], None)
    assert stars.param_descriptions is not None
    assert stars.param_descriptions["args"] == "Extra numbers."
    assert stars.param_descriptions["kwargs"] == "Extra names."


@pytest.mark.parametrize("doc", [d for d in EDGE_CASES if d])
def test_style_detection_and_blank_line_fix_match_sdk(doc: str) -> None:
    assert guess_style(doc) == sdk._detect_docstring_style(doc)
    fixed = space_google_headers(doc)
    assert fixed == sdk._ensure_blank_line_before_google_sections(doc)


def test_detection_tie_breaks_sphinx_numpy_google() -> None:
    both = "S.\n\n:param x: a\n\nParameters\n----------\nx : int\n    a"
    assert guess_style(both) == "sphinx"
    assert guess_style("Returns:\n  x\nReturns\n-------\nint") == "numpy"
    assert guess_style("plain") == "google"


# -- the fast path: a docstring with no section never loads griffe --------------------------

LINES = st.sampled_from(
    [
        "",
        " ",
        "Summary line.",
        "Text with a colon: in the middle.",
        "Note: a note",
        "Args:",
        "args:",
        "Returns:",
        "Example: titled",
        "    city: The city.",
        "    indented text",
        "\tTabbed text",
        "```",
        "```python",
        "Look at http://x.y/z",
        "a-b c: d",
        "- bullet",
        ":param city: sphinx",
        "----------",
        "Parameters",
        "\u00a0nbsp",
        "trailing   ",
    ]
)
DOCS = st.lists(LINES, min_size=1, max_size=10).map("\n".join)


def _griffe_google(doc: str) -> list[tuple[str, Any]]:
    parsed = Docstring("\n" + doc, lineno=1, parser="google").parse()
    return [(section.kind.value, section.value) for section in parsed]


FAST_HITS: list[str] = []


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS)
def test_fast_path_equals_griffe(doc: str) -> None:
    import inspect

    cleaned = inspect.getdoc(_func(doc))
    if not cleaned:
        return
    plain = plain_text_block(cleaned)
    if plain is not None:
        FAST_HITS.append(cleaned)
        assert ([("text", plain)] if plain else []) == _griffe_google(cleaned)
    for style in (None, "google"):
        _same(doc, style)


def test_fast_path_was_exercised_and_is_conservative() -> None:
    # The generated run above must have hit the fast path often enough to mean something.
    test_fast_path_equals_griffe()
    assert len(set(FAST_HITS)) >= 20
    assert plain_text_block("Add two integers.") is not None
    assert plain_text_block("Summary.\n\nArgs:\n    x: y") is None
    # any header-shaped line sends the docstring to griffe, even when griffe would keep it as text
    assert plain_text_block("Summary: no indented line below") is None


def test_plain_docstring_does_not_import_griffe() -> None:
    code = (
        "import sys\n"
        "from toolwire.schema.function_schema import function_schema\n"
        "def add(a: int, b: int = 2) -> int:\n"
        "    '''Add two integers.\n\n    Second paragraph.'''\n"
        "s = function_schema(add)\n"
        "assert s.description == 'Add two integers.\\n\\nSecond paragraph.', s.description\n"
        "print('griffe' in sys.modules)\n"
        "def sub(a: int) -> int:\n"
        "    '''Subtract.\n\n    Args:\n        a: The number.\n    '''\n"
        "s = function_schema(sub)\n"
        "assert s.params_json_schema['properties']['a']['description'] == 'The number.'\n"
        "print('griffe' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]


def test_function_schema_descriptions_match_sdk_for_every_edge_case() -> None:
    for doc in EDGE_CASES:
        func = _func(doc)
        expected = sdk.function_schema(func, strict_json_schema=False)
        got = function_schema(func, strict_json_schema=False)
        assert got.description == expected.description, doc
        assert json.dumps(got.params_json_schema) == json.dumps(expected.params_json_schema), doc
