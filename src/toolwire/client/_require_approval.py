"""Reading a `require_approval` setting's static forms: every check, and its error text.

The forms and the messages for bad settings are those of openai-agents 0.24.0's MCP servers
(the differential test tests/client/approvals/test_policy_sdk.py holds them side by side). Only a
plain `dict` is a table: other mappings are refused, as the SDK refuses them.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError

__all__ = ["bad_value", "flag", "tool_table"]


def bad_value(where: str, value: object) -> UserError:
    """The error for a value that is neither "always" nor "never", at `where`."""
    return UserError(
        f"Invalid require_approval value at {where}: expected 'always' or 'never', got {value!r}."
    )


def flag(value: object, where: str) -> bool:
    """One "always"/"never" (or bool) value as a bool; anything else is refused."""
    if value == "always" or value is True:
        return True
    if value == "never" or value is False:
        return False
    raise bad_value(where, value)


def _names_block(setting: dict[Any, Any], side: str) -> frozenset[str]:
    """The tool names under `side` ("always"/"never") of a tool-list setting, checked."""
    if side not in setting:
        return frozenset()
    block = setting[side]
    if not isinstance(block, dict):
        raise UserError(
            f"Invalid require_approval.{side}: expected an object with tool_names, "
            f"got {type(block).__name__}."
        )
    names = block.get("tool_names", [])
    where = f"require_approval.{side}.tool_names"
    if not isinstance(names, list):
        raise UserError(
            f"Invalid require_approval tool_names at {where}: expected a list of strings, "
            f"got {type(names).__name__}."
        )
    for index, name in enumerate(names):
        if not isinstance(name, str):
            raise UserError(
                f"Invalid require_approval tool name at {where}[{index}]: expected a string, "
                f"got {type(name).__name__}."
            )
    return frozenset(names)


def _is_tool_lists(setting: dict[Any, Any]) -> bool:
    """True when the dict is the `{"always": {"tool_names": ...}, "never": ...}` form.

    The other dict form maps tool names to "always"/"never", so a tool may itself be named
    "always"; only a nested object holding `tool_names` marks the list form.
    """
    return any(
        isinstance(setting.get(side), dict) and "tool_names" in setting[side]
        for side in ("always", "never")
    )


def _tool_lists(setting: dict[Any, Any]) -> dict[Any, bool]:
    extra = [key for key in setting if key not in ("always", "never")]
    if extra:
        raise UserError(
            f"Invalid require_approval tool list policy: unexpected keys {sorted(extra, key=str)}; "
            "expected only 'always' and 'never'."
        )
    ask = _names_block(setting, "always")
    skip = _names_block(setting, "never")
    both = ask & skip
    if both:
        raise UserError(
            "Invalid require_approval tool list policy: tool names cannot appear in both "
            f"always and never: {sorted(both)}."
        )
    return {**dict.fromkeys(skip, False), **dict.fromkeys(ask, True)}


def tool_table(setting: dict[Any, Any]) -> dict[Any, bool]:
    """A dict setting (either form) as a tool name -> "ask?" table.

    Raises:
        UserError: A value is not "always"/"never"/a bool, or the list form is malformed.
    """
    if _is_tool_lists(setting):
        return _tool_lists(setting)
    return {key: flag(value, f"require_approval[{key!r}]") for key, value in setting.items()}
