"""Turning validated arguments back into a Python call: what goes by position, what by name.

Values are read from the model instance's `__dict__` rather than with `getattr`: a parameter
may share its name with a `BaseModel` attribute (`schema`, `model_extra`, ...), and only the
instance dictionary is sure to hold the argument rather than the attribute.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..errors import ModelBehaviorError

_BY_POSITION = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
# Parameters a `**kwargs` key could also reach by name (positional-only ones cannot be).
_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def call_arguments(
    signature: inspect.Signature, takes_context: bool, values: dict[str, Any], tool_name: str
) -> tuple[list[Any], dict[str, Any]]:
    """`(args, kwargs)` for calling the function with validated `values`.

    The context argument, when the function takes one, is not included: the invoker puts it
    first.

    Args:
        signature: The function's signature, context parameter included.
        takes_context: Whether the first parameter is the context.
        values: Field name to validated value.
        tool_name: The tool's name, for the error message.

    Returns:
        The positional and keyword arguments.

    Raises:
        ModelBehaviorError: The `**kwargs` object repeats a named parameter.
    """
    params = list(signature.parameters.values())
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in params[1:] if takes_context else params:
        value = values[param.name]
        if param.kind in _BY_POSITION:
            args.append(value)
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif param.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[param.name] = value
        else:
            _refuse_repeats(params, param.name, value, tool_name)
            kwargs.update(value)
    return args, kwargs


def _refuse_repeats(
    params: list[inspect.Parameter], holder: str, extra: dict[str, Any], tool_name: str
) -> None:
    # Python would raise "got multiple values" or, worse, let the nested key override the
    # validated argument; the model is told plainly instead.
    repeated = sorted(p.name for p in params if p.kind in _BY_NAME and p.name in extra)
    if not repeated:
        return
    listed = ", ".join(f"'{name}'" for name in repeated)
    verb = "is" if len(repeated) == 1 else "are"
    raise ModelBehaviorError(
        f"Invalid arguments for tool {tool_name}: {listed} {verb} both a named parameter and a"
        f" key in '{holder}'. Pass each argument once, as a named parameter."
    )
