"""What the client adapter's constructors take, transport parameters and tool filters, with
the Agents SDK's names, keys and meanings (a configuration written for one works with the
other). Nothing here imports `mcp`."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

if TYPE_CHECKING:
    from ..context import RunContextWrapper

__all__ = [
    "HttpClientFactory",
    "MCPServerSseParams",
    "MCPServerStdioParams",
    "MCPServerStreamableHttpParams",
    "ToolFilter",
    "ToolFilterContext",
    "ToolFilterStatic",
    "create_static_tool_filter",
]

# (headers, timeout, auth) -> an httpx2.AsyncClient; typed loosely so that httpx2 stays unloaded.
HttpClientFactory: TypeAlias = Callable[..., Any]


class MCPServerStdioParams(TypedDict):
    """How to start a stdio server: `command`, `args`, `env` (the child's whole environment when
    given), `cwd`, `encoding` ("utf-8") and `encoding_error_handler` ("strict")."""

    command: str
    cwd: NotRequired[str | Path]
    args: NotRequired[list[str]]
    encoding_error_handler: NotRequired[Literal["strict", "ignore", "replace"]]
    env: NotRequired[dict[str, str]]
    encoding: NotRequired[str]


_TEXT = (str, bytes, bytearray)  # what the SDK's pydantic model takes as a string


def check_stdio_params(params: Any) -> None:
    """Refuse, as the SDK does when the server object is made, stdio params no process could be
    started from: a TypeError when `params` is no dict, a KeyError without `command`, and a
    ValueError naming the key whose value has the wrong type."""
    if not isinstance(params, Mapping):
        raise TypeError(
            f"MCPServerStdio params must be a dict (MCPServerStdioParams), not "
            f"{type(params).__name__}"
        )
    if "command" not in params:
        raise KeyError("MCPServerStdio params need a 'command'")
    problem = _stdio_problem(params)
    if problem:
        raise ValueError(f"MCPServerStdio params: {problem}")


def _stdio_problem(params: Mapping[str, Any]) -> str:
    command, args = params["command"], params.get("args", [])
    if not isinstance(command, _TEXT):
        return f"'command' must be a string, not {type(command).__name__}"
    if isinstance(args, (*_TEXT, Mapping)) or not isinstance(args, Iterable):
        return f"'args' must be a list of strings, not {type(args).__name__}"
    if isinstance(args, list | tuple) and not all(isinstance(arg, _TEXT) for arg in args):
        return "'args' must hold strings only"
    env = params.get("env")
    if env is not None and not (
        isinstance(env, Mapping)
        and all(isinstance(key, _TEXT) and isinstance(value, _TEXT) for key, value in env.items())
    ):
        return "'env' must be a dict of strings to strings (the child's whole environment)"
    cwd = params.get("cwd")
    if cwd is not None and not isinstance(cwd, (*_TEXT, os.PathLike)):
        return f"'cwd' must be a path, not {type(cwd).__name__}"
    for key in ("encoding", "encoding_error_handler"):
        if key in params and not isinstance(params[key], _TEXT):
            return f"{key!r} must be a string, not {type(params[key]).__name__}"
    return ""


class MCPServerSseParams(TypedDict):
    """How to reach a legacy HTTP+SSE server: `url` (its SSE endpoint), `headers`, `timeout`
    (5 s per request), `sse_read_timeout` (300 s of silence), `auth`, `httpx_client_factory`."""

    url: str
    auth: NotRequired[Any]
    headers: NotRequired[dict[str, str]]
    httpx_client_factory: NotRequired[HttpClientFactory]
    timeout: NotRequired[float]
    sse_read_timeout: NotRequired[float]


class MCPServerStreamableHttpParams(TypedDict):
    """How to reach a streamable HTTP server: as `MCPServerSseParams`, plus `terminate_on_close`
    (DELETE the session when closing, True) and `ignore_initialized_notification_failure`
    (accepted for compatibility, unused)."""

    url: str
    terminate_on_close: NotRequired[bool]
    headers: NotRequired[dict[str, str]]
    auth: NotRequired[Any]
    timeout: NotRequired[timedelta | float]
    httpx_client_factory: NotRequired[HttpClientFactory]
    sse_read_timeout: NotRequired[timedelta | float]
    ignore_initialized_notification_failure: NotRequired[bool]


class ToolFilterStatic(TypedDict):
    """Names to keep (`allowed_tool_names`, applied first) and to drop (`blocked_tool_names`)."""

    allowed_tool_names: NotRequired[list[str]]
    blocked_tool_names: NotRequired[list[str]]


@dataclass
class ToolFilterContext:
    """What a callable tool filter is told besides the tool: the run, the agent, the server.

    Args:
        run_context: The run's context wrapper.
        agent: The agent whose tools are being gathered.
        server_name: The name of the server the tool comes from.
    """

    run_context: RunContextWrapper[Any]
    agent: Any
    server_name: str


ToolFilterCallable: TypeAlias = Callable[[ToolFilterContext, Any], "bool | Awaitable[bool]"]
ToolFilter: TypeAlias = "ToolFilterCallable | ToolFilterStatic | None"


def create_static_tool_filter(
    allowed_tool_names: list[str] | None = None,
    blocked_tool_names: list[str] | None = None,
) -> ToolFilterStatic | None:
    """A static filter from lists of names; None when neither list is given.

    Args:
        allowed_tool_names: Only these tools are kept (None: all of them).
        blocked_tool_names: These tools are dropped.

    Returns:
        The filter, or None when there is nothing to filter.
    """
    made = ToolFilterStatic()
    if blocked_tool_names is not None:
        made["blocked_tool_names"] = blocked_tool_names
    if allowed_tool_names is not None:
        made["allowed_tool_names"] = allowed_tool_names
    return made or None
