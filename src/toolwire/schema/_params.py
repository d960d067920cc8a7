"""A tool function's parameters as the schema sees them: resolved types, context set apart.

Type hints are resolved once here (string annotations included), so the model builder and
the caller of the function both work from the same facts. A parameter annotated with a run
context is not part of the model: only the first parameter may be one, and it is then passed
by the invoker rather than by the model.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_origin, get_type_hints

from ..errors import UserError
from .context_types import is_context_type

_MISSING = inspect.Parameter.empty


@dataclass(frozen=True)
class Param:
    """One model-facing parameter.

    Attributes:
        name: The parameter's name, which is also its field and property name.
        kind: Positional-only, keyword-only, `*args`, ...
        annotation: The resolved annotation (Annotated kept); `Any` when there is none.
        default: The default value (possibly a pydantic `FieldInfo`), or
            `inspect.Parameter.empty` when the parameter is required.
    """

    name: str
    kind: enum.IntEnum  # one of the `inspect.Parameter` kinds
    annotation: Any
    default: Any


@dataclass(frozen=True)
class ToolSignature:
    """Everything the schema needs to know about a function's parameters.

    Attributes:
        signature: `inspect.signature` of the function, context parameter included.
        takes_context: Whether the first parameter receives the run context.
        params: The parameters the model describes, in signature order.
        return_annotation: The resolved return annotation (`inspect.Signature.empty` if none).
    """

    signature: inspect.Signature
    takes_context: bool
    params: tuple[Param, ...]
    return_annotation: Any


def unwrap_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`(type, metadata)` of `Annotated[type, *metadata]`; `(annotation, ())` otherwise.

    Python flattens nested `Annotated`, so one level is all there is.
    """
    if get_origin(annotation) is Annotated:
        return annotation.__origin__, tuple(annotation.__metadata__)
    return annotation, ()


def _names_context(annotation: Any) -> bool:
    if annotation is _MISSING:
        return False
    bare, _ = unwrap_annotated(annotation)
    return is_context_type(get_origin(bare) or bare)


def read_signature(func: Callable[..., Any]) -> ToolSignature:
    """Resolve `func`'s annotations and sort its parameters into context and model fields.

    Args:
        func: The tool function.

    Returns:
        Its parameters, resolved.

    Raises:
        UserError: A parameter other than the first is annotated with a run context.
        NameError: An annotation names something that does not exist.
    """
    hints = get_type_hints(func, include_extras=True)
    signature = inspect.signature(func)
    listed = list(signature.parameters.values())
    annotations = [hints.get(p.name, p.annotation) for p in listed]

    takes_context = bool(listed) and _names_context(annotations[0])
    start = 1 if takes_context else 0
    for param, annotation in zip(listed[1:], annotations[1:], strict=True):
        if _names_context(annotation):
            # The SDK's sentence, then which parameter it was: the SDK names only the function.
            raise UserError(
                "RunContextWrapper/ToolContext param found at non-first position in function"
                f" {func.__name__} (parameter `{param.name}`; a context must be the first"
                " parameter)"
            )

    params = tuple(
        Param(
            name=p.name,
            kind=p.kind,
            annotation=Any if annotation is _MISSING else annotation,
            default=p.default,
        )
        for p, annotation in zip(listed[start:], annotations[start:], strict=True)
    )
    return ToolSignature(
        signature=signature,
        takes_context=takes_context,
        params=params,
        return_annotation=hints.get("return", signature.return_annotation),
    )
