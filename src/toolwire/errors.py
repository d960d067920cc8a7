"""Exceptions shared by every layer of toolwire.

The names and meanings match the OpenAI Agents SDK (`agents.exceptions`) so that code written
for one reads the same with the other.
"""

from __future__ import annotations

__all__ = ["ModelBehaviorError", "ToolTimeoutError", "ToolwireError", "UserError"]


class ToolwireError(Exception):
    """Base class of every exception toolwire raises on purpose."""


class UserError(ToolwireError):
    """The library was used wrongly: a bad signature, option or schema."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelBehaviorError(ToolwireError):
    """The model (or the remote caller) did something unexpected, e.g. sent invalid arguments."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ToolTimeoutError(ToolwireError):
    """A tool call ran past its `timeout`.

    Args:
        tool_name: The tool that timed out.
        timeout_seconds: The limit that was exceeded.
    """

    def __init__(self, tool_name: str, timeout_seconds: float) -> None:
        self.tool_name = tool_name
        self.timeout_seconds = timeout_seconds
        super().__init__(f"Tool '{tool_name}' timed out after {timeout_seconds:g} seconds.")
