"""Exceptions shared by every layer of toolwire, and the checks that refuse a bad option value.

The names and meanings match the OpenAI Agents SDK (`agents.exceptions`) so that code written
for one reads the same with the other. `check_count`, `check_seconds` and `check_flag` are the
one way an option of every layer is refused with an error naming it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ClientCapabilityError",
    "ClientRequestError",
    "ClientResponseError",
    "ClientTimeoutError",
    "ModelBehaviorError",
    "NoBackChannelError",
    "ToolAbortedError",
    "ToolTimeoutError",
    "ToolwireError",
    "UserError",
]


class ToolwireError(Exception):
    """Base class of every exception toolwire raises on purpose.

    Args:
        message: What went wrong, for a person to read (also kept as `message`).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UserError(ToolwireError):
    """The library was used wrongly: a bad signature, option or schema."""


class ModelBehaviorError(ToolwireError):
    """The model (or the remote caller) did something unexpected, e.g. sent invalid arguments."""


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


class ToolAbortedError(ToolwireError):
    """A tool raised a `BaseException` that is not an `Exception` (`SystemExit`, a
    `CancelledError` of its own...): the call fails instead of the server, the original being
    the `__cause__`. A cancellation toolwire or the caller asked for is not one of these.

    Args:
        original: What the tool raised.
    """

    def __init__(self, original: BaseException) -> None:
        self.original = original
        self.__cause__ = original  # the traceback that is logged shows where it was raised
        text = str(original)
        kind = type(original).__name__
        super().__init__(f"the tool raised {kind}: {text}" if text else f"the tool raised {kind}")


class ClientRequestError(ToolwireError):
    """A tool's request to the MCP client (`ctx.elicit`, `ctx.sample`, `ctx.list_roots`)
    could not be made, or did not produce an answer: the base of every such case.

    Args:
        method: The MCP method asked for (`elicitation/create`, ...).
        message: What went wrong, for a person to read.
    """

    def __init__(self, method: str, message: str) -> None:
        super().__init__(message)
        self.method = method


class ClientCapabilityError(ClientRequestError):
    """The client did not declare the capability the request needs (`elicitation`,
    `sampling`, `roots`), so it must not be asked."""


class NoBackChannelError(ClientRequestError):
    """The transport serving this call cannot carry a request from the server to the client
    (HTTP in JSON-response or stateless mode)."""


class ClientResponseError(ClientRequestError):
    """The client answered with a JSON-RPC error, or with a result that is not what the
    method returns.

    Args:
        method: The MCP method asked for.
        message: What went wrong.
        code: The JSON-RPC error code the client sent; None for a malformed result.
        data: The error's `data`, when the client sent one.
    """

    def __init__(self, method: str, message: str, code: int | None = None, data: object = None):
        super().__init__(method, message)
        self.code = code
        self.data = data


class ClientTimeoutError(ClientRequestError):
    """The client did not answer within the request's timeout (the request was cancelled)."""


def check_count(name: str, value: Any, least: int = 1, alternative: str = "") -> None:
    """Refuse (ValueError naming `name`) a `value` that is not an integer >= `least`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}{alternative}, not {value!r}")


def check_seconds(name: str, value: Any, alternative: str = "") -> None:
    """Refuse (ValueError naming `name`) a `value` that is not a number of seconds > 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"{name} must be a number of seconds > 0{alternative}, not {value!r}")


def check_flag(name: str, value: Any) -> None:
    """Refuse (TypeError naming `name`) a value that is not True or False: a truthy string
    such as "false" would otherwise turn the option on."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {value!r}")
