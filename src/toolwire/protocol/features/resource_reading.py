"""A resource function: checked against its URI template once, then called for each read.

At decoration every template variable must be a parameter (or land in `**kwargs`) and every
parameter without a default a template variable; positional-only parameters are refused, and a
mismatch is a `ValueError` naming the template, the function and the parameter. Values arrive
as strings and are converted to the annotated types as tool arguments are, a value that does not
convert being refused with the parameter named. A first `ToolContext` parameter receives the
read's context; sync functions run in a worker thread under the server's bound.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, get_origin

from ...schema.context_types import is_context_type
from ...tools.threads import run_sync_within
from .resource_contents import contents_of

if TYPE_CHECKING:
    import anyio
    from pydantic import BaseModel

    from ...tools.threads import SyncBudget
    from .uri_template import UriTemplate

__all__ = ["FunctionReader", "InvalidResourceParams"]

_PLAIN = (str, inspect.Parameter.empty, Any, "str")


class InvalidResourceParams(ValueError):
    """A template's values do not convert to its function's parameter types (the message
    names each parameter and why; it is what the client is told)."""


class FunctionReader:
    """Reads a resource by calling the author's function.

    Args:
        func: The function (sync or async).
        template: The URI template it serves (a fixed URI is a template without variables).
        mime_type: The declared MIME type, if any.

    Raises:
        ValueError: The function's parameters do not fit the template.
    """

    def __init__(self, func: Callable[..., Any], template: UriTemplate, mime_type: str | None):
        if not callable(func):
            raise TypeError(f"a resource needs a function, not {type(func).__name__}")
        self.func = func
        self.template = template
        self.mime_type = mime_type
        self._signature, self.takes_context = _signature_of(func, template)
        self._is_async = inspect.iscoroutinefunction(inspect.unwrap(func))
        self._model: type[BaseModel] | None = None
        self._typed = _check_fit(self._signature, template, _label(func))

    async def read(
        self,
        uri: str,
        values: Mapping[str, str],
        limiter: SyncBudget | anyio.CapacityLimiter | None,
        context: Any = None,
    ) -> list[dict[str, Any]]:
        """Call the function with `values` (after `context`, its `ToolContext`, when it
        takes one) and return the contents for `uri`.

        Raises:
            InvalidResourceParams: A value does not convert to its parameter's type.
            Exception: Whatever the function raises.
        """
        arguments: dict[str, Any] = dict(values)
        if self._typed:
            arguments = self._convert(arguments)
        else:
            self._check_given(arguments)
        leading = (context,) if self.takes_context else ()
        if self._is_async:
            output = await self.func(*leading, **arguments)
        else:
            output = await run_sync_within(limiter, self.func, leading, arguments)
            if inspect.isawaitable(output):  # a sync wrapper around a coroutine function
                output = await output
        return contents_of(uri, output, self.mime_type)

    def _check_given(self, arguments: dict[str, Any]) -> None:
        # Only a query variable can be absent: path variables always match something.
        missing = [
            name
            for name in self.template.query
            if name not in arguments
            and (parameter := self._signature.parameters.get(name)) is not None
            and parameter.default is inspect.Parameter.empty
        ]
        if missing:
            problems = "; ".join(f"{name}: Field required" for name in missing)
            raise InvalidResourceParams(
                f"Invalid parameters for resource template '{self.template.text}': {problems}"
            )

    def _convert(self, arguments: dict[str, Any]) -> dict[str, Any]:
        from pydantic import ValidationError

        model = self._model or self._build_model()
        try:
            validated = model.model_validate(arguments)
        except ValidationError as invalid:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in item['loc']) or 'parameters'}: {item['msg']}"
                for item in invalid.errors(
                    include_url=False, include_input=False, include_context=False
                )
            )
            raise InvalidResourceParams(
                f"Invalid parameters for resource template '{self.template.text}': {problems}"
            ) from None
        converted = {name: getattr(validated, name) for name in type(validated).model_fields}
        converted.update(validated.model_extra or {})  # values for `**kwargs`
        return converted

    def _build_model(self) -> type[BaseModel]:
        from pydantic import ConfigDict, create_model

        fields: dict[str, Any] = {}
        for parameter in self._signature.parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            annotation = (
                Any if parameter.annotation is inspect.Parameter.empty else parameter.annotation
            )
            default = ... if parameter.default is inspect.Parameter.empty else parameter.default
            fields[parameter.name] = (annotation, default)
        self._model = create_model(
            f"ResourceParams_{_label(self.func)}",
            __config__=ConfigDict(extra="allow", arbitrary_types_allowed=True),
            **fields,
        )
        assert self._model is not None
        return self._model


def _label(func: Callable[..., Any]) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


def _signature_of(
    func: Callable[..., Any], template: UriTemplate
) -> tuple[inspect.Signature, bool]:
    """The parameters the URI fills (a leading `ToolContext` left out), and whether the
    function takes such a context."""
    try:
        signature = inspect.signature(func, eval_str=True)
    except (NameError, TypeError, SyntaxError) as error:
        raise ValueError(
            f"resource {template.text!r}: cannot read the signature of {_label(func)}(): {error}"
        ) from error
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].kind is not inspect.Parameter.VAR_KEYWORD:
        first = parameters[0].annotation
        if first is not inspect.Parameter.empty and is_context_type(get_origin(first) or first):
            return signature.replace(parameters=parameters[1:]), True
    return signature, False


def _check_fit(signature: inspect.Signature, template: UriTemplate, label: str) -> bool:
    """Refuse a function whose parameters do not fit `template`; return whether any
    parameter needs converting from the strings a URI gives."""
    where = (
        f"resource template {template.text!r}"
        if template.is_template
        else f"resource {template.text!r}"
    )
    parameters = signature.parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    variables = set(template.variables)
    for name in template.variables:
        parameter = parameters.get(name)
        if parameter is None and not takes_any:
            raise ValueError(f"{where}: {label}() has no parameter {name!r} for its variable")
        if parameter is not None and parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ValueError(
                f"{where}: parameter {name!r} of {label}() must not be positional-only"
            )
    typed = False
    for parameter in parameters.values():
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if parameter.name not in variables:
            if parameter.default is inspect.Parameter.empty:
                raise ValueError(
                    f"{where}: {label}() requires parameter {parameter.name!r}, which the URI "
                    "does not give"
                    + ("" if template.is_template else " (a fixed URI has no variables)")
                )
            continue
        if parameter.annotation not in _PLAIN:
            typed = True
    return typed
