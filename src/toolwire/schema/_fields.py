"""From parameters to a pydantic model: one field per parameter, described as the Agents SDK does.

A description comes from the docstring, a string in `Annotated[...]` metadata or an author's
`Field(description=...)`; which one wins follows the SDK, since it shows in the schema's bytes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from ..errors import UserError
from .context_types import unwrap_annotated

_MISSING = inspect.Parameter.empty
_VAR_POSITIONAL = inspect.Parameter.VAR_POSITIONAL
_VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD


def build_model(
    model_name: str,
    params: tuple[inspect.Parameter, ...],
    notes: dict[str, str],
    *,
    strict: bool,
    func: Callable[..., Any],
) -> type[BaseModel]:
    """A tool's arguments model, one field per parameter (context excluded); `UserError` for
    a fixed-length tuple `*args` or `**kwargs` in a strict tool (`func` names it)."""
    fields: dict[str, Any] = {}
    config: ConfigDict | None = None
    for param in params:
        note = notes.get(param.name)
        if param.kind is _VAR_POSITIONAL:
            item = _positional_item(param, func)
            fields[param.name] = (list[item], _collection_field(param, note, list))  # type: ignore[valid-type]
        elif param.kind is _VAR_KEYWORD:
            if strict:
                raise UserError(
                    f"Variadic keyword parameter `**{param.name}` in function {func.__name__}"
                    " cannot use a strict schema. Set strict_mode=False on the function tool (or"
                    " strict_json_schema=False on function_schema) and pass keyword arguments in"
                    f" the nested `{param.name}` object, or use explicit parameters for a strict"
                    " tool."
                )
            # a stray top-level key is an error, not an argument silently lost
            config = ConfigDict(extra="forbid")
            value = _item_type(param.annotation)
            fields[param.name] = (dict[str, value], _collection_field(param, note, dict))  # type: ignore[valid-type]
        else:
            fields[param.name] = _plain_field(param, note)
    return create_model(model_name, __base__=BaseModel, __config__=config, **fields)


def _inline_note(metadata: tuple[Any, ...]) -> str | None:
    return next((item for item in metadata if isinstance(item, str)), None)


def _collection_field(param: inspect.Parameter, note: str | None, factory: type) -> FieldInfo:
    _, metadata = unwrap_annotated(param.annotation)
    description = note if note is not None else _inline_note(metadata)
    info: FieldInfo = Field(default_factory=factory, description=description)
    return info


def _positional_item(param: inspect.Parameter, func: Callable[..., Any]) -> Any:
    """The type of each `*args` item."""
    bare, _ = unwrap_annotated(param.annotation)
    if get_origin(bare) is tuple:
        arguments = getattr(bare, "__args__", None)
        if arguments is None:  # bare `typing.Tuple`: the SDK accepts anything per item
            return Any
        if not (len(arguments) == 2 and arguments[1] is Ellipsis):
            raise UserError(
                f"Variadic parameter `*{param.name}` in function {func.__name__} is annotated with"
                f" the fixed-length tuple `{bare}`. A variadic annotation describes each"
                " positional argument, so use tuple[T, ...] or list[T] instead."
            )
    return _item_type(param.annotation)


def _item_type(annotation: Any) -> Any:
    """The type of one `*args` item or `**kwargs` value: the metadata's constraints travel,
    its descriptions and titles (which describe the parameter) do not."""
    bare, metadata = unwrap_annotated(annotation)
    constraints: list[Any] = []
    for item in metadata:
        if isinstance(item, FieldInfo):
            constraints.extend(item.metadata)
        elif not isinstance(item, str):
            constraints.append(item)
    return Annotated[(bare, *constraints)] if constraints else bare


def _plain_field(param: inspect.Parameter, note: str | None) -> tuple[Any, FieldInfo]:
    annotation, default = param.annotation, param.default
    _, metadata = unwrap_annotated(annotation)
    authored = default if isinstance(default, FieldInfo) else None
    value = ... if default is _MISSING else default

    if not metadata:
        if authored is None:
            return annotation, Field(value, description=note)
        return annotation, _with_description(authored, note) if note else authored

    if note is None:
        note = _inline_note(metadata)
    if authored is None:
        # pydantic merges this after any Field in the metadata, so a note wins over it.
        return annotation, Field(value, description=note) if note else Field(value)
    if not note:
        return annotation, authored
    if any(isinstance(item, FieldInfo) for item in metadata):
        # Slot the note between the metadata's Field and the default Field: pydantic merges
        # them in that order, so a description set on the default still has the last word.
        return Annotated[annotation, Field(description=note)], authored
    return annotation, _with_description(authored, note)


def _with_description(info: FieldInfo, description: str) -> FieldInfo:
    return FieldInfo.merge_field_infos(info, description=description)
