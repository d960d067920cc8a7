"""A tool function's contract: name, description, arguments model and JSON schema.

`function_schema` and `FuncSchema` give the Agents SDK's results byte for byte; a run-context
first parameter is set apart. `fast_function_schema` writes the same JSON schema for simple
signatures without pydantic, so that decorating one loads no pydantic.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin, get_type_hints

from ..errors import ModelBehaviorError, UserError
from .context_types import holds_context, names_context
from .docstrings import (
    DocstringStyle,
    FuncDocumentation,
    generate_func_documentation,
    tool_text,
)
from .strict import ensure_strict_json_schema

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "FuncSchema",
    "function_schema",
    "generate_func_documentation",
]

_EMPTY = inspect.Parameter.empty
_BY_POSITION = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
# Parameters a `**kwargs` key could also reach by name (positional-only ones cannot be).
_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass
class FuncSchema:
    """What a function looks like as a tool, and how to call it with validated arguments.

    Attributes:
        name: The tool's name.
        description: The tool's description, if any.
        params_pydantic_model: The model that validates the arguments.
        params_json_schema: The arguments' JSON schema (strict when `strict_json_schema`).
        signature: The function's signature, context parameter included.
        takes_context: Whether the first parameter receives the run context.
        strict_json_schema: Whether `params_json_schema` was made strict.
        return_annotation: The function's resolved return annotation.
    """

    name: str
    description: str | None
    params_pydantic_model: type[BaseModel]
    params_json_schema: dict[str, Any]
    signature: inspect.Signature
    takes_context: bool = False
    strict_json_schema: bool = True
    return_annotation: Any = inspect.Signature.empty

    def to_call_args(self, data: BaseModel) -> tuple[list[Any], dict[str, Any]]:
        """The positional and keyword arguments for calling the function with `data`.

        Args:
            data: An instance of `params_pydantic_model`.

        Returns:
            `(args, kwargs)`, without the context argument.

        Raises:
            ModelBehaviorError: A `**kwargs` object repeats a named parameter.
        """
        values = vars(data)
        params = list(self.signature.parameters.values())
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param in params[1:] if self.takes_context else params:
            value = values[param.name]
            if param.kind in _BY_POSITION:
                args.append(value)
            elif param.kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(value)
            elif param.kind is inspect.Parameter.KEYWORD_ONLY:
                kwargs[param.name] = value
            else:
                _refuse_repeats(params, param.name, value, self.name)
                kwargs.update(value)
        return args, kwargs


def _refuse_repeats(
    params: list[inspect.Parameter], holder: str, extra: dict[str, Any], tool_name: str
) -> None:
    repeated = sorted(p.name for p in params if p.kind in _BY_NAME and p.name in extra)
    if not repeated:
        return
    listed = ", ".join(f"'{name}'" for name in repeated)
    verb = "is" if len(repeated) == 1 else "are"
    raise ModelBehaviorError(
        f"Invalid arguments for tool {tool_name}: {listed} {verb} both a named parameter and a"
        f" key in '{holder}'. Pass each argument once, as a named parameter."
    )


def function_schema(
    func: Callable[..., Any],
    docstring_style: DocstringStyle | None = None,
    name_override: str | None = None,
    description_override: str | None = None,
    use_docstring_info: bool = True,
    strict_json_schema: bool = True,
    *,
    lossless_docstring: bool = False,
) -> FuncSchema:
    """Describe `func` as a tool.

    Args:
        func: The function.
        docstring_style: The docstring convention; guessed when None.
        name_override: The tool's name instead of the function's.
        description_override: The tool's description instead of the docstring's.
        use_docstring_info: Read the description and parameter notes from the docstring.
        strict_json_schema: Make the JSON schema strict (`**kwargs` cannot be).
        lossless_docstring: toolwire only: describe with the whole docstring.

    Returns:
        The tool's `FuncSchema`.

    Raises:
        UserError: A misplaced context, strict `**kwargs` or fixed-length tuple `*args`.
    """
    from ._fields import build_model  # loads pydantic

    text = tool_text(
        func,
        docstring_style,
        use_docstring_info,
        lossless_docstring,
        name_override,
        description_override,
    )
    shape = read_signature(func)
    model = build_model(
        f"{text.name}_args",
        shape.params,
        text.param_descriptions or {},
        strict=strict_json_schema,
        func=func,
    )
    json_schema = model.model_json_schema()
    if strict_json_schema:
        json_schema = ensure_strict_json_schema(json_schema)
    return FuncSchema(
        name=text.name,
        description=text.description,
        params_pydantic_model=model,
        params_json_schema=json_schema,
        signature=shape.signature,
        takes_context=shape.takes_context,
        strict_json_schema=strict_json_schema,
        return_annotation=shape.return_annotation,
    )


@dataclass(frozen=True)
class ToolSignature:
    """A function's signature, context split off, annotations resolved (`Any` when missing)."""

    signature: inspect.Signature
    takes_context: bool
    params: tuple[inspect.Parameter, ...]
    return_annotation: Any


def read_signature(func: Callable[..., Any]) -> ToolSignature:
    """Resolve `func`'s annotations; `UserError` for a run context after the first parameter."""
    hints = get_type_hints(func, include_extras=True)
    signature = inspect.signature(func)
    listed = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()
    ]
    takes_context = bool(listed) and names_context(listed[0].annotation)
    for param in listed[1:]:
        if names_context(param.annotation):
            raise UserError(
                "RunContextWrapper/ToolContext param found at non-first position in function"
                f" {func.__name__} (parameter `{param.name}`; a context must be the first"
                " parameter)"
            )
    for param in listed[1 if takes_context else 0 :]:
        if holds_context(param.annotation):
            raise UserError(
                f"Parameter `{param.name}` of function {func.__name__} is typed with a run"
                f" context class ({_shown(param.annotation)}) but does not receive the run"
                " context: only a first parameter annotated with RunContextWrapper or"
                " ToolContext itself (parametrised or in Annotated) does. Any other form would"
                " be filled in from the call's arguments, letting the caller forge a context."
            )
    params = tuple(
        p.replace(annotation=Any) if p.annotation is _EMPTY else p
        for p in listed[1 if takes_context else 0 :]
    )
    return ToolSignature(
        signature, takes_context, params, hints.get("return", signature.return_annotation)
    )


def _shown(annotation: Any) -> str:
    """An annotation as an author would read it: a class by its name, a generic by its repr."""
    if isinstance(annotation, type) and get_origin(annotation) is None:
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_UNIONS = (typing.Union, types.UnionType)
_PLAIN_KINDS = (*_BY_POSITION, inspect.Parameter.KEYWORD_ONLY)
# BaseModel's attributes besides `model_*`, which pydantic refuses as field names (checked
# against pydantic by tests/tools/test_fast_schema.py).
RESERVED_FIELD_NAMES = frozenset(
    {
        *("construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj"),
        *("parse_raw", "schema", "schema_json", "update_forward_refs", "validate"),
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
    """pydantic's JSON schema of str, int, float, bool, Any, list[...], Optional[...] or a
    Literal of strings or of ints (keys in pydantic's order); None for anything else."""
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
    if origin in _UNIONS and len(args) == 2 and args[1] is type(None):
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
    """What `function_schema` would give, without a model; None for a signature not simple
    enough (`function_schema` then raises any error)."""
    try:
        shape = read_signature(func)
    except Exception:
        return None
    fields: list[tuple[str, dict[str, Any], Any]] = []
    for param in shape.params:
        name = param.name
        if (
            param.kind not in _PLAIN_KINDS
            or name.startswith(("_", "model_"))  # `model_`: pydantic's protected namespace
            or name in RESERVED_FIELD_NAMES
        ):
            return None
        schema = simple_type_schema(param.annotation)
        default = param.default
        # a default pydantic writes into the schema unchanged
        plain = default is _EMPTY or default is None or type(default) in (str, bool, int)
        if schema is None or not (plain or (type(default) is float and math.isfinite(default))):
            return None
        fields.append((name, schema, param.default))

    text = tool_text(
        func,
        docstring_style,
        use_docstring_info,
        lossless_docstring,
        name_override,
        description_override,
    )
    notes = text.param_descriptions or {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, schema, default in fields:
        prop = dict(schema)
        if default is _EMPTY:
            required.append(name)
        else:
            prop["default"] = default
        description = notes.get(name)
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
        text.name, text.description, json_schema, shape.takes_context, shape.return_annotation
    )
