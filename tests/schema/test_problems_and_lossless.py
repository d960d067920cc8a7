"""schema_problems per dialect, and lossless docstrings."""

from __future__ import annotations

from typing import Optional

import pytest

from toolwire import function_tool, schema_problems


def _messages(schema: dict, dialect: str) -> list[str]:
    return [str(problem) for problem in schema_problems(schema, dialect)]


def test_unknown_dialect_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="openai-strict, gemini, anthropic"):
        schema_problems({"type": "object"}, "bard")


def test_sdk_strict_schema_is_clean_for_every_dialect() -> None:
    @function_tool
    def search(query: str, limit: Optional[int] = None) -> str:  # noqa: UP045
        """Search."""
        return query

    schema = search.params_json_schema
    assert schema["additionalProperties"] is False
    assert {"type": "null"} in schema["properties"]["limit"]["anyOf"]
    # This asserted Gemini problems (additionalProperties, anyOf with null) until 2026-11-23:
    # rules of the OpenAPI `parameters` field, which Gemini's JSON Schema path does not have.
    for dialect in ("openai-strict", "gemini", "anthropic"):
        assert schema_problems(schema, dialect) == [], dialect


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "array"}, '(root): the root must be {"type": "object"}'),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": []},
            '(root): objects need "additionalProperties": false',
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": [],
                "additionalProperties": False,
            },
            "(root): every property must be required; missing from required: a;",
        ),
        (
            {
                "type": "object",
                "properties": {"s": {"type": "string", "format": "uri-reference"}},
                "required": ["s"],
                "additionalProperties": False,
            },
            "properties.s: format 'uri-reference' is not supported",
        ),
        (
            {
                "type": "object",
                "properties": {"s": {"type": "array", "uniqueItems": True}},
                "required": ["s"],
                "additionalProperties": False,
            },
            "properties.s: the 'uniqueItems' keyword is not supported",
        ),
    ],
)
def test_openai_strict_rules(schema: dict, expected: str) -> None:
    messages = _messages(schema, "openai-strict")
    assert any(m.startswith(expected) for m in messages), messages


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"type": "array", "items": {"type": "string"}},
            "(root): parametersJsonSchema must describe an object",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A", "title": "A"}},
                "$defs": {"A": {"type": "string"}},
            },
            "properties.a: Gemini accepts no keywords beside $ref, but this one has title",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "int"}}},
            "properties.a: 'int' is not a JSON Schema type",
        ),
    ],
)
def test_gemini_rules(schema: dict, expected: str) -> None:
    messages = _messages(schema, "gemini")
    assert any(m.startswith(expected) for m in messages), messages


def test_gemini_takes_what_only_its_openapi_field_refused() -> None:
    # Each of these was a Gemini problem until 2026-11-23 (the OpenAPI `parameters` rules).
    for prop in (
        {"$ref": "#/$defs/A"},
        {"const": 1},
        {"type": ["string", "null"]},
        {"type": "object"},
    ):
        schema = {"type": "object", "properties": {"a": prop}, "$defs": {"A": {"type": "string"}}}
        assert schema_problems(schema, "gemini") == [], prop


def test_anthropic_rules() -> None:
    assert _messages({"anyOf": [{"type": "object"}]}, "anthropic") == [
        '(root): input_schema must have "type": "object" at the root; take named parameters',
        "(root): input_schema must not use anyOf at the root; make the alternatives one "
        "parameter's type, or split the tool",
    ]
    assert schema_problems({"type": "object", "properties": {}}, "anthropic") == []


DOC = """Fetch the weather for a city.

    Args:
        city: The city to look up.

    Valid cities: any in the atlas.

    Returns:
        A weather report.

    Raises:
        ValueError: If the city is unknown.

    Examples:
        >>> get_weather("Oslo")
        'Oslo: 20C'
    """


def _weather(city: str) -> str:
    return city


_weather.__doc__ = DOC


def test_default_description_drops_what_lossless_keeps() -> None:
    default = function_tool(_weather)
    lossless = function_tool(_weather, lossless_docstring=True)
    assert default.description == "Fetch the weather for a city."
    assert lossless.description == (
        "Fetch the weather for a city.\n\n"
        "Valid cities: any in the atlas.\n\n"
        "Returns:\n    A weather report.\n\n"
        "Raises:\n    ValueError: If the city is unknown.\n\n"
        "Examples:\n    >>> get_weather(\"Oslo\")\n    'Oslo: 20C'"
    )
    # parameter descriptions stay in the schema, not in the description
    assert lossless.params_json_schema == default.params_json_schema
    assert "The city to look up." not in lossless.description


def test_lossless_numpy_and_sphinx() -> None:
    def scale(values: list[float], factor: float) -> list[float]:
        """Scale numbers.

        Parameters
        ----------
        values : list[float]
            The numbers.
        factor : float
            Multiplier.

        Returns
        -------
        list[float]
            The scaled numbers.
        """
        return values

    def mult(x: int) -> int:
        """Multiply things.

        :param x: first factor
        :return: the product
        :raises ValueError: when negative
        """
        return x

    numpy_tool = function_tool(scale, lossless_docstring=True)
    assert (
        numpy_tool.description == "Scale numbers.\n\nReturns:\n    list[float]: The scaled numbers."
    )
    assert numpy_tool.params_json_schema["properties"]["factor"]["description"] == "Multiplier."
    sphinx_tool = function_tool(mult, lossless_docstring=True)
    assert sphinx_tool.description.startswith("Multiply things.\n\nReturns:\n")
    assert "the product" in sphinx_tool.description
    assert "ValueError: when negative" in sphinx_tool.description
