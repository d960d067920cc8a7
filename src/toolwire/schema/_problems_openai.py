"""OpenAI strict function calling (Structured Outputs): what `schema_problems` reports."""

from __future__ import annotations

from typing import Any

from ._problems_common import Found, ref_problems
from ._walk import is_object, iter_subschemas

__all__ = ["openai_strict_problems"]

# Source, unless a rule says otherwise: OpenAI API docs, Structured Outputs guide, "Supported
# schemas" (https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas,
# formerly platform.openai.com/docs/...), and the function calling guide, "Strict mode";
# checked 2026-11-23. The guide says a schema outside the subset is refused with an error.
# Not flagged although outside its keyword lists: `title`, `description`, `default` and
# `discriminator`, which the Agents SDK's own strict schemas carry; `minLength`, `maxLength`
# and `patternProperties`, which the guide lists as unsupported for fine-tuned models only.

# "Some type-specific keywords are not yet supported: Composition: allOf, not,
# dependentRequired, dependentSchemas, if, then, else". `oneOf` is absent from "Supported
# types" (anyOf is the union there); the rest are in no supported list.
_OPENAI_UNSUPPORTED = {
    "allOf": "merge the entries into one model",
    "not": "drop it and check the value in the tool",
    "if": "drop the condition and check it in the tool",
    "then": "drop the condition and check it in the tool",
    "else": "drop the condition and check it in the tool",
    "dependentRequired": "drop it and check the combination in the tool",
    "dependentSchemas": "drop it and check the combination in the tool",
    "oneOf": "use a plain Union (anyOf); strict mode (toolwire's default) converts oneOf",
    "uniqueItems": "drop it and deduplicate in the tool (e.g. take a list, not a set)",
    "prefixItems": "use a list of one item type, or a model with named fields, not a tuple",
    "contains": "drop it and check the items in the tool",
    "minContains": "drop it and check the items in the tool",
    "maxContains": "drop it and check the items in the tool",
    "propertyNames": "declare fixed properties (a model) instead",
    "minProperties": "drop it; every property is required in strict mode anyway",
    "maxProperties": "drop it; every property is required in strict mode anyway",
    "unevaluatedProperties": 'drop it; "additionalProperties": false already closes the object',
    "unevaluatedItems": "drop it",
}
# "format — Predefined formats for strings. Currently supported: ..."
_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# "Objects have limitations on nesting depth and size", "Limitations on total string size",
# "Limitations on enum size".
_OPENAI_MAX_OBJECT_DEPTH = 10
_OPENAI_MAX_PROPERTIES = 5000
_OPENAI_MAX_STRING_TOTAL = 120_000
_OPENAI_MAX_ENUM_VALUES = 1000
_OPENAI_LONG_ENUM = 250
_OPENAI_MAX_LONG_ENUM_CHARS = 15_000


def openai_strict_problems(schema: dict[str, Any]) -> Found:
    """What OpenAI refuses in `schema` sent as a strict function's parameters.

    Args:
        schema: A tool's input schema.

    Yields:
        (dotted path, message) for each refusal, in schema order.
    """
    # "Root objects must not be anyOf and must be an object".
    if schema.get("type") != "object":
        yield "", 'the root must be {"type": "object"}; take the value as a named parameter'
    if "anyOf" in schema:
        yield "", "the root must not use anyOf; make the alternatives one parameter's type"
    totals = _OpenAITotals()
    for path, node, depth in iter_subschemas(schema):
        totals.add(path, node)
        if is_object(node):
            if depth > _OPENAI_MAX_OBJECT_DEPTH:
                yield (
                    path,
                    f"objects are nested {depth} levels deep here; strict mode allows "
                    f"{_OPENAI_MAX_OBJECT_DEPTH}, so flatten the models",
                )
            # "additionalProperties: false must always be set in objects".
            if node.get("additionalProperties") is not False:
                yield (
                    path,
                    'objects need "additionalProperties": false; serve the tool in strict mode '
                    "(toolwire's default: drop strict_mode=False) and use a model with fixed "
                    "fields instead of dict[str, X]",
                )
            yield from _openai_required(path, node)
        # Not in the guide: the API answers a schema without one "schema must have a 'type'
        # key" (its 400 error message, seen for untyped parameters).
        if not any(key in node for key in ("type", "anyOf", "$ref", "enum", "const")):
            yield path, "strict mode needs a 'type' here; annotate the parameter with a type"
        for keyword, fix in _OPENAI_UNSUPPORTED.items():
            if keyword in node:
                yield path, f"the {keyword!r} keyword is not supported in strict mode; {fix}"
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _OPENAI_FORMATS:
            yield (
                path,
                f"format {fmt!r} is not supported in strict mode (supported: "
                f"{', '.join(sorted(_OPENAI_FORMATS))}); remove it or use a pattern",
            )
        yield from ref_problems(schema, path, node)
    yield from totals.problems()


def _openai_required(path: str, node: dict[str, Any]) -> Found:
    # "All fields must be required" (the API's 400 says "'required' is required to be supplied
    # and to be an array including every key in properties"). The guide is silent on naming a
    # property that does not exist; the API refuses that too, as reported by its users.
    properties = node.get("properties")
    names = list(properties) if isinstance(properties, dict) else []
    required = node.get("required")
    listed = required if isinstance(required, list) else []
    missing = [str(name) for name in names if name not in listed]
    if missing:
        yield (
            path,
            f"every property must be required; missing from required: {', '.join(missing)}; "
            "serve the tool in strict mode (toolwire's default: drop strict_mode=False), "
            "which requires them all and makes optional ones nullable",
        )
    unknown = [str(name) for name in listed if name not in names]
    if unknown:
        yield (
            path,
            f"required names properties that do not exist: {', '.join(unknown)}; "
            "remove them from required",
        )


class _OpenAITotals:
    """The guide's whole-schema limits, summed while the schema is walked."""

    def __init__(self) -> None:
        self.properties = 0
        self.enum_values = 0
        self.string_chars = 0
        self.long_enums: list[tuple[str, int, int]] = []

    def add(self, path: str, node: dict[str, Any]) -> None:
        # "total string length of all property names, definition names, enum values, and
        # const values cannot exceed 120,000 characters".
        for key in ("properties", "$defs", "definitions"):
            names = node.get(key)
            if isinstance(names, dict):
                self.string_chars += sum(len(str(name)) for name in names)
                if key == "properties":
                    self.properties += len(names)
        if "const" in node:
            self.string_chars += len(str(node["const"]))
        enum = node.get("enum")
        if isinstance(enum, list):
            chars = sum(len(str(value)) for value in enum)
            self.enum_values += len(enum)
            self.string_chars += chars
            strings = all(isinstance(value, str) for value in enum)
            if strings and len(enum) > _OPENAI_LONG_ENUM:
                self.long_enums.append((path, len(enum), chars))

    def problems(self) -> Found:
        if self.properties > _OPENAI_MAX_PROPERTIES:
            yield (
                "",
                f"the schema declares {self.properties} properties; strict mode allows "
                f"{_OPENAI_MAX_PROPERTIES} in all, so split the tool",
            )
        if self.enum_values > _OPENAI_MAX_ENUM_VALUES:
            yield (
                "",
                f"the schema has {self.enum_values} enum values; strict mode allows "
                f"{_OPENAI_MAX_ENUM_VALUES} in all, so take a plain string and check it in "
                "the tool",
            )
        for path, count, chars in self.long_enums:
            if chars > _OPENAI_MAX_LONG_ENUM_CHARS:
                yield (
                    path,
                    f"this enum has {count} strings of {chars} characters in all; strict mode "
                    f"allows {_OPENAI_MAX_LONG_ENUM_CHARS} characters in an enum of more than "
                    f"{_OPENAI_LONG_ENUM} values, so take a plain string and check it in the tool",
                )
        if self.string_chars > _OPENAI_MAX_STRING_TOTAL:
            yield (
                "",
                f"property names, definition names, enum and const values add up to "
                f"{self.string_chars} characters; strict mode allows "
                f"{_OPENAI_MAX_STRING_TOTAL}, so split the tool or shorten the enums",
            )
