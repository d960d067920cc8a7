"""A fast path for decorating simple functions: the JSON schema without building a model.

`function_schema` builds a pydantic model and asks it for its JSON schema; for most tools
(parameters of type str, int, float, bool, Any, list[...], Optional[...], Literal[...] with
plain defaults) that schema is predictable, and building the model is most of the cost of
decorating. Here such signatures get their schema written directly, byte for byte what
pydantic emits (tests/tools/test_fast_schema.py checks it against `function_schema`), and the
real `FuncSchema`, model included, is built on the tool's first call. Anything else returns
None and takes the ordinary path, so every error is still raised by `function_schema` itself.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin, get_type_hints

from ..schema.context_types import is_context_type
from ..schema.docstrings import DocstringStyle, tool_text
from ..schema.strict import ensure_strict_json_schema

_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NONE_TYPE = type(None)
_UNIONS = (typing.Union, types.UnionType)
_EMPTY = inspect.Parameter.empty
_PLAIN_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)
# BaseModel's public attributes besides `model_*` (pydantic refuses or warns about fields with
# these names): such signatures take the ordinary path. Written out rather than read from
# `dir(BaseModel)` so decorating never imports pydantic; tests/tools/test_fast_schema.py
# checks the list against the installed pydantic.
RESERVED_FIELD_NAMES = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)


@dataclass
class FastSchema:
    """What decorating needs from `FuncSchema`; the rest comes from `function_schema` later."""

    name: str
    description: str | None
    params_json_schema: dict[str, Any]
    takes_context: bool
    return_annotation: Any


def simple_type_schema(annotation: Any) -> dict[str, Any] | None:
    """pydantic's JSON schema of one annotation (keys sorted as pydantic sorts them)."""
    if annotation is Any:
        return {}
    primitive = _PRIMITIVES.get(annotation)
    if primitive is not None:
        return {"type": primitive}
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is list and len(args) == 1:
        items = simple_type_schema(args[0])
        return None if items is None else {"items": items, "type": "array"}
    if origin in _UNIONS and len(args) == 2 and args[1] is _NONE_TYPE:
        inner = simple_type_schema(args[0])
        if inner is None or "anyOf" in inner or not inner:
            return None
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is Literal and len(args) >= 2:
        if all(type(arg) is str for arg in args):
            return {"enum": list(args), "type": "string"}
        if all(type(arg) is int for arg in args):
            return {"enum": list(args), "type": "integer"}
    return None


def _plain_default(value: Any) -> bool:
    """Defaults pydantic writes into the schema unchanged."""
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return True
    return kind is float and math.isfinite(value)


def fast_function_schema(
    func: Callable[..., Any],
    *,
    docstring_style: DocstringStyle | None,
    name_override: str | None,
    description_override: str | None,
    use_docstring_info: bool,
    strict_json_schema: bool,
    lossless_docstring: bool,
) -> FastSchema | None:
    """The schema `function_schema` would produce, or None when this path does not apply."""
    try:
        hints = get_type_hints(func, include_extras=True)
        signature = inspect.signature(func)
    except Exception:  # function_schema raises the same error, in its own words
        return None
    params = list(signature.parameters.values())
    takes_context = False
    if params:
        first = hints.get(params[0].name, params[0].annotation)
        if first is not _EMPTY and is_context_type(get_origin(first) or first):
            takes_context = True
            params = params[1:]
    fields: list[tuple[str, dict[str, Any], Any]] = []
    for param in params:
        name = param.name
        if param.kind not in _PLAIN_KINDS or name.startswith("_"):
            return None
        if name in RESERVED_FIELD_NAMES:
            return None
        if name.startswith("model_"):  # pydantic's protected namespace: it may warn
            return None
        annotation = hints.get(name, param.annotation)
        schema = simple_type_schema(Any if annotation is _EMPTY else annotation)
        if schema is None:
            return None
        default = param.default
        if default is not _EMPTY and not _plain_default(default):
            return None
        fields.append((name, schema, default))

    text = tool_text(
        func,
        docstring_style,
        use_docstring_info,
        lossless_docstring,
        name_override,
        description_override,
    )
    descriptions = text.param_notes

    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, schema, default in fields:
        prop = dict(schema)
        if default is _EMPTY:
            required.append(name)
        else:
            prop["default"] = default
        description = descriptions.get(name)
        if description is not None:
            prop["description"] = description
        prop["title"] = name.title().replace("_", " ").strip()
        properties[name] = {key: prop[key] for key in sorted(prop)}
    json_schema: dict[str, Any] = {"properties": properties}
    if required:
        json_schema["required"] = required
    json_schema["title"] = f"{text.name}_args"
    json_schema["type"] = "object"
    if strict_json_schema:
        json_schema = ensure_strict_json_schema(json_schema)
    return FastSchema(
        name=text.name,
        description=text.description,
        params_json_schema=json_schema,
        takes_context=takes_context,
        return_annotation=hints.get("return", signature.return_annotation),
    )
