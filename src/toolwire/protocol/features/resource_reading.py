"""A resource function: checked against its URI template once, then called for each read. Template
variables and parameters must fit (a `ValueError` naming template, function and parameter); values
are converted to the annotated types as tool arguments are; what the function returns becomes the
`contents` (`contents_of`), `None` meaning "no such resource". docs/decisions.md
(resource_reading.py) gives the rules."""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...schema.context_types import names_context
from ...tools.invoke import validation_problems
from ...tools.threads import call_sync_or_async
from ..wire.content import to_jsonable
from ..wire.icons import normalize_icons
from .completers import check_completers
from .registry import optional_text
from .resource_registry import Described, FixedResource, TemplatedResource
from .uri_template import UriTemplate

if TYPE_CHECKING:
    import anyio
    from pydantic import BaseModel

    from ...tools.threads import SyncBudget

__all__ = [
    "NOT_FOUND",
    "FunctionReader",
    "InvalidResourceParams",
    "contents_of",
    "registered_resource",
]

_PLAIN = (str, inspect.Parameter.empty, Any, "str")

NOT_FOUND: list[dict[str, Any]] = []  # returned (by identity) for a function's None


def contents_of(uri: str, output: Any, mime_type: str | None) -> list[dict[str, Any]]:
    """The `contents` items for a function's `output` read at `uri`: one item, or `NOT_FOUND`
    (the very object) for None; a ValueError when it cannot be JSON (NaN, a cycle...)."""
    if output is None:
        return NOT_FOUND
    if isinstance(output, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": output}]
    if isinstance(output, bytes | bytearray | memoryview):
        blob = base64.b64encode(bytes(output)).decode("ascii")
        return [{"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": blob}]
    text = json.dumps(to_jsonable(output), ensure_ascii=False, allow_nan=False)
    return [{"uri": uri, "mimeType": mime_type or "application/json", "text": text}]


def registered_resource(
    uri: str,
    source: Callable[..., Any] | str | bytes,
    *,
    mime_type: str | None,
    name: str | None,
    title: str | None,
    description: str | None,
    size: int | None,
    annotations: Mapping[str, Any] | None,
    icons: Iterable[Mapping[str, Any]] | None,
    meta: Mapping[str, Any] | None,
    completers: Mapping[str, Callable[..., Any]] | None,
) -> FixedResource | TemplatedResource:
    """The entry publishing `source` at `uri` (a template when `uri` has variables), every
    option checked first (what `Server.add_resource` adds): a ValueError for a malformed
    template, a function not fitting it, fixed contents for a template or `completers` naming
    no variable; a TypeError for another kind of `source`; a UserError for a bad icon or
    completer."""
    template = UriTemplate.parse(uri)
    label = f"resource template {uri!r}" if template.is_template else f"resource {uri!r}"
    optional_text(name, f"name of {label}")
    if isinstance(source, str | bytes):
        if template.is_template:
            raise ValueError(f"resource template {uri!r} needs a function, not fixed contents")
        fixed = source
        source = lambda: fixed  # noqa: E731
        name = name or uri
    if not callable(source):
        raise TypeError(
            f"resource {uri!r}: expected a function, text or bytes, not {type(source).__name__}"
        )
    reader = FunctionReader(source, template, mime_type, label)
    described = Described(
        name=name or getattr(source, "__name__", None) or uri,
        title=title,
        description=description if description is not None else _summary(source),
        mime_type=mime_type,
        size=size,
        annotations=annotations,
        icons=normalize_icons(icons, label),
        meta=meta,
    ).check(label)
    if not template.is_template:
        if completers or not isinstance(completers, Mapping | None):
            raise ValueError(f"resource {uri!r} has no variables to complete")
        return FixedResource(uri, described, reader)
    unknown = set(completers or ()) - set(template.variables)
    if unknown:
        raise ValueError(
            f"resource template {uri!r}: completers name no variable of it: "
            + ", ".join(sorted(unknown))
        )
    checked = check_completers(completers, template.variables, label)
    return TemplatedResource(template, described, reader, checked)


def _summary(func: Callable[..., Any]) -> str | None:
    """A function's docstring before its sections (`Args:`...), as a tool's description."""
    if not getattr(func, "__doc__", None):
        return None
    from ...schema.docstrings import generate_func_documentation

    try:
        return generate_func_documentation(func).description
    except AttributeError:  # a callable object without a `__name__`
        return inspect.getdoc(func)


class InvalidResourceParams(ValueError):
    """A URI's values are refused; the message, naming each parameter, goes to the client."""


class FunctionReader:
    """Reads a resource by calling the author's function (sync or async) for the template it
    serves (`label` names it in refusals); a `ValueError` when the two do not fit."""

    def __init__(
        self, func: Callable[..., Any], template: UriTemplate, mime_type: str | None, label: str
    ):
        self.func = func
        self.template = template
        self.mime_type = mime_type
        self._signature, self.takes_context = _signature_of(func, template.text)
        self._model: type[BaseModel] | None = None
        self._typed = _check_fit(self._signature, template, label, _label(func))

    async def read(
        self,
        uri: str,
        values: Mapping[str, str],
        limiter: SyncBudget | anyio.CapacityLimiter | None,
        context: Any = None,
    ) -> list[dict[str, Any]]:
        """The contents for `uri`: the function called with `values` (after `context` when it
        takes one); InvalidResourceParams when a value does not convert."""
        for name, value in values.items():
            problem = _traversal(value)
            if problem is not None:
                raise InvalidResourceParams(f"Refused resource URI {uri!r}: {name!r} {problem}")
        arguments: dict[str, Any] = dict(values)
        if self._typed:
            arguments = self._convert(arguments)
        else:
            self._check_given(arguments)
        leading = (context,) if self.takes_context else ()
        output = await call_sync_or_async(limiter, self.func, leading, arguments)
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
        from pydantic import ConfigDict, ValidationError, create_model

        if self._model is None:  # built at the first read: publishing loads no pydantic
            fields: dict[str, Any] = {}
            for parameter in self._signature.parameters.values():
                if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                    continue
                annotation = (
                    Any if parameter.annotation is parameter.empty else parameter.annotation
                )
                default = ... if parameter.default is parameter.empty else parameter.default
                fields[parameter.name] = (annotation, default)
            self._model = create_model(
                f"ResourceParams_{_label(self.func)}",
                __config__=ConfigDict(extra="allow", arbitrary_types_allowed=True),
                **fields,
            )
        try:
            validated = self._model.model_validate(arguments)
        except ValidationError as invalid:
            problems = "; ".join(validation_problems(invalid))  # a dict's errors have a loc
            raise InvalidResourceParams(
                f"Invalid parameters for resource template '{self.template.text}': {problems}"
            ) from None
        converted = {name: getattr(validated, name) for name in type(validated).model_fields}
        converted.update(validated.model_extra or {})  # values for `**kwargs`
        return converted


def _traversal(value: str) -> str | None:
    """Why a decoded template value is refused: one that could lead a function building a path
    from it out of its directory (a `..` step, a NUL byte), however it was percent-encoded."""
    if "\x00" in value:
        return "holds a NUL byte"
    if ".." in value.replace("\\", "/").split("/"):
        return "holds a '..' path segment"
    return None


def _label(func: Callable[..., Any]) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


def _signature_of(func: Callable[..., Any], uri: str) -> tuple[inspect.Signature, bool]:
    """The parameters the URI fills, and whether a leading `ToolContext` comes first."""
    try:
        signature = inspect.signature(func, eval_str=True)
    except (NameError, TypeError, SyntaxError) as error:
        raise ValueError(
            f"resource {uri!r}: cannot read the signature of {_label(func)}(): {error}"
        ) from error
    parameters = list(signature.parameters.values())
    first = parameters[0] if parameters else None
    # bare, parametrised or in Annotated, as for a tool
    if (
        first is not None
        and first.kind is not first.VAR_KEYWORD
        and names_context(first.annotation)
    ):
        return signature.replace(parameters=parameters[1:]), True
    return signature, False


def _check_fit(signature: inspect.Signature, template: UriTemplate, where: str, label: str) -> bool:
    """Refuse parameters that do not fit `template`; whether any needs converting."""
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
