"""The prompts a server publishes: each function with its arguments, listed per version. A prompt
function is read as a tool is (`function_schema`, not strict); argument values arrive as strings and
are validated by each parameter's type, a refusal being -32602 naming the arguments and the prompt.
docs/decisions.md (prompt_registry.py) says how strings convert."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from ...errors import UserError
from ..wire.icons import normalize_icons
from ..wire.jsonrpc import INVALID_PARAMS, ProtocolError
from .completers import Completer, check_completers
from .registry import NamedEntries, listing, optional_text

if TYPE_CHECKING:
    from ...schema.function_schema import FuncSchema

__all__ = ["PromptRegistry", "RegisteredPrompt", "registered_prompt"]


def _takes_strings(schema: Mapping[str, Any]) -> bool:
    """Whether a property's schema accepts a plain string as it is."""
    if not schema:
        return True
    kind = schema.get("type")
    if kind == "string" or (isinstance(kind, list) and "string" in kind):
        return True
    branches = schema.get("anyOf") or schema.get("oneOf") or ()
    return any(isinstance(branch, dict) and _takes_strings(branch) for branch in branches)


invalid_arguments = partial(ProtocolError, INVALID_PARAMS)  # -32602 naming what was wrong


@dataclass(eq=False)
class RegisteredPrompt:
    """One published prompt: its function, read by the schema layer (`schema`), and its listing
    fields; `completers` maps argument names to completers."""

    name: str
    description: str | None
    schema: FuncSchema
    func: Callable[..., Any]
    title: str | None = None
    icons: tuple[dict[str, Any], ...] | None = None
    meta: dict[str, Any] | None = None
    completers: dict[str, Completer] = field(default_factory=dict)

    @property
    def argument_names(self) -> list[str]:
        """The prompt's arguments, in signature order."""
        return list(self.schema.params_json_schema.get("properties", {}))

    def listing(self, version: str) -> dict[str, Any]:
        """The `prompts/list` entry for a protocol version."""
        properties: dict[str, Any] = self.schema.params_json_schema.get("properties", {})
        required = set(self.schema.params_json_schema.get("required", ()))
        arguments = []
        for name, prop in properties.items():
            argument: dict[str, Any] = {"name": name}
            if isinstance(prop, dict) and isinstance(prop.get("description"), str):
                argument["description"] = prop["description"]
            argument["required"] = name in required
            arguments.append(argument)
        fields = {
            "name": self.name,
            "title": self.title or None,
            "description": self.description or None,
            "arguments": arguments or None,
        }
        return listing(version, fields, self.icons, self.meta)

    def bind(self, arguments: Any) -> tuple[list[Any], dict[str, Any]]:
        """`(args, kwargs)` for the function from a `prompts/get` request's `arguments` (no
        context argument); -32602 naming the missing, unknown or invalid ones."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise invalid_arguments(
                f"prompts/get: 'arguments' of prompt {self.name!r} must be an object of strings"
            )
        schema = self.schema.params_json_schema
        properties: dict[str, Any] = schema.get("properties", {})
        unknown = sorted(set(arguments) - set(properties))
        if unknown:
            raise invalid_arguments(
                f"Unknown argument(s) for prompt {self.name!r}: {', '.join(unknown)} "
                f"(it takes: {', '.join(properties) or 'none'})"
            )
        missing = [name for name in schema.get("required", ()) if arguments.get(name) is None]
        if missing:
            raise invalid_arguments(
                f"Missing required argument(s) for prompt {self.name!r}: {', '.join(missing)}"
            )
        values: dict[str, Any] = {}
        for name, value in arguments.items():
            if value is None:  # an optional argument left empty: its default applies
                continue
            if not isinstance(value, str):
                raise invalid_arguments(
                    f"Argument {name!r} of prompt {self.name!r} must be a string, "
                    f"not {type(value).__name__}"
                )
            try:
                values[name] = value if _takes_strings(properties[name]) else _maybe_json(value)
            except RecursionError:
                raise invalid_arguments(
                    f"Argument {name!r} of prompt {self.name!r} is nested too deeply"
                ) from None
        from pydantic import ValidationError

        try:
            validated = self.schema.params_pydantic_model.model_validate(values)
        except ValidationError as error:
            problems = []
            for item in error.errors(include_url=False):
                where = ".".join(str(part) for part in item["loc"]) or "arguments"
                problems.append(f"{where!r}: {item['msg']}")
            raise invalid_arguments(
                f"Invalid argument(s) for prompt {self.name!r}: {'; '.join(problems)}"
            ) from None
        return self.schema.to_call_args(validated)


def _maybe_json(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


class PromptRegistry(NamedEntries[RegisteredPrompt]):
    """Published prompts by name, in registration order; tells listeners about changes."""

    kind = "prompt"


def registered_prompt(
    func: Callable[..., Any],
    *,
    name: str | None,
    title: str | None,
    description: str | None,
    icons: Any,
    meta: dict[str, Any] | None,
    completers: Mapping[str, Any] | None,
) -> RegisteredPrompt:
    """A function read as a prompt, options checked (a UserError naming which is wrong): what
    `Server.prompt` publishes."""
    if not callable(func):
        raise UserError(f"a prompt must be a function, not {type(func).__name__}")
    optional_text(name, f"name of prompt {getattr(func, '__name__', '')!r}")
    optional_text(description, f"description of prompt {name or getattr(func, '__name__', '')!r}")
    from ...schema.function_schema import function_schema

    schema = function_schema(
        func, name_override=name, description_override=description, strict_json_schema=False
    )
    if not isinstance(schema.name, str) or not schema.name:
        raise UserError("a prompt needs a non-empty name")
    owner = f"prompt {schema.name!r}"
    for param in schema.signature.parameters.values():  # no client could fill them in by name
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            stars = "*" if param.kind is param.VAR_POSITIONAL else "**"
            raise UserError(
                f"{owner}: parameter `{stars}{param.name}` cannot be a prompt argument; MCP"
                " lists each argument of a prompt by name, so declare named parameters instead"
            )
    if meta is not None and not isinstance(meta, dict):
        raise UserError(f"meta of {owner} must be a dict")
    optional_text(title, f"title of {owner}")
    properties = schema.params_json_schema.get("properties", {})
    return RegisteredPrompt(
        name=schema.name,
        description=schema.description,
        schema=schema,
        func=func,
        title=title,
        icons=normalize_icons(icons, owner),
        meta=dict(meta) if meta else None,
        completers=check_completers(completers, properties, owner),
    )
