"""Tool arguments on their way in: null-for-default, and naming what is wrong with them.

- A `null` sent for a parameter whose schema has a non-null default and does not accept null
  means "use the default": the key is dropped before the tool validates its arguments
  (FastMCP rejects such calls). Nullable parameters keep their null.
- `argument_problems` runs only after a call's validation failed and its details were
  redacted (the SDK's `dont_log_tool_data` default): it names each parameter that is missing,
  unexpected, or of the wrong JSON type according to the tool's input schema, without
  echoing the values sent.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema.refs import lookup_local_ref

__all__ = ["argument_problems", "call_arguments"]

_MAX_DEPTH = 8
_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def call_arguments(schema: dict[str, Any], arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments the tool validates: null-for-default dropped, {} when none were sent."""
    if not arguments:
        return {}
    if None in arguments.values():
        return _drop_null_defaults(arguments, schema)
    return arguments


def _drop_null_defaults(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return arguments
    cleaned = dict(arguments)
    for key, value in arguments.items():
        prop = properties.get(key)
        if (
            value is None
            and isinstance(prop, dict)
            and prop.get("default") is not None
            and not _accepts(None, prop, schema)
        ):
            del cleaned[key]
    return cleaned


def _resolve(prop: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """The schema `prop` stands for: its `$ref` target, or None when that is not a schema."""
    if "$ref" not in prop:
        return prop
    target = lookup_local_ref(root, prop["$ref"])
    return target if isinstance(target, dict) else None


def _accepts(value: Any, prop: Any, root: dict[str, Any], depth: int = 0) -> bool:
    """Whether `value` fits `prop` at the top level (types, enum, const, anyOf/oneOf, $ref).

    Unknown or too-deep constructs count as accepting: this only names likely culprits.
    """
    if not isinstance(prop, dict) or depth > _MAX_DEPTH:
        return True
    resolved = _resolve(prop, root)
    if resolved is None or resolved is not prop:
        return resolved is None or _accepts(value, resolved, root, depth + 1)
    if "const" in prop and prop["const"] != value:
        return False
    if isinstance(prop.get("enum"), list) and value not in prop["enum"]:
        return False
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list) and options:
        return any(_accepts(value, option, root, depth + 1) for option in options)
    typ = prop.get("type")
    if typ is None:
        return True
    return any(_is_type(value, name) for name in (typ if isinstance(typ, list) else [typ]))


def _is_type(value: Any, name: Any) -> bool:
    if name == "null":
        return value is None
    kinds = _JSON_TYPES.get(name)
    if kinds is None:
        return True
    if isinstance(value, bool) and name != "boolean":
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, kinds)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for name in ("boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return type(value).__name__


def _expected(prop: Any, root: dict[str, Any]) -> str:
    if not isinstance(prop, dict):
        return "another value"
    resolved = _resolve(prop, root) or prop
    if "enum" in resolved:
        return "one of " + ", ".join(json.dumps(v) for v in resolved["enum"])
    if "const" in resolved:
        return json.dumps(resolved["const"])
    options = resolved.get("anyOf") or resolved.get("oneOf")
    if isinstance(options, list) and options:
        return " or ".join(_expected(option, root) for option in options)
    typ = resolved.get("type")
    if isinstance(typ, list):
        return " or ".join(str(t) for t in typ)
    return str(typ) if typ else "another value"


def argument_problems(schema: dict[str, Any], arguments: Any) -> list[str]:
    """Readable problems with `arguments` against an object input schema, one per parameter."""
    if not isinstance(arguments, dict):
        return [f"arguments: expected object, got {_json_type(arguments)}"]
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    problems = []
    for name in schema.get("required") or ():
        prop = properties.get(name)
        # Strict schemas list every parameter as required; ones with a default (or nullable
        # ones, whose None default strict mode drops) may still be left out.
        optional = isinstance(prop, dict) and ("default" in prop or _accepts(None, prop, schema))
        if name not in arguments and not optional:
            problems.append(f"{name}: missing required parameter")
    for name, value in arguments.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                problems.append(f"{name}: unexpected parameter")
            continue
        if not _accepts(value, properties[name], schema):
            expected = _expected(properties[name], schema)
            problems.append(f"{name}: expected {expected}, got {_json_type(value)}")
    return problems
