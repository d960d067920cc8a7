"""The oracle of the strict-conversion differential tests: both implementations, same input.

Each side converts its own deep copy; the outcome is the output bytes and the input afterwards
(key order included), or the exception class and message.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from agents.strict_schema import ensure_strict_json_schema as sdk_strict

from toolwire.schema.strict import ensure_strict_json_schema

Outcome = tuple[str, str, str]


def _outcome(convert: Any, schema: Any, **options: Any) -> Outcome:
    work = copy.deepcopy(schema)
    try:
        result = convert(work, **options)
    except Exception as error:  # whatever each side raises is the thing compared
        return ("raised", type(error).__name__, str(error))
    return ("ok", json.dumps(result), json.dumps(work))


def same_as_sdk(schema: Any, *, reject_open: bool | None = None) -> Outcome:
    """Assert both implementations agree (in both open-object modes unless one is given)."""
    modes = [False, True] if reject_open is None else [reject_open]
    first: Outcome | None = None
    for mode in modes:
        expected = _outcome(sdk_strict, schema, _reject_open_objects=mode)
        got = _outcome(ensure_strict_json_schema, schema, _reject_open_objects=mode)
        assert got == expected, f"reject_open={mode}: {json.dumps(schema)[:1500]}"
        first = first or got
    assert first is not None
    return first


OBJ: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "integer"}}}
STR: dict[str, Any] = {"type": "string"}


def with_properties(properties: dict[str, Any], **defs: Any) -> dict[str, Any]:
    """An object schema with these properties, and these `$defs` when any are given."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if defs:
        schema["$defs"] = defs
    return schema
