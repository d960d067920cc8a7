"""A tool function's contract: name, description, arguments model and JSON schema.

`function_schema` and `FuncSchema` are the Agents SDK's public names and give its results
byte for byte (tests/schema/test_differential_*.py). The steps live apart: `_params` reads
the signature, `docstrings` the docstring, `_fields` builds the model and `_call_args` maps
validated arguments back onto the function. Importing this module loads pydantic, so the
decoration fast path (tools/_fast_schema.py) imports it only when it needs a model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ._call_args import call_arguments
from ._fields import build_model
from ._params import read_signature
from .docstrings import (
    DocstringStyle,
    FuncDocumentation,
    generate_func_documentation,
    tool_text,
)
from .strict import ensure_strict_json_schema

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "FuncSchema",
    "function_schema",
    "generate_func_documentation",
]


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
        return call_arguments(self.signature, self.takes_context, vars(data), self.name)


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
        use_docstring_info: Read the description and parameter descriptions from the
            docstring.
        strict_json_schema: Make the JSON schema strict (what OpenAI's structured outputs
            accept); `**kwargs` parameters cannot be.
        lossless_docstring: toolwire only: describe the tool with the whole docstring, not
            just its first text block.

    Returns:
        The tool's `FuncSchema`.

    Raises:
        UserError: The signature cannot be a tool (see `_params` and `_fields`).
    """
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
        f"{text.name}_args", shape.params, text.param_notes, strict=strict_json_schema, func=func
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
