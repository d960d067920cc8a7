"""What `function_tool` may decorate, and how an object with `__call__` becomes a function.

An instance whose class defines a plain `__call__` is taken, as by the Agents SDK, and becomes
a forwarding function with the resolved signature, docstring and name; any other callable
object is refused with the SDK's messages.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from ..errors import UserError
from ..schema.context_types import names_context
from ..schema.docstrings import DocstringStyle, generate_func_documentation

__all__ = ["tool_target"]

_WRAPPER_ADVICE = "Use an explicit wrapper function."
_CONCRETE_ADVICE = (
    "use an explicit wrapper function with concrete parameter and return annotations."
)

_NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def tool_target(
    func: Callable[..., Any],
    *,
    docstring_style: DocstringStyle | None,
    name_override: str | None,
    use_docstring_info: bool,
) -> tuple[Callable[..., Any], str | None]:
    """The callable a tool runs (for an instance with `__call__`, a forwarding function), and
    the class's description when `__call__` is documented too."""
    if isinstance(func, functools.partial):
        raise UserError(
            "Unsupported callable object: function_tool does not infer functools.partial "
            f"contracts. {_WRAPPER_ADVICE}"
        )
    if inspect.isroutine(func) or inspect.isclass(func):
        return func, None
    cls = type(func)
    _refuse_wrappers(func)
    owner, method = _plain_call_method(cls)
    hints = _resolved_hints(method, owner)
    bound = method.__get__(func, cls)
    signature = inspect.signature(bound)
    _check_contract(signature, hints)

    # A class name is only a guess at a tool name: it must be a valid one unless overridden.
    if not (name_override or _NAME_PATTERN.fullmatch(cls.__name__)):
        raise UserError(
            f"Cannot derive a function tool name from callable class {cls.__name__!r}. Generated "
            "names must contain only ASCII letters, digits, underscores, or hyphens and be at "
            "most 64 characters. Pass name_override to function_tool()."
        )
    forward = _forwarder(bound)
    forward.__name__ = cls.__name__
    forward.__signature__ = signature
    forward.__annotations__ = {
        key: value for key, value in hints.items() if key == "return" or key in signature.parameters
    }
    description = None
    if use_docstring_info:
        method_doc = inspect.cleandoc(method.__doc__) if method.__doc__ else None
        class_doc = inspect.getdoc(cls)
        forward.__doc__ = method_doc or class_doc
        if method_doc and class_doc:
            description = generate_func_documentation(cls, docstring_style).description
    else:
        forward.__doc__ = None
    return forward, description


def _refuse_wrappers(instance: Any) -> None:
    """An object that advertises another callable's contract is not read as itself."""
    absent = object()
    borrowed = any(
        inspect.getattr_static(instance, marker, absent) is not absent
        for marker in ("__wrapped__", "__signature__")
    )
    own = getattr(instance, "__dict__", None) or {}
    if borrowed or "__annotations__" in own or "__annotate__" in own:
        raise UserError(
            "Unsupported callable wrapper: function_tool only infers plain callable instances. "
            + _WRAPPER_ADVICE
        )


def _plain_call_method(cls: type) -> tuple[type, types.FunctionType]:
    """The class that defines `__call__` for `cls`, and that definition as a plain function."""
    owner = next((klass for klass in cls.__mro__ if "__call__" in vars(klass)), None)
    if owner is None:
        raise UserError("Unsupported callable object: no inspectable __call__ method was found.")
    if getattr(owner, "__type_params__", ()) or getattr(owner, "__parameters__", ()):
        raise UserError("Unsupported generic callable object: " + _CONCRETE_ADVICE)
    method = vars(owner)["__call__"]
    if (
        type(method) is not types.FunctionType
        or hasattr(method, "__wrapped__")
        or hasattr(method, "__signature__")
    ):
        raise UserError(
            "Unsupported callable object: function_tool supports instances with a plain __call__ "
            "method. Use an explicit wrapper function for partials, decorated methods, built-in "
            "callables, or custom descriptors."
        )
    return owner, method


def _resolved_hints(method: types.FunctionType, owner: type) -> dict[str, Any]:
    """The method's annotations resolved as inside the class body (the class's name too)."""
    class_scope = {**vars(owner), owner.__name__: owner}
    try:
        return typing.get_type_hints(
            method, globalns=method.__globals__, localns=class_scope, include_extras=True
        )
    except (NameError, TypeError) as error:
        message = "Unsupported callable object annotations: use an explicit wrapper function"
        raise UserError(f"{message} with annotations resolvable from its module.") from error


def _check_contract(signature: inspect.Signature, hints: dict[str, Any]) -> None:
    """Refuse type variables anywhere in the contract, then a misplaced context parameter."""
    annotations = [
        hints.get(name, parameter.annotation) for name, parameter in signature.parameters.items()
    ]
    declared = [*annotations, hints.get("return", signature.return_annotation)]
    if any(a is not inspect.Signature.empty and _mentions_type_variable(a) for a in declared):
        raise UserError(
            "Unsupported generic or aliased callable object annotations: " + _CONCRETE_ADVICE
        )
    for position, (parameter, annotation) in enumerate(
        zip(signature.parameters.values(), annotations, strict=True)
    ):
        if not names_context(annotation):
            continue
        if position != 0 or parameter.kind not in _POSITIONAL:
            raise UserError(
                "Unsupported callable object context parameter: RunContextWrapper or ToolContext "
                "must be the first positional parameter. " + _WRAPPER_ADVICE
            )


def _forwarder(bound: Callable[..., Any]) -> Any:
    """A fresh function calling `bound`, of the same kind (async or not), ready for metadata."""
    if inspect.iscoroutinefunction(bound):

        async def forward_awaited(*args: Any, **kwargs: Any) -> Any:
            return await bound(*args, **kwargs)

        return forward_awaited

    def forward(*args: Any, **kwargs: Any) -> Any:
        return bound(*args, **kwargs)

    return forward


def _mentions_type_variable(annotation: Any) -> bool:
    """Whether `annotation` holds, at any depth, a type variable, `ParamSpec`, alias or `Self`."""
    kinds: list[type] = [
        typing.TypeVar,
        typing.ParamSpec,
        typing.ParamSpecArgs,
        typing.ParamSpecKwargs,
    ]
    # typing_extensions only if imported already: else no annotation holds its aliases.
    for module in (typing, sys.modules.get("typing_extensions")):
        alias_class = getattr(module, "TypeAliasType", None)
        if isinstance(alias_class, type):
            kinds.append(alias_class)
    variables = tuple(kinds)
    pending = [annotation]
    while pending:
        node = pending.pop()
        if node is typing.Self or isinstance(node, variables):
            return True
        if isinstance(typing.get_origin(node), variables):
            return True
        pending.extend(typing.get_args(node))
    return False
