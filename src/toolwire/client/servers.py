"""The ways to reach an MCP server: a child process (stdio), streamable HTTP, legacy SSE, and a
toolwire `Server` in this process (in memory). Each class takes the Agents SDK's parameters, in
its order with its defaults, then toolwire's keyword-only options (docs/client.md)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TextIO

from ..errors import UserError
from .base import MCPClientServer
from .params import (
    MCPServerSseParams,
    MCPServerStdioParams,
    MCPServerStreamableHttpParams,
    check_stdio_params,
)

__all__ = ["MCPServerInMemory", "MCPServerSse", "MCPServerStdio", "MCPServerStreamableHttp"]


class MCPServerStdio(MCPClientServer):
    """A server started as a child process, speaking MCP on its stdin and stdout.

    `params` is an `MCPServerStdioParams` dict: `command`, and optionally `args`, `env`,
    `cwd`, `encoding`, `encoding_error_handler`. The process ends at `cleanup()`.

    Raises:
        TypeError: `params` is not a dict.
        KeyError: It has no `command`.
        ValueError: A key's value has the wrong type (the message names it).
    """

    params: MCPServerStdioParams

    def __init__(self, params: Any, *args: Any, errlog: TextIO | None = None, **kwargs: Any):
        check_stdio_params(params)
        super().__init__(params, *args, **kwargs)
        self.errlog = errlog
        self._children: list[Any] = []  # the child of the latest connection, once started

    def _default_name(self) -> str:
        return f"stdio: {self.params['command']}"

    def _open_client(self) -> AbstractAsyncContextManager[Any]:
        from ._targets import open_stdio

        self._children = []
        return open_stdio(self.params, self._client, self._shown_name, self._children, self.errlog)

    async def _describe_loss(self) -> str:
        if not self._children:
            return ""
        return f" (the server process {await self._children[-1].describe_end()})"

    def _transport_alive(self) -> bool:
        return not self._children or self._children[-1].process.returncode is None

    def _describe_silence(self) -> str:
        junk = self._children[-1].junk if self._children else None
        return f" (the server wrote a line that is not JSON-RPC: {junk!r})" if junk else ""

    @property
    def process_id(self) -> int | None:
        """The server process's id (None before it starts)."""
        return self._children[-1].process.pid if self._children else None


class _OverHttp(MCPClientServer):
    """Adds the per-request header options of the HTTP transports."""

    def __init__(
        self,
        params: Any,
        *args: Any,
        headers_provider: Callable[[], Any] | None = None,
        bearer_token: str | Callable[[], Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(params, *args, **kwargs)
        self.headers_provider = headers_provider
        self.bearer_token = bearer_token


def _signature_with(*extra: tuple[str, str], first: str = "params") -> inspect.Signature:
    # The SDK's parameters in its order, then toolwire's; `*args, **kwargs` in the
    # subclasses only forwards them, and help() and inspect should show the real list.
    base = inspect.signature(MCPClientServer.__init__)
    own, params, *rest = base.parameters.values()
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=kind)
        for name, kind in extra
    ]
    return base.replace(parameters=[own, params.replace(name=first), *rest, *added])


_OverHttp.__init__.__signature__ = _signature_with(  # type: ignore[attr-defined]
    ("headers_provider", "Callable[[], Any] | None"),
    ("bearer_token", "str | Callable[[], Any] | None"),
)
MCPServerStdio.__init__.__signature__ = _signature_with(  # type: ignore[attr-defined]
    ("errlog", "TextIO | None")
)


class MCPServerStreamableHttp(_OverHttp):
    """A server reached over streamable HTTP (`params`: an `MCPServerStreamableHttpParams`)."""

    params: MCPServerStreamableHttpParams
    _session: dict[str, str]

    def _default_name(self) -> str:
        return f"streamable_http: {self.params['url']}"

    def _open_client(self) -> AbstractAsyncContextManager[Any]:
        from ._targets import open_http

        self._session = {}
        return open_http(
            self.params, self._client, self.headers_provider, self.bearer_token, self._session
        )

    def _refusal(self) -> str | None:
        return self._session.get("refused")

    @property
    def session_id(self) -> str | None:
        """The `Mcp-Session-Id` the server gave (None: not connected, or none, as in 2026-07-28)."""
        if self.client is None:
            return None
        return self._session.get("id")


class MCPServerSse(_OverHttp):
    """A server reached over the legacy HTTP+SSE transport (`params`: `MCPServerSseParams`)."""

    params: MCPServerSseParams

    def _default_name(self) -> str:
        return f"sse: {self.params['url']}"

    def _open_client(self) -> AbstractAsyncContextManager[Any]:
        from ._targets import open_sse

        return open_sse(self.params, self._client, self.headers_provider, self.bearer_token)


class MCPServerInMemory(MCPClientServer):
    """A toolwire `Server` in this process, reached in memory: no socket, no subprocess.

    A client adapter like the others, through the same protocol session every transport serves,
    in either era. `connect()` enters the server's lifespan and `cleanup()` exits it, cancelling
    calls still running.

    Example:
        ```python
        async with MCPServerInMemory(server) as client:
            answer = await client.call_tool("add", {"a": 2, "b": 3})
        ```

    Args:
        server: The `toolwire.Server` to serve (anything with its `serving()` and
            `max_message_bytes`).
        *args: The other client classes' parameters, in their order.
        **kwargs: Their keyword options (`protocol_mode`, `on_approval_request`, ...).
    """

    params: Any

    def __init__(self, server: Any, *args: Any, **kwargs: Any) -> None:
        if not callable(getattr(server, "serving", None)):
            raise UserError(
                f"MCPServerInMemory needs a toolwire Server, not {type(server).__name__}: to "
                "reach another kind of server, use MCPServerStdio or MCPServerStreamableHttp."
            )
        super().__init__(server, *args, **kwargs)

    @property
    def server(self) -> Any:
        """The served `toolwire.Server`."""
        return self.params

    def _default_name(self) -> str:
        return f"in-memory: {getattr(self.params, 'name', type(self.params).__name__)}"

    def _open_client(self) -> AbstractAsyncContextManager[Any]:
        from ._targets import memory_transport

        return self._client(memory_transport(self.params))


MCPServerInMemory.__init__.__signature__ = _signature_with(  # type: ignore[attr-defined]
    first="server"
)
