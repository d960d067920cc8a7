"""Checking the options a `FunctionTool` is built with, with the Agents SDK's refusals.

Kept apart from function_tool.py, which says what a tool is; this module only says which
settings are refused and with what message (the SDK's words, which users and tests see).
"""

from __future__ import annotations

import copy
import math
from typing import Any, Literal

from ..errors import UserError
from ..schema.strict import ensure_strict_json_schema
from ._declared_output import is_object_schema

__all__ = ["check_timeout_options", "checked_allowed_callers", "strict_output_json_schema"]

ToolCaller = Literal["direct", "programmatic"]
_TIMEOUT_BEHAVIORS: tuple[str, ...] = ("error_as_result", "raise_exception")
_TOOL_CALLERS: tuple[str, ...] = ("direct", "programmatic")


def checked_allowed_callers(allowed: Any, tool_name: str) -> list[ToolCaller] | None:
    """`allowed_callers` as a list without repeats, or None; the SDK's refusals otherwise."""
    if allowed is None:
        return None
    if not isinstance(allowed, list) or not allowed:
        raise UserError(
            f"Tool `{tool_name}` allowed_callers must be a non-empty list containing "
            "'direct', 'programmatic', or both."
        )
    normalized: list[ToolCaller] = []
    for caller in allowed:
        if caller not in _TOOL_CALLERS:
            raise UserError(
                f"Tool `{tool_name}` allowed_callers contains unsupported caller {caller!r}. "
                "Expected 'direct' or 'programmatic'."
            )
        if caller in normalized:
            raise UserError(
                f"Tool `{tool_name}` allowed_callers contains duplicate caller {caller!r}."
            )
        normalized.append(caller)
    return normalized


def strict_output_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A strict copy of a declared `output_json_schema`, which must describe an object."""
    if not isinstance(schema, dict) or not is_object_schema(schema):
        raise UserError("Function tool output_json_schema must define a JSON object schema.")
    try:
        return ensure_strict_json_schema(copy.deepcopy(schema))
    except Exception as error:
        raise UserError(
            "Function tool output_json_schema must define a strict JSON object schema."
        ) from error


def check_timeout_options(
    timeout: Any, behavior: Any, error_function: Any, *, sync_handler: bool
) -> float | None:
    """Refuse the timeout settings the SDK refuses; returns `timeout` as a float (or None).

    Args:
        timeout: `timeout_seconds`.
        behavior: `timeout_behavior`.
        error_function: `timeout_error_function`.
        sync_handler: Whether the tool's handler runs a sync function (no timeout then).
    """
    seconds: float | None = None
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise TypeError(
                "FunctionTool timeout_seconds must be a positive number in seconds or None."
            )
        seconds = float(timeout)
        if not math.isfinite(seconds):
            raise ValueError("FunctionTool timeout_seconds must be a finite number.")
        if seconds <= 0:
            raise ValueError("FunctionTool timeout_seconds must be greater than 0.")
        if sync_handler:
            raise ValueError(
                "FunctionTool timeout_seconds is only supported for async @function_tool handlers."
            )
    if behavior not in _TIMEOUT_BEHAVIORS:
        raise ValueError(
            "FunctionTool timeout_behavior must be one of: " + ", ".join(_TIMEOUT_BEHAVIORS)
        )
    if error_function is not None and not callable(error_function):
        raise TypeError("FunctionTool timeout_error_function must be callable or None.")
    return seconds
