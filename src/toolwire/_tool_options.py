"""How `Server.tool` and `Server.add_tool` take a tool's name and description.

MCP users write `name=` and `description=`; `function_tool` (after the Agents SDK) calls the
same options `name_override=` and `description_override=`. Both spellings are accepted, and
giving both at once is a `TypeError`, as Python itself treats a repeated keyword. A tool that
is already built (a `FunctionTool`, an agents tool) is copied under its new name, so the
object the caller holds keeps its own.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tools.function_tool import FunctionTool

__all__ = ["one_spelling", "renamed"]

# MCP users spell these `name` / `description`; function_tool (the Agents SDK) adds `_override`.
_SPELLINGS = (("name", "name_override"), ("description", "description_override"))


def one_spelling(
    method: str, options: dict[str, Any], name: str | None, description: str | None
) -> dict[str, Any]:
    """`options` with `name`/`description` folded into function_tool's spelling of them."""
    for (short, long), value in zip(_SPELLINGS, (name, description), strict=True):
        if value is None:
            continue
        if options.get(long) is not None:
            raise TypeError(
                f"{method}() got both {short}= and {long}=; they are two spellings of the "
                "same option: pass only one"
            )
        options[long] = value
    return options


def renamed(tool: FunctionTool, options: dict[str, Any]) -> FunctionTool:
    """A copy of a built tool with another name or description (the only options it takes)."""
    changes = {}
    for short, long in _SPELLINGS:
        value = options.pop(long, None)
        if value is not None:
            changes[short] = value
    if options:
        raise TypeError(
            f"add_tool() got function_tool options ({', '.join(sorted(options))}) for a tool "
            "that is already built; they apply only when add_tool wraps a plain callable"
        )
    return dataclasses.replace(tool, **changes) if changes else tool
