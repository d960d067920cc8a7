"""Questions asked of a tool's type annotations before its contract is trusted."""

from __future__ import annotations

import sys
import typing
from typing import Annotated, Any, get_args, get_origin

__all__ = ["mentions_type_variable", "strip_annotated"]


def strip_annotated(annotation: Any) -> Any:
    """The type inside `Annotated[...]`, with its metadata dropped (other annotations as given).

    Args:
        annotation: Any annotation object.

    Returns:
        The underlying type.
    """
    while get_origin(annotation) is Annotated:
        annotation = annotation.__origin__
    return annotation


def _variable_kinds() -> tuple[type, ...]:
    # typing_extensions is consulted only if something already imported it: an annotation
    # cannot hold one of its aliases otherwise, and importing it costs start-up time.
    kinds: list[type] = [
        typing.TypeVar,
        typing.ParamSpec,
        typing.ParamSpecArgs,
        typing.ParamSpecKwargs,
    ]
    for module in (typing, sys.modules.get("typing_extensions")):
        alias_class = getattr(module, "TypeAliasType", None)
        if isinstance(alias_class, type):
            kinds.append(alias_class)
    return tuple(kinds)


def mentions_type_variable(annotation: Any) -> bool:
    """Whether `annotation` holds, at any depth, something that only a caller could pin down.

    That is a `TypeVar`, a `ParamSpec` (or its `.args` / `.kwargs`), a `TypeAliasType`, or
    `Self`: for a method looked at on its own, none of them names a concrete type.

    Args:
        annotation: A resolved annotation (not a string).

    Returns:
        True when such a construct appears in the annotation or in any of its type arguments.
    """
    kinds = _variable_kinds()
    pending = [annotation]
    # Each step removes one node of a finite tree of type arguments: the loop ends.
    while pending:
        node = pending.pop()
        if node is typing.Self or isinstance(node, kinds) or isinstance(get_origin(node), kinds):
            return True
        pending.extend(get_args(node))
    return False
