"""Callable instances as tools: the SDK's rules for what may be decorated, and the adapter.

Adapted from openai-agents 0.24.0 `agents/tool.py` (MIT) so the same callables are accepted
and refused with the same messages.
"""

from __future__ import annotations

import functools
import inspect
import sys
import typing
from collections.abc import Callable
from types import FunctionType
from typing import (
    Annotated,
    Any,
    ParamSpec,
    ParamSpecArgs,
    ParamSpecKwargs,
    Self,
    TypeVar,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from ..errors import UserError
from ..schema.context_types import is_context_type
from ..schema.docstrings import DocstringStyle, generate_func_documentation


def validate_function_tool_fallback_name(name: str) -> str:
    """Return an API-safe generated tool name or require an explicit override."""
    if 1 <= len(name) <= 64 and all(
        char.isascii() and (char.isalnum() or char in {"_", "-"}) for char in name
    ):
        return name
    raise UserError(
        f"Cannot derive a function tool name from callable class {name!r}. Generated names must "
        "contain only ASCII letters, digits, underscores, or hyphens and be at most 64 "
        "characters. Pass name_override to function_tool()."
    )


def unwrap_annotated_type(annotation: Any) -> Any:
    """Return the underlying type while ignoring Annotated metadata."""
    while get_origin(annotation) is Annotated:
        args = get_args(annotation)
        if not args:
            break
        annotation = args[0]
    return annotation


def _type_alias_types() -> tuple[type, ...]:
    """The `TypeAliasType` classes an annotation may be an instance of, without importing
    typing_extensions (no annotation can be one of its aliases unless it is loaded)."""
    found: list[type] = []
    for module in (typing, sys.modules.get("typing_extensions")):
        alias_type = getattr(module, "TypeAliasType", None)
        if isinstance(alias_type, type):
            found.append(alias_type)
    return tuple(found)


def _validate_function_tool_callable_annotations(
    signature: inspect.Signature,
    type_hints: dict[str, Any],
) -> None:
    """Reject unsupported callable object annotations before tool invocation."""
    native_self = getattr(typing, "Self", Self)
    alias_types = _type_alias_types()
    generic_types = (TypeVar, ParamSpec, ParamSpecArgs, ParamSpecKwargs)

    def contains_specialized_annotation(annotation: Any) -> bool:
        origin = get_origin(annotation)
        if (
            isinstance(annotation, (*generic_types, *alias_types))
            or isinstance(origin, (*generic_types, *alias_types))
            or annotation in (Self, native_self)
        ):
            return True
        return any(contains_specialized_annotation(arg) for arg in get_args(annotation))

    contract_annotations = [
        type_hints.get(name, parameter.annotation)
        for name, parameter in signature.parameters.items()
    ]
    contract_annotations.append(type_hints.get("return", signature.return_annotation))
    if any(
        annotation is not inspect.Signature.empty and contains_specialized_annotation(annotation)
        for annotation in contract_annotations
    ):
        raise UserError(
            "Unsupported generic or aliased callable object annotations: use an explicit wrapper "
            "function with concrete parameter and return annotations."
        )

    for index, (name, parameter) in enumerate(signature.parameters.items()):
        annotation = type_hints.get(name, parameter.annotation)
        if annotation is inspect.Signature.empty:
            continue
        plain_annotation = unwrap_annotated_type(annotation)
        origin = get_origin(plain_annotation) or plain_annotation
        if not is_context_type(origin):
            continue
        if index == 0 and parameter.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            continue
        raise UserError(
            "Unsupported callable object context parameter: RunContextWrapper or ToolContext "
            "must be the first positional parameter. Use an explicit wrapper function."
        )


def normalize_function_tool_callable(
    func: Callable[..., Any],
    docstring_style: DocstringStyle | None,
    name_override: str | None,
    use_docstring_info: bool,
) -> tuple[Callable[..., Any], str | None]:
    """Adapt one plain callable instance to the existing function-tool pipeline."""
    if isinstance(func, functools.partial):
        raise UserError(
            "Unsupported callable object: function_tool does not infer functools.partial "
            "contracts. Use an explicit wrapper function."
        )
    if inspect.isroutine(func) or inspect.isclass(func):
        return func, None

    try:
        instance_vars = vars(func)
    except TypeError:
        instance_vars = {}
    missing = object()
    if (
        inspect.getattr_static(func, "__wrapped__", missing) is not missing
        or inspect.getattr_static(func, "__signature__", missing) is not missing
        or "__annotations__" in instance_vars
        or "__annotate__" in instance_vars
    ):
        raise UserError(
            "Unsupported callable wrapper: function_tool only infers plain callable instances. "
            "Use an explicit wrapper function."
        )

    call_owner = next(
        (owner for owner in type(func).__mro__ if "__call__" in owner.__dict__),
        None,
    )
    if call_owner is None:
        raise UserError("Unsupported callable object: no inspectable __call__ method was found.")
    call_descriptor = call_owner.__dict__["__call__"]
    if getattr(call_owner, "__type_params__", ()) or getattr(call_owner, "__parameters__", ()):
        raise UserError(
            "Unsupported generic callable object: use an explicit wrapper function with concrete "
            "parameter and return annotations."
        )
    if (
        not isinstance(call_descriptor, FunctionType)
        or hasattr(call_descriptor, "__wrapped__")
        or hasattr(call_descriptor, "__signature__")
    ):
        raise UserError(
            "Unsupported callable object: function_tool supports instances with a plain "
            "__call__ method. Use an explicit wrapper function for partials, decorated methods, "
            "built-in callables, or custom descriptors."
        )

    call_method = cast(Callable[..., Any], call_descriptor.__get__(func, type(func)))
    signature = inspect.signature(call_method)
    globalns = dict(getattr(call_method, "__globals__", {}))
    localns = dict(vars(call_owner))
    localns[call_owner.__name__] = call_owner
    try:
        type_hints = get_type_hints(
            call_method,
            globalns=globalns,
            localns=localns,
            include_extras=True,
        )
    except (NameError, TypeError) as error:
        raise UserError(
            "Unsupported callable object annotations: use an explicit wrapper function with "
            "annotations resolvable from its module."
        ) from error

    _validate_function_tool_callable_annotations(signature, type_hints)

    if inspect.iscoroutinefunction(call_method):

        async def async_adapter(*args: Any, **kwargs: Any) -> Any:
            return await call_method(*args, **kwargs)

        adapter: Callable[..., Any] = async_adapter
    else:

        def sync_adapter(*args: Any, **kwargs: Any) -> Any:
            return call_method(*args, **kwargs)

        adapter = sync_adapter

    adapter_metadata = cast(Any, adapter)
    fallback_name = type(func).__name__
    adapter_metadata.__name__ = (
        fallback_name if name_override else validate_function_tool_fallback_name(fallback_name)
    )
    adapter_metadata.__annotations__ = {
        name: annotation
        for name, annotation in type_hints.items()
        if name == "return" or name in signature.parameters
    }
    adapter_metadata.__signature__ = signature
    if not use_docstring_info:
        adapter_metadata.__doc__ = None
        class_description = None
    else:
        class_doc = inspect.getdoc(type(func))
        call_doc = inspect.cleandoc(call_descriptor.__doc__) if call_descriptor.__doc__ else None
        adapter_metadata.__doc__ = call_doc or class_doc
        class_description = (
            generate_func_documentation(type(func), docstring_style).description
            if class_doc and call_doc
            else None
        )
    return adapter, class_description
