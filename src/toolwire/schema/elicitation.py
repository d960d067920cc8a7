"""Elicitation forms: the restricted JSON Schema that MCP lets a server ask a user to fill in.

A form is a flat object of primitive fields and enums; anything else is refused before sending,
naming the property and keyword, and a pydantic model class is converted first.
`answer_problems` checks an accepted answer against the form, its bounds and string formats
included (extra keys are ignored).
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import UserError

__all__ = ["answer_problems", "elicitation_schema", "is_model_class"]

_ROOT_KEYS = {"type", "properties", "required", "$schema", "title", "description"}
_ANNOTATIONS = {"type", "title", "description", "default"}
_KEYS = {
    "string": _ANNOTATIONS | {"minLength", "maxLength", "format"},
    "enum": _ANNOTATIONS | {"enum", "enumNames"},
    "titled": _ANNOTATIONS | {"oneOf"},
    "number": _ANNOTATIONS | {"minimum", "maximum"},
    "integer": _ANNOTATIONS | {"minimum", "maximum"},
    "boolean": _ANNOTATIONS,
    "array": _ANNOTATIONS | {"items", "minItems", "maxItems"},
}


def is_model_class(value: Any) -> bool:
    """Whether `value` is a pydantic model class (without importing pydantic)."""
    return isinstance(value, type) and callable(getattr(value, "model_json_schema", None))


def elicitation_schema(schema: Any) -> dict[str, Any]:
    """The `requestedSchema` for a form given as a schema dict or a pydantic model class.

    Raises:
        UserError: The form is outside what MCP elicitation allows; the message names the
            property and what is wrong with it.
    """
    if is_model_class(schema):
        # the model's JSON Schema reshaped toward the form subset, then checked
        raw: dict[str, Any] = schema.model_json_schema()
        defs = raw.get("$defs", {})
        properties = {
            name: _simplify(spec, defs) for name, spec in raw.get("properties", {}).items()
        }
        converted: dict[str, Any] = {"type": "object", "properties": properties}
        if raw.get("required"):
            converted["required"] = list(raw["required"])
        _check(converted, f"elicitation form {schema.__name__}")
        return converted
    if not isinstance(schema, Mapping):
        raise UserError(
            "elicitation schema must be a JSON Schema dict or a pydantic model class, "
            f"not {type(schema).__name__}"
        )
    _check(schema, "elicitation schema")
    return dict(schema)


def _check(schema: Mapping[str, Any], where: str) -> None:
    if schema.get("type") != "object":
        raise UserError(f'{where}: the top level must have "type": "object"')
    extra = sorted(set(schema) - _ROOT_KEYS)
    if extra:
        raise UserError(f"{where}: unsupported key {extra[0]!r} at the top level")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UserError(f"{where}: 'properties' must be an object")
    for name, spec in properties.items():
        _check_property(name, spec, where)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
        raise UserError(f"{where}: 'required' must be a list of property names")
    for name in required:
        if name not in properties:
            raise UserError(f"{where}: 'required' names {name!r}, which is not a property")


def _kind_of(spec: Mapping[str, Any]) -> str:
    """The kind of form field a (valid) property schema describes."""
    kind = spec.get("type")
    if kind == "string":
        if "enum" in spec:
            return "enum"
        if "oneOf" in spec:
            return "titled"
    return str(kind)


def _is_number(value: Any) -> bool:
    """A JSON number: a finite float, or an int of any size (math.isfinite overflows on one)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _check_property(name: str, spec: Any, where: str) -> None:
    here = f"{where}: property {name!r}"
    if not isinstance(spec, Mapping):
        raise UserError(f"{here}: must be a schema object")
    kind = spec.get("type")
    if kind == "object" or "properties" in spec:
        raise UserError(f"{here}: nested objects are not allowed in a form; use flat fields")
    if kind not in ("string", "number", "integer", "boolean", "array"):
        raise UserError(
            f"{here}: 'type' must be one of string, number, integer, boolean or array "
            f"(a multi-select enum), not {kind!r}"
        )
    field = _kind_of(spec)
    extra = sorted(set(spec) - _KEYS[field])
    if extra:
        raise UserError(f"{here}: unsupported keyword {extra[0]!r} for a {field} field")
    for key in ("title", "description"):
        if key in spec and not isinstance(spec[key], str):
            raise UserError(f"{here}: {key!r} must be a string")
    options = _options(field, spec, here)
    if "default" in spec and not _fits(field, spec["default"], options):
        wanted = _WANTED.get(field) or (
            "a list of the field's options" if field == "array" else "one of the enum's values"
        )
        raise UserError(f"{here}: 'default' must be {wanted}, not {spec['default']!r}")
    _check_bounds(field, spec, here)
    if "default" in spec:
        beyond = _beyond_bounds(field, spec, spec["default"])
        if beyond is not None:
            raise UserError(f"{here}: 'default' {spec['default']!r} is {beyond}")


def _options(field: str, spec: Mapping[str, Any], here: str) -> list[str] | None:
    """The values an enum field offers (None for other fields); checks their shape."""
    if field == "enum":
        values = spec["enum"]
        if not _strings(values):
            raise UserError(f"{here}: 'enum' must be a non-empty list of strings")
        names = spec.get("enumNames")
        if names is not None and (
            not isinstance(names, list)
            or len(names) != len(values)
            or not all(isinstance(n, str) for n in names)
        ):
            raise UserError(f"{here}: 'enumNames' must be a list of strings, one per enum value")
        return list(values)
    if field == "titled":
        return _titled(spec["oneOf"], "oneOf", here)
    if field == "array":
        items = spec.get("items")
        if not isinstance(items, Mapping):
            raise UserError(f"{here}: an array field must have 'items' listing its options")
        if "enum" in items:
            if set(items) - {"type", "enum"} or items.get("type", "string") != "string":
                raise UserError(f"{here}: 'items' must be {{type: string, enum: [...]}}")
            values = items["enum"]
            if not _strings(values):
                raise UserError(f"{here}: 'items.enum' must be a non-empty list of strings")
            return list(values)
        if "anyOf" in items:
            if set(items) - {"anyOf", "type"} or items.get("type", "string") != "string":
                raise UserError(f"{here}: 'items' must be {{anyOf: [{{const, title}}, ...]}}")
            return _titled(items["anyOf"], "items.anyOf", here)
        raise UserError(
            f"{here}: an array field is a multi-select: 'items' needs 'enum' or 'anyOf'"
        )
    return None


def _strings(values: Any) -> bool:
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


def _titled(choices: Any, label: str, here: str) -> list[str]:
    if not isinstance(choices, list) or not choices:
        raise UserError(f"{here}: {label!r} must be a non-empty list of {{const, title}}")
    for choice in choices:
        if (
            not isinstance(choice, Mapping)
            or set(choice) != {"const", "title"}
            or not isinstance(choice["const"], str)
            or not isinstance(choice["title"], str)
        ):
            raise UserError(
                f'{here}: each entry of {label!r} must be {{"const": str, "title": str}}'
            )
    return [choice["const"] for choice in choices]


_WANTED = {
    "string": "a string",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
}


def _fits(field: str, value: Any, options: list[str] | None) -> bool:
    """Whether `value` is a valid value of a (checked) field, its default or an answer."""
    if field == "string":
        return isinstance(value, str)
    if field == "boolean":
        return isinstance(value, bool)
    if field == "integer":
        return _is_number(value) and (isinstance(value, int) or value.is_integer())
    if field == "number":
        return _is_number(value)
    choices = options or []
    if field == "array":
        return isinstance(value, list) and all(
            isinstance(item, str) and item in choices for item in value
        )
    return isinstance(value, str) and value in choices


def _check_bounds(field: str, spec: Mapping[str, Any], here: str) -> None:
    for key in _COUNTED.get(field, ())[:2]:  # lengths and item counts
        value = spec.get(key)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            raise UserError(f"{here}: {key!r} must be a non-negative integer")
    fmt = spec.get("format") if field == "string" else None
    if fmt is not None and fmt not in _FORMATS:
        raise UserError(f"{here}: 'format' must be one of {', '.join(_FORMATS)}, not {fmt!r}")
    if field in ("number", "integer"):
        for key in ("minimum", "maximum"):
            if key in spec and not _is_number(spec[key]):
                raise UserError(f"{here}: {key!r} must be a number")


def _simplify(spec: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(spec)
    ref = out.pop("$ref", None)
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = dict(defs.get(ref.rsplit("/", 1)[1], {}))
        target.pop("title", None)  # the enum class's name
        out = {**target, **out}
    choices = out.get("anyOf")
    if isinstance(choices, list):
        kept = [c for c in choices if not (isinstance(c, Mapping) and c.get("type") == "null")]
        if len(kept) == 1 and len(kept) < len(choices):  # Optional[X]: an optional X
            del out["anyOf"]
            out = {**_simplify(kept[0], defs), **out}
    if "default" in out and out["default"] is None:
        del out["default"]
    items = out.get("items")
    if isinstance(items, Mapping) and "$ref" in items:
        out["items"] = {k: v for k, v in _simplify(items, defs).items() if k in ("type", "enum")}
    if isinstance(out.get("items"), Mapping):
        out["items"] = {k: v for k, v in out["items"].items() if k != "title"}
    return out


def answer_problems(content: Any, schema: Mapping[str, Any]) -> list[str]:
    """What is wrong with an accepted answer to a (checked) form; empty when it fits."""
    if not isinstance(content, Mapping):
        return [f"'content' must be an object, not {type(content).__name__}"]
    problems = []
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in content:
            problems.append(f"{name}: missing (required)")
    for name, value in content.items():
        spec = properties.get(name)
        if spec is None:
            continue
        field = _kind_of(spec)
        options = _options(field, spec, "")
        if not _fits(field, value, options):
            wanted = _WANTED.get(field) or (
                f"a list of {options}" if field == "array" else f"one of {options}"
            )
            problems.append(f"{name}: expected {wanted}")
            continue
        beyond = _beyond_bounds(field, spec, value)
        if beyond is not None:
            problems.append(f"{name}: {beyond}")
    return problems


_COUNTED = {
    "string": ("minLength", "maxLength", "characters"),
    "array": ("minItems", "maxItems", "options chosen"),
}


def _beyond_bounds(field: str, spec: Mapping[str, Any], value: Any) -> str | None:
    """How a value of the right type breaks its field's bounds (None when it keeps them);
    the value itself is not quoted."""
    if field in ("number", "integer"):
        low, high = spec.get("minimum"), spec.get("maximum")
        if low is not None and value < low:
            return f"below the minimum {low}"
        if high is not None and value > high:
            return f"above the maximum {high}"
        return None
    if field not in _COUNTED:
        return None
    low_key, high_key, unit = _COUNTED[field]
    low, high, count = spec.get(low_key), spec.get(high_key), len(value)
    if low is not None and count < low:
        return f"{count} {unit}, fewer than {low_key} {low}"
    if high is not None and count > high:
        return f"{count} {unit}, more than {high_key} {high}"
    fmt = spec.get("format") if field == "string" else None
    if fmt in _FORMATS and not _FORMATS[fmt][1](value):
        return f"not {_FORMATS[fmt][0]} (format {fmt!r})"
    return None


# RFC 5321 mailbox, simplified: a dot-atom local part, and a domain of labels or an IPv4/IPv6
# address literal in brackets; letters beyond ASCII pass too, as a person may type them (RFC
# 6531), but not the bidirectional controls, the line separators or lone surrogates.
_WIDE = "\u00a0-\u061b\u061d-\u200d\u2010-\u2027\u202f-\u2065\u206a-\ud7ff\ue000-\U0010ffff"
_ATOM = rf"[A-Za-z0-9!#$%&'*+/=?^_`{{|}}~{_WIDE}-]+"
_LABEL = rf"[A-Za-z0-9{_WIDE}](?:[A-Za-z0-9{_WIDE}-]*[A-Za-z0-9{_WIDE}])?"


# The email and URI patterns are compiled on first use: their wide character classes take
# tens of milliseconds to compile, and most servers never check an answer's format.


@functools.cache
def _email() -> re.Pattern[str]:
    return re.compile(rf"{_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9A-Za-z:.]+\])")


@functools.cache
def _uri() -> re.Pattern[str]:
    # RFC 3986 URI: a scheme, then characters a URI may hold, percent escapes well formed;
    # letters beyond ASCII pass too, as a person types an address (an RFC 3987 IRI).
    return re.compile(
        rf"[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;={_WIDE}]|%[0-9A-Fa-f]{{2}})*"
    )


# RFC 3339 full-date, and date-time as people's tools write it: the "T" (or a space, which
# RFC 3339 allows) in either case; the seconds and the offset may be missing, as a browser's
# date-time picker and a naive Python datetime leave them out.
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-](\d{2}):(\d{2}))?", re.ASCII)


def _is_date(text: str) -> bool:
    found = _DATE.fullmatch(text)
    if found is None:
        return False
    try:
        datetime.date(*(int(part) for part in found.groups()))
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    day, sep, time = text[:10], text[10:11], text[11:]
    if sep not in ("T", "t", " ") or not _is_date(day):
        return False
    found = _TIME.fullmatch(time)
    if found is None:
        return False
    hour, minute, second, off_hour, off_minute = found.groups()
    if int(hour) > 23 or int(minute) > 59 or int(second or 0) > 60:  # 60: a leap second
        return False
    return off_hour is None or (int(off_hour) <= 23 and int(off_minute) <= 59)


# The string formats a form may use: what a value is called, and the check of one.
_FORMATS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "email": ("an email address", lambda text: _email().fullmatch(text) is not None),
    "uri": ("an absolute URI", lambda text: _uri().fullmatch(text) is not None),
    "date": ("a date (YYYY-MM-DD)", _is_date),
    "date-time": ("a date and time (RFC 3339)", _is_date_time),
}
