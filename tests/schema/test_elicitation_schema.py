"""Elicitation forms: the restricted schema MCP allows, checked with errors naming the
property; pydantic models converted to it; accepted answers checked against it."""

from __future__ import annotations

import enum
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolwire import UserError
from toolwire.schema.elicitation import answer_problems, elicitation_schema

# The conformance suite's SEP-1034 (defaults) and SEP-1330 (enums) forms, as the harness
# checks them.
SEP1034 = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}
SEP1330 = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First"},
                {"const": "value2", "title": "Second"},
            ],
        },
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["One", "Two"]},
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2"]},
            "minItems": 1,
            "default": ["option1"],
        },
        "titledMulti": {
            "type": "array",
            "items": {"anyOf": [{"const": "value1", "title": "First"}]},
        },
    },
    "required": ["untitledSingle"],
}


@pytest.mark.parametrize("form", [SEP1034, SEP1330])
def test_every_allowed_field_kind_passes_unchanged(form: dict[str, Any]) -> None:
    assert elicitation_schema(form) == form


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"a": {"type": "object"}}, "property 'a': nested objects are not allowed"),
        ({"a": {"type": "null"}}, "property 'a': 'type' must be one of string, number"),
        ({"a": {"enum": ["x"]}}, "property 'a': 'type' must be one of"),
        ({"a": {"type": "integer", "default": "x"}}, "property 'a': 'default' must be an integer"),
        ({"a": {"type": "integer", "default": 1.5}}, "property 'a': 'default' must be an integer"),
        ({"a": {"type": "number", "default": True}}, "property 'a': 'default' must be a number"),
        ({"a": {"type": "boolean", "default": 0}}, "property 'a': 'default' must be a boolean"),
        ({"a": {"type": "string", "enum": []}}, "property 'a': 'enum' must be a non-empty list"),
        (
            {"a": {"type": "string", "enum": ["x"], "default": "y"}},
            "'default' must be one of the enum",
        ),
        (
            {"a": {"type": "string", "enum": ["x", "y"], "enumNames": ["X"]}},
            "property 'a': 'enumNames' must be a list of strings, one per enum value",
        ),
        ({"a": {"type": "string", "oneOf": [{"const": "x"}]}}, "each entry of 'oneOf' must be"),
        ({"a": {"type": "array"}}, "property 'a': an array field must have 'items'"),
        ({"a": {"type": "array", "items": {"type": "integer"}}}, "needs 'enum' or 'anyOf'"),
        (
            {"a": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": ["z"]}},
            "'default' must be a list of the field's options",
        ),
        ({"a": {"type": "string", "minLenght": 3}}, "unsupported keyword 'minLenght' for a string"),
        ({"a": {"type": "string", "format": "phone"}}, "'format' must be one of email, uri, date"),
        ({"a": {"type": "string", "maxLength": -1}}, "'maxLength' must be a non-negative integer"),
        ({"a": {"type": "number", "minimum": "0"}}, "'minimum' must be a number"),
        ({"a": "string"}, "property 'a': must be a schema object"),
    ],
)
def test_bad_properties_are_named(properties: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError) as caught:
        elicitation_schema({"type": "object", "properties": properties})
    assert str(caught.value).startswith("elicitation schema: ")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"type": "array"}, 'the top level must have "type": "object"'),
        (
            {"type": "object", "additionalProperties": False},
            "unsupported key 'additionalProperties'",
        ),
        ({"type": "object", "properties": {}, "required": ["x"]}, "'required' names 'x'"),
        ({"type": "object", "properties": []}, "'properties' must be an object"),
    ],
)
def test_bad_top_levels_are_named(form: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match="elicitation schema: ") as caught:
        elicitation_schema(form)
    assert message in str(caught.value)


def test_a_form_must_be_a_dict_or_a_model() -> None:
    with pytest.raises(
        UserError, match="must be a JSON Schema dict or a pydantic model class, not str"
    ):
        elicitation_schema("name")


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Everything(BaseModel):
    """Every field a form may hold."""

    name: str = Field(default="Ada", description="Your name")
    age: int = 30
    score: float = 9.5
    verified: bool = True
    nickname: str | None = None
    plan: Literal["free", "pro"] = "free"
    color: Color = Color.RED
    tags: list[Literal["a", "b"]] = Field(default_factory=list)
    titled: str = Field(
        json_schema_extra={
            "oneOf": [{"const": "v1", "title": "One"}, {"const": "v2", "title": "Two"}]
        }
    )


def test_a_model_is_converted_to_the_subset() -> None:
    form = elicitation_schema(Everything)
    assert form == {
        "type": "object",
        "properties": {
            "name": {
                "default": "Ada",
                "description": "Your name",
                "title": "Name",
                "type": "string",
            },
            "age": {"default": 30, "title": "Age", "type": "integer"},
            "score": {"default": 9.5, "title": "Score", "type": "number"},
            "verified": {"default": True, "title": "Verified", "type": "boolean"},
            "nickname": {"type": "string", "title": "Nickname"},
            "plan": {"default": "free", "enum": ["free", "pro"], "title": "Plan", "type": "string"},
            "color": {"enum": ["red", "green"], "type": "string", "default": "red"},
            "tags": {
                "items": {"enum": ["a", "b"], "type": "string"},
                "title": "Tags",
                "type": "array",
            },
            "titled": {
                "oneOf": [{"const": "v1", "title": "One"}, {"const": "v2", "title": "Two"}],
                "title": "Titled",
                "type": "string",
            },
        },
        "required": ["titled"],
    }


class Nested(BaseModel):
    inner: Everything


def test_a_model_with_a_nested_model_is_refused_naming_the_field() -> None:
    with pytest.raises(UserError) as caught:
        elicitation_schema(Nested)
    assert str(caught.value).startswith("elicitation form Nested: property 'inner': ")


def test_answers_are_checked_against_the_form() -> None:
    assert answer_problems({"untitledSingle": "option1", "extra": 1}, SEP1330) == []
    assert answer_problems(
        {
            "titledSingle": "nope",
            "legacyEnum": "opt1",
            "untitledMulti": ["option1", "x"],
            "titledMulti": ["value1"],
        },
        SEP1330,
    ) == [
        "untitledSingle: missing (required)",
        "titledSingle: expected one of ['value1', 'value2']",
        "untitledMulti: expected a list of ['option1', 'option2']",
    ]
    assert answer_problems({"name": 1, "age": 1.0, "score": "9", "verified": 1}, SEP1034) == [
        "name: expected a string",
        "score: expected a number",
        "verified: expected a boolean",
    ]
    assert answer_problems([1], SEP1034) == ["'content' must be an object, not list"]


def test_integers_beyond_float_range_are_numbers_not_crashes() -> None:
    # JSON integers have no bound; one too large for a float must be judged, not raise
    # OverflowError out of the check (a client's answer, or an author's default or bound).
    huge = 10**400
    form = elicitation_schema(
        {
            "type": "object",
            "properties": {
                "count": {"type": "integer", "default": huge, "minimum": -huge},
                "size": {"type": "number", "maximum": huge},
            },
        }
    )
    assert answer_problems({"count": huge, "size": -huge}, form) == []
    assert answer_problems({"count": float("inf"), "size": "x"}, form) == [
        "count: expected an integer",
        "size: expected a number",
    ]
    with pytest.raises(UserError, match="property 'flag': 'default' must be a boolean"):
        elicitation_schema(
            {"type": "object", "properties": {"flag": {"type": "boolean", "default": huge}}}
        )


def test_answers_outside_the_forms_bounds_are_problems() -> None:
    """A client's answer must keep the form's minimum/maximum, lengths and option counts: a
    tool relies on them as much as on the types (the value itself is not quoted back)."""
    form = elicitation_schema(
        {
            "type": "object",
            "properties": {
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "ratio": {"type": "number", "minimum": 0.5},
                "code": {"type": "string", "minLength": 2, "maxLength": 4},
                "days": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["mon", "tue", "wed"]},
                    "minItems": 1,
                    "maxItems": 2,
                },
            },
        }
    )
    assert answer_problems({"age": 150, "ratio": 0.5, "code": "ab", "days": ["mon"]}, form) == []
    assert answer_problems({"age": 151, "ratio": 0.25, "code": "a", "days": []}, form) == [
        "age: above the maximum 150",
        "ratio: below the minimum 0.5",
        "code: 1 characters, fewer than minLength 2",
        "days: 0 options chosen, fewer than minItems 1",
    ]
    assert answer_problems(
        {"age": -1, "code": "éééé\u00e9", "days": ["mon", "tue", "wed"]}, form
    ) == [
        "age: below the minimum 0",
        "code: 5 characters, more than maxLength 4",
        "days: 3 options chosen, more than maxItems 2",
    ]


FORMATTED = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email"},
        "uri": {"type": "string", "format": "uri"},
        "date": {"type": "string", "format": "date"},
        "date_time": {"type": "string", "format": "date-time"},
    },
}
FITTING = {
    "email": ["a.b+c@example.com", "josé@exämple.de", "root@localhost", "u@[192.0.2.1]"],
    "uri": [
        "https://x.test/a?b=c#d",
        "urn:isbn:0451450523",
        "mailto:a@b.c",
        "file:///%20x",
        "https://例え.jp/パス",
    ],
    "date": ["2026-11-28", "2024-02-29", "0001-01-01"],
    "date_time": [
        "2026-11-28T09:50:00Z",
        "2026-11-28t09:50:00.123+05:30",
        "2016-12-31T23:59:60Z",  # a leap second
        "2026-11-28T09:50:00-00:00",
        "2026-11-28T09:50",  # a browser's date-time picker
        "2026-11-28 09:50:00",  # a naive Python datetime, with RFC 3339's space
    ],
}
BREAKING = {
    "email": ["", "no-at", "a@b@c", "a @b.c", ".a@b.c", "a@b.c\nx", "a@-b.c", "a@b..c", "a@[\x1b]"],
    "uri": [
        "",
        "not a uri",
        "/relative/path",
        "example.org/x",
        "http://x/%zz",
        "1http://x",
        "a:\u202e",
    ],
    "date": ["2026-13-01", "20261128", "2023-02-29", "2026-11-28\n", "٢٠٢٦-١١-٢٨", "28/11/2026"],
    "date_time": [
        "next tuesday",
        "2026-11-28_09:50:00Z",
        "2026-11-28T24:00:00Z",
        "2026-11-28T9:50",
        "2026-11-28T10:00:00+24:00",
        "2026-11-28T10:00:00+5",
        "2026-11-28",
    ],
}
SHOWN = {
    "email": "not an email address (format 'email')",
    "uri": "not an absolute URI (format 'uri')",
    "date": "not a date (YYYY-MM-DD) (format 'date')",
    "date_time": "not a date and time (RFC 3339) (format 'date-time')",
}


@pytest.mark.parametrize("field", FITTING)
def test_string_formats_are_checked_on_the_answer(field: str) -> None:
    """MCP lets a form's string name a format (email, uri, date, date-time); an answer that
    does not have it is a problem naming the field and the format, never quoting the value.
    Before the check, any string passed."""
    form = elicitation_schema(FORMATTED)
    for value in FITTING[field]:
        assert answer_problems({field: value}, form) == [], value
    for value in BREAKING[field]:
        assert answer_problems({field: value}, form) == [f"{field}: {SHOWN[field]}"], value


def test_a_default_breaking_its_fields_format_or_bounds_is_refused_before_sending() -> None:
    """A client shows the default in the form; a user who accepts it would send an answer the
    check then refuses, so the author hears of it at once instead."""
    for spec, said in (
        ({"type": "string", "format": "email", "default": "nobody"}, "not an email address"),
        ({"type": "string", "format": "date", "default": "2026-02-30"}, "not a date"),
        ({"type": "string", "format": "date-time", "default": "soon"}, "not a date and time"),
        ({"type": "string", "minLength": 3, "default": "ab"}, "fewer than minLength 3"),
        ({"type": "integer", "maximum": 9, "default": 10}, "above the maximum 9"),
    ):
        with pytest.raises(UserError) as caught:
            elicitation_schema({"type": "object", "properties": {"f": spec}})
        assert str(caught.value).startswith("elicitation schema: property 'f': 'default' ")
        assert said in str(caught.value)
    fine = {"type": "string", "format": "uri", "default": "https://x.test"}
    assert elicitation_schema({"type": "object", "properties": {"f": fine}})


def test_a_model_with_python_dates_and_urls_keeps_its_defaults() -> None:
    """pydantic writes a naive datetime default without an offset; a form made from such a
    model must still be sent, and its default accepted back."""
    import datetime

    from pydantic import AnyUrl, BaseModel

    class Meeting(BaseModel):
        when: datetime.datetime = datetime.datetime(2026, 11, 28, 9, 50)
        day: datetime.date = datetime.date(2026, 11, 28)
        site: AnyUrl = AnyUrl("https://x.test/room")

    form = elicitation_schema(Meeting)
    defaults = {name: spec["default"] for name, spec in form["properties"].items()}
    assert answer_problems(defaults, form) == []
