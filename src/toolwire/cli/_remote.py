"""A remote TARGET for `toolwire tools` / `toolwire call`: a command line or an HTTP(S) URL.

Only the commands that reach a remote server load this module. Connecting goes through
toolwire's client adapter (`toolwire.client`), imported inside `connect`, so the rest of the
CLI (and a stdio server's start-up) never loads the `mcp` client.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TextIO
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from ..client.base import MCPClientServer

__all__ = [
    "RemoteError",
    "RemoteTarget",
    "connect",
    "describe_failure",
    "last_line",
    "parse_headers",
    "parse_remote_target",
]


class RemoteError(Exception):
    """The TARGET cannot be used or reached; the message is one line for the user."""


@dataclass(frozen=True)
class RemoteTarget:
    """Where the server is.

    Attributes:
        kind: "stdio" (start `command` with `args`), "http" (streamable HTTP) or "sse".
        text: The TARGET as the user wrote it (for messages).
        command: The program to start (stdio).
        args: Its arguments (stdio).
        url: The endpoint (http, sse).
    """

    kind: Literal["stdio", "http", "sse"]
    text: str
    command: str = ""
    args: tuple[str, ...] = ()
    url: str = ""

    @property
    def label(self) -> str:
        """A short name for the server, used in prompts and messages."""
        return self.text.strip() if self.kind == "stdio" else self.url


def parse_remote_target(text: str) -> RemoteTarget:
    """Read TARGET: an http(s) URL (legacy SSE when its path ends in /sse) or a command line.

    Raises:
        RemoteError: The TARGET is empty, a URL without a host, or an unbalanced command line.
    """
    stripped = text.strip()
    if not stripped:
        raise RemoteError("TARGET is empty: give a command line or an http(s):// URL")
    scheme = stripped.split(":", 1)[0].lower()
    if scheme in ("http", "https"):
        parts = urlsplit(stripped)
        if not parts.hostname:
            raise RemoteError(f"TARGET {text!r} is not a usable URL (no host)")
        kind: Literal["http", "sse"] = "sse" if parts.path.rstrip("/").endswith("/sse") else "http"
        return RemoteTarget(kind, text, url=stripped)
    try:
        words = shlex.split(stripped)
    except ValueError as error:
        raise RemoteError(f"TARGET {text!r} is not a valid command line: {error}") from None
    return RemoteTarget("stdio", text, command=words[0], args=tuple(words[1:]))


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _chain(error: BaseException) -> list[BaseException]:
    """The error, what it wraps (exception groups) and what caused it, depth first."""
    found: list[BaseException] = []
    pending = [error]
    while pending and len(found) < 50:
        current = pending.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(reversed(current.exceptions))
        if current.__cause__ is not None:
            pending.append(current.__cause__)
        elif current.__context__ is not None and not current.__suppress_context__:
            pending.append(current.__context__)
    return found


# The `mcp` client's streamable HTTP transport turns a 404 answer to `initialize` into a
# JSON-RPC "method not found" error with this message; the SSE transport raises the HTTP
# client's status error, which carries the response.
_METHOD_NOT_FOUND = -32601


def _answered_404(error: BaseException) -> bool:
    for cause in _chain(error):
        response = getattr(cause, "response", None)
        if getattr(response, "status_code", None) == 404:
            return True
        if getattr(cause, "code", None) == _METHOD_NOT_FOUND and str(
            getattr(cause, "message", "")
        ).startswith("Not Found"):
            return True
    return False


def _endpoint_hint(target: RemoteTarget) -> str:
    """What to try when nothing answers at the URL's path."""
    parts = urlsplit(target.url)
    path = parts.path.rstrip("/")
    if path.endswith(("/mcp", "/sse")):
        return (
            "is the path right? toolwire serves streamable HTTP at /mcp and legacy SSE at "
            "/sse, under the mount's prefix when mounted in an app"
        )
    base = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    return (
        f"the URL needs the endpoint's path: try {base}/mcp (streamable HTTP; toolwire's "
        f"default) or {base}/sse (legacy SSE)"
    )


def describe_failure(target: RemoteTarget, error: BaseException) -> str:
    """One line saying why talking to the TARGET failed (no traceback)."""
    from ..client.errors import MCPCallError

    if target.kind != "stdio" and _answered_404(error):
        return f"{target.url} answered 404 Not Found: {_endpoint_hint(target)}"
    cause = _innermost(error)
    if isinstance(cause, MCPCallError):
        # The adapter's message names the server again and may span lines (a child's
        # stderr): the user gets the label once and the low-level cause, which is shorter.
        if cause.__cause__ is None:
            return f"{target.label}: {cause.reason.splitlines()[0]}"
        cause = _innermost(cause.__cause__)
    if isinstance(cause, FileNotFoundError | PermissionError) and target.kind == "stdio":
        return f"cannot start {target.command!r}: {cause.strerror or cause}"
    if isinstance(cause, TimeoutError):
        return f"{target.label} did not answer in time"
    name = type(cause).__name__
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    if "Connect" in name or isinstance(cause, ConnectionError):
        return f"cannot connect to {target.label}: {text or name}"
    closed = name in (
        "ClosedResourceError",
        "EndOfStream",
        "BrokenResourceError",
        "LinkClosedError",
    )
    if target.kind == "stdio" and (closed or text == "Connection closed"):
        return f"{target.label} exited or closed its output before answering"
    return f"{target.label}: {text or name}" if text else f"{target.label}: {name}"


def last_line(log: TextIO | None) -> str:
    """The last non-empty line a stdio server wrote to its captured stderr ("" if none)."""
    if log is None:
        return ""
    try:
        log.flush()
        log.seek(0)
        lines = [line.strip() for line in log.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    return lines[-1][:300] if lines else ""


def parse_headers(lines: list[str] | None, target: RemoteTarget) -> dict[str, str]:
    """`--header "Name: value"` options as a dict (HTTP and SSE targets only).

    Raises:
        RemoteError: A header without a name and a colon, or headers for a stdio TARGET.
    """
    headers: dict[str, str] = {}
    for line in lines or []:
        name, colon, value = line.partition(":")
        if not colon or not name.strip() or any(char.isspace() for char in name.strip()):
            raise RemoteError(f"--header must look like 'Name: value', got {line!r}")
        headers[name.strip()] = value.strip()
    if headers and target.kind == "stdio":
        raise RemoteError("--header applies to http(s) URLs only, not to a stdio command line")
    return headers


@asynccontextmanager
async def connect(
    target: RemoteTarget,
    *,
    timeout: float,
    errlog: TextIO | None = None,
    headers: dict[str, str] | None = None,
    max_list_pages: int = 100,
    on_approval_request: Any = None,
) -> AsyncIterator[MCPClientServer]:
    """A connected client-adapter server for the TARGET, cleaned up on exit.

    Args:
        target: Where the server is.
        timeout: Seconds each request (the handshake included) may wait for its answer.
        errlog: Where a stdio server's stderr goes (default: our stderr).
        headers: Extra HTTP headers for every request (HTTP and SSE).
        max_list_pages: A bound on the pages one listing reads.
        on_approval_request: The server's approval callback (`toolwire call`'s terminal
            prompt): with it, the adapter's "annotations" policy gates every call.
    """
    from ..client import MCPServerSse, MCPServerStdio, MCPServerStreamableHttp

    common: dict[str, Any] = {
        "name": target.label,
        "client_session_timeout_seconds": timeout,
        "max_list_pages": max_list_pages,
        "on_approval_request": on_approval_request,
    }
    server: MCPClientServer
    if target.kind == "stdio":
        # Started from a shell, a server expects the shell's environment (the default
        # would pass only a safe subset).
        stdio = {"command": target.command, "args": list(target.args), "env": dict(os.environ)}
        server = MCPServerStdio(stdio, errlog=errlog, **common)
    else:
        http: dict[str, Any] = {"url": target.url, "timeout": timeout}
        if headers:
            http["headers"] = dict(headers)
        kind = MCPServerSse if target.kind == "sse" else MCPServerStreamableHttp
        server = kind(http, **common)
    async with server:
        yield server
