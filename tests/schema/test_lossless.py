"""lossless_docstring=True: the description keeps what the SDK drops; the schema is unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from agents.function_schema import function_schema as sdk_function_schema

from toolwire.schema.function_schema import function_schema


def _with_doc(doc: str | None) -> Callable[..., Any]:
    def get_weather(city: str, unit: str = "C", days: int = 1) -> str:
        return city

    get_weather.__doc__ = doc
    return get_weather


GOOGLE = """Fetch the weather for a city.

    Longer explanation.

    Args:
        city: The city to look up.
        unit: Temperature unit.

    Valid cities: any in the atlas.

    Returns:
        A weather report.

    Raises:
        ValueError: If the city is unknown.
        TimeoutError: If the service is slow.

    Examples:
        Ask for Oslo:

        >>> get_weather("Oslo")
        'Oslo: 20C'

    Note:
        Results are cached for a minute.
    """

NUMPY = """Fetch the weather for a city.

    Parameters
    ----------
    city : str
        The city to look up.
    unit : str
        Temperature unit.

    Other Parameters
    ----------------
    days : int
        How many days ahead.

    Returns
    -------
    str
        A weather report.

    Raises
    ------
    ValueError
        If the city is unknown.

    Notes
    -----
    Results are cached for a minute.
    """

SPHINX = """Fetch the weather for a city.

    Longer explanation.

    :param city: The city to look up.
    :param unit: Temperature unit.
    :returns: A weather report.
    :rtype: str
    :raises ValueError: If the city is unknown.
    """

EXPECTED = {
    "google": (
        "Fetch the weather for a city.\n\nLonger explanation.\n\n"
        "Valid cities: any in the atlas.\n\n"
        "Returns:\n    A weather report.\n\n"
        "Raises:\n    ValueError: If the city is unknown.\n    TimeoutError: If the service is slow.\n\n"
        "Examples:\n    Ask for Oslo:\n\n    >>> get_weather(\"Oslo\")\n    'Oslo: 20C'\n\n"
        "Note:\n    Results are cached for a minute."
    ),
    "numpy": (
        "Fetch the weather for a city.\n\n"
        "Other Parameters:\n    days: How many days ahead.\n\n"
        "Returns:\n    str: A weather report.\n\n"
        "Raises:\n    ValueError: If the city is unknown.\n\n"
        "Notes:\n    Results are cached for a minute."
    ),
    "sphinx": (
        "Fetch the weather for a city.\n\nLonger explanation.\n\n"
        "Returns:\n    str: A weather report.\n\n"
        "Raises:\n    ValueError: If the city is unknown."
    ),
}
DOCS = {"google": GOOGLE, "numpy": NUMPY, "sphinx": SPHINX}


@pytest.mark.parametrize("style", ["google", "numpy", "sphinx"])
@pytest.mark.parametrize("explicit", [True, False], ids=["explicit-style", "detected-style"])
def test_lossless_keeps_sections_and_leaves_parameters_to_the_schema(
    style: str, explicit: bool
) -> None:
    func = _with_doc(DOCS[style])
    docstring_style: Any = style if explicit else None
    lossless = function_schema(func, docstring_style, lossless_docstring=True)
    default = function_schema(func, docstring_style)
    sdk = sdk_function_schema(func, docstring_style)

    assert lossless.description == EXPECTED[style]
    # the default keeps exact parity with the SDK, lossless changes the description only
    assert default.description == sdk.description
    assert json.dumps(lossless.params_json_schema) == json.dumps(sdk.params_json_schema)
    assert json.dumps(default.params_json_schema) == json.dumps(sdk.params_json_schema)
    properties = lossless.params_json_schema["properties"]
    assert properties["city"]["description"] == "The city to look up."
    assert properties["unit"]["description"] == "Temperature unit."
    for text in ("The city to look up.", "Temperature unit."):
        assert text not in lossless.description


@pytest.mark.parametrize(
    "doc",
    [
        None,
        "",
        "One line.",
        "Summary.\n\nSecond paragraph.",
        "Args:\n    city: Only parameters.",
        "Summary.\nArgs:\n    city: No blank line above.",
    ],
)
def test_lossless_equals_sdk_when_nothing_is_dropped(doc: str | None) -> None:
    func = _with_doc(doc)
    assert (
        function_schema(func, lossless_docstring=True).description
        == sdk_function_schema(func).description
    )


def test_overrides_and_switches_still_win() -> None:
    func = _with_doc(GOOGLE)
    overridden = function_schema(func, description_override="Mine.", lossless_docstring=True)
    assert overridden.description == "Mine."
    no_doc = function_schema(func, use_docstring_info=False, lossless_docstring=True)
    assert no_doc.description is None
    assert "description" not in no_doc.params_json_schema["properties"]["city"]


def test_lossless_output_is_plain_text_sections() -> None:
    description = function_schema(_with_doc(GOOGLE), lossless_docstring=True).description
    assert description is not None
    blocks = description.split("\n\n")
    headers = [block.split("\n")[0] for block in blocks]
    assert "Returns:" in headers and "Raises:" in headers and "Note:" in headers
    for block in blocks:
        lines = block.split("\n")
        if lines[0] in {"Returns:", "Raises:", "Note:"}:
            assert all(line.startswith("    ") for line in lines[1:]), block
