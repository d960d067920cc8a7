"""`Server`: a registry of tools published over MCP, with decorators and `run()`.

This module collects tools and their MCP options (listings: `toolwire.protocol.registry`);
resources are `_resource_api.py`'s, prompts `_prompt_api.py`'s, the bound on worker threads
`_sync_workers.py`'s, the HTTP apps `_network_apps.py`'s, serving (lifespan,
the context tools see) `toolwire.lifespan`'s. A server-side `timeout` applies to sync and
async tools alike, else a FunctionTool's own `timeout_seconds`. `tool` and `add_tool` take
the name and description under MCP's spelling (`name`, `description`) or `function_tool`'s.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ._announcer import Announcer
from ._network_apps import NetworkApps
from ._prompt_api import PromptApi
from ._resource_api import ResourceApi
from ._shared_serving import SharedServing
from ._sync_workers import SyncWorkers
from ._tool_options import one_spelling, renamed
from .errors import UserError
from .lifespan import LifespanError, check_options
from .lifespan import serving as _serving
from .protocol.icons import normalize_icons
from .protocol.registry import (
    RegisteredTool,
    ToolRegistry,
    registered_tool,
)
from .tools.function_tool import FunctionTool, function_tool

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from .protocol.app import OpenSession
    from .protocol.bearer import BearerAuth
    from .protocol.call_context import CallInfo
    from .protocol.serving import SessionOpener

__all__ = ["Server"]

_TRANSPORTS = ("stdio", "http", "sse")
# `tool`'s and `add_tool`'s MCP options, in the order `registered_tool` takes them.
_MCP_OPTIONS = ("title", "annotations", "meta", "output_schema", "timeout", "scopes", "icons")


class Server(NetworkApps, ResourceApi, PromptApi, SyncWorkers):
    """An MCP server publishing `FunctionTool`s.

    Args:
        name: The server's name, sent to clients as `serverInfo.name`.
        version: The server's version (`serverInfo.version`).
        instructions: Guidance for the model on how to use the tools.
        tools: Tools to publish from the start (FunctionTools, agents tools or callables).
        max_sync_workers: Threads that may run sync tools, resource functions and prompts
            at once (see `sync_limiter`).
        max_message_bytes: The largest message accepted on stdio.
        context: What every tool call sees as `ctx.context` (e.g. `{"user": "ada"}`), the
            same object for each call. Tools that want it take a `ToolContext[...]` (or
            `RunContextWrapper[...]`) first parameter, as with the Agents SDK's run context.
        context_factory: Called for each tool call with a `toolwire.CallInfo` (the tool, the
            arguments, the request's `_meta`, the client's info, the lifespan's value as
            `state`); its return value, awaited if it is a coroutine, is that call's
            `ctx.context`. Per call rather than per connection so that it fits every
            transport (HTTP requests carry their own identity). Runs on the event loop: a
            sync factory must be quick. Excludes `context`.
        lifespan: `lifespan(server)` returns an async context manager (for instance an
            `@contextlib.asynccontextmanager` function), entered once when serving starts
            and exited when it ends (stdin EOF, SIGTERM/SIGINT, the parent's exit), whatever
            the transport: the place for shared resources such as a connection pool. What it
            yields becomes `ctx.context` when neither `context` nor `context_factory` is
            given, and is `CallInfo.state` for a factory. If entering it raises, serving
            does not start: the error is logged and `run()` exits with status 1.
        auth: Bearer-token authentication for the HTTP transports: a `toolwire.BearerAuth`
            (verifier, authorization servers, required scopes), or just the verifier, an
            async function `token -> toolwire.Identity | None` (an object with mcp's
            `verify_token(token)` works too). The caller's identity reaches a
            `context_factory` as `CallInfo.identity`, and tools' `scopes=` are enforced
            against it. stdio is never authenticated: there `auth` and `scopes` do nothing.
        icons: Pictures of the server for clients to show (`toolwire.Icon`s or dicts with
            `src`, `mimeType`, `sizes`, `theme`), sent in `serverInfo` from 2025-11-25 on.
        root_path: The directory relative paths given to the server (such as
            `add_directory_resources("docs")`) are resolved against. Default: the directory
            of the module that builds the server, whatever directory a client starts it in.
    """

    def __init__(
        self,
        name: str,
        *,
        version: str | None = None,
        instructions: str | None = None,
        tools: Iterable[Any] = (),
        max_sync_workers: int = 8,
        max_message_bytes: int = 4 * 1024 * 1024,
        context: Any = None,
        context_factory: Callable[[CallInfo], Any] | None = None,
        lifespan: Callable[[Server], AbstractAsyncContextManager[Any]] | None = None,
        auth: BearerAuth | Callable[[str], Any] | Any = None,
        icons: Any = None,
        root_path: str | os.PathLike[str] | None = None,
    ) -> None:
        check_options(context, context_factory, lifespan)
        self.root_path = Path(root_path).resolve() if root_path is not None else _builder_dir()
        self.icons = normalize_icons(icons, f"server {name!r}")
        if auth is not None:
            from .protocol.bearer import bearer_auth

            auth = bearer_auth(auth)
        self.auth: BearerAuth | None = auth
        self.name = name
        self.version = version
        self.instructions = instructions
        self.context = context
        self.context_factory = context_factory
        self.lifespan = lifespan
        SyncWorkers.__init__(self, max_sync_workers)
        self.max_message_bytes = max_message_bytes
        self._registry = ToolRegistry()
        self._registry.listeners.append(self._notify_changed)
        self._announcer = Announcer()
        self._warmed_up = False
        self._shared_serving = SharedServing(lambda: _serving(self), name)
        for tool in tools:
            self.add_tool(tool)

    @property
    def server_info(self) -> dict[str, Any]:
        """`serverInfo` as MCP sends it (icons too: dropped before 2025-11-25)."""
        info: dict[str, Any] = {"name": self.name, "version": self.version or "0.0.0"}
        return {**info, "icons": list(self.icons)} if self.icons else info

    @property
    def tool_registry(self) -> ToolRegistry:
        """The registry behind `tools`, as sessions serve it (see `protocol.app.ServedApp`)."""
        return self._registry

    @property
    def tools(self) -> Mapping[str, RegisteredTool]:
        """The published tools by name (read-only)."""
        return self._registry.view()

    @overload
    def tool(self, func: Callable[..., Any], /) -> FunctionTool: ...

    @overload
    def tool(
        self,
        func: None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
        scopes: str | Iterable[str] | None = None,
        icons: Any = None,
        **function_tool_options: Any,
    ) -> Callable[[Callable[..., Any]], FunctionTool]: ...

    def tool(
        self, func: Callable[..., Any] | None = None, /, **options: Any
    ) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
        """Publish a function as a tool; works bare (`@server.tool`) or with options.

        The options, typed in the overloads above, are the keyword arguments below.

        Args:
            func: The function (when used bare).
            name: The tool's name (default: the function's name); the same option as
                `function_tool`'s `name_override`, of which only one may be given.
            description: The tool's description (default: from the docstring); the same
                option as `description_override`, of which only one may be given.
            title: A human-readable name shown by clients.
            annotations: MCP hints: readOnlyHint, destructiveHint, idempotentHint,
                openWorldHint (and title).
            meta: `_meta` sent with the tool listing.
            output_schema: The JSON schema of structured results; inferred from the return
                annotation when omitted (non-object results are wrapped as {"result": ...}).
            timeout: Seconds after which the call is answered with a timeout error, for sync
                and async functions alike (a sync function's thread is abandoned).
            scopes: OAuth scopes a caller's token must grant to call the tool (a list, or one
                space-separated string). Enforced only with `Server(auth=...)` over HTTP: a
                caller lacking one gets 403 `insufficient_scope` naming what to request
                (the MCP step-up flow). The tool is listed to every caller. stdio has no
                tokens, so scopes are not enforced there.
            icons: Pictures of the tool (`toolwire.Icon`s or dicts), listed from 2025-11-25.
            **function_tool_options: Any option of `function_tool` (name_override, strict_mode,
                failure_error_function, ...).

        Returns:
            The `FunctionTool`, so the decorated name stays usable.

        Raises:
            TypeError: Both spellings of the name, or of the description, were given.
        """
        name, description = options.pop("name", None), options.pop("description", None)
        mcp_options = [options.pop(option, None) for option in _MCP_OPTIONS]
        built_with = one_spelling("tool", options, name, description)

        def register(the_func: Callable[..., Any]) -> FunctionTool:
            built = function_tool(the_func, **built_with)
            self._register(built, *mcp_options)
            return built

        if func is not None:
            return register(func)
        return register

    def add_tool(
        self,
        tool: Any,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
        scopes: str | Iterable[str] | None = None,
        icons: Any = None,
        **function_tool_options: Any,
    ) -> FunctionTool:
        """Publish a toolwire `FunctionTool`, an `agents.FunctionTool`, or a plain callable.

        Connected clients are told (`notifications/tools/list_changed`: directly in the
        handshake era, on their `subscriptions/listen` streams in the 2026-07-28 era), also
        when a sync tool calls this from its worker thread.

        Args:
            tool: The tool, or a function to wrap with `function_tool`.
            name: Publish the tool under this name (a tool object is copied, not renamed);
                `name_override` is accepted as the same option.
            description: Publish the tool with this description (`description_override` is
                accepted as the same option).
            title: A human-readable name shown by clients.
            annotations: MCP hints (readOnlyHint, destructiveHint, idempotentHint,
                openWorldHint, title).
            meta: `_meta` sent with the tool listing.
            output_schema: The JSON schema of structured results (see `Server.tool`).
            timeout: Seconds after which the call is answered with a timeout error.
            scopes: OAuth scopes a caller must hold to call the tool (see `Server.tool`).
            icons: Pictures of the tool for clients to show (see `Server.tool`).
            **function_tool_options: Options of `function_tool`, when `tool` is a plain
                callable that add_tool wraps.

        Returns:
            The published `FunctionTool`.

        Raises:
            UserError: A tool with the same name is already published.
            TypeError: Both spellings of the name or of the description were given, or
                `function_tool` options came with a tool that is already built.
        """
        options = one_spelling("add_tool", function_tool_options, name, description)
        module = type(tool).__module__
        if isinstance(tool, FunctionTool) or module == "agents" or module.startswith("agents."):
            built = tool if isinstance(tool, FunctionTool) else FunctionTool.from_agents(tool)
            built = renamed(built, options)
        elif callable(tool):
            built = function_tool(tool, **options)
        else:
            raise TypeError(
                "add_tool() takes a FunctionTool, an agents.FunctionTool or a callable, "
                f"not {type(tool).__name__}"
            )
        self._register(built, title, annotations, meta, output_schema, timeout, scopes, icons)
        return built

    def remove_tool(self, name: str) -> None:
        """Stop publishing a tool; connected clients are told, as for `add_tool`.

        Raises:
            KeyError: No tool has that name.
        """
        self._registry.remove(name)

    def _register(self, tool: FunctionTool, *mcp_options: Any) -> None:
        """Publish `tool` with its MCP options, in `registered_tool`'s order."""
        if tool.name in self._registry:
            raise UserError(f"Server {self.name!r} already has a tool named {tool.name!r}")
        self._registry.add(registered_tool(tool, *mcp_options))

    def _warm_up(self) -> None:
        """Once, after the first listing: build in the background what first calls need."""
        if self._warmed_up:
            return
        self._warmed_up = True
        from .tools.warmup import warm_up_in_background

        warm_up_in_background([entry.tool for entry in self._registry.values()])

    def tools_listed(self) -> None:
        """Sessions call this after sending a tool list: calls come next (warm-up hook)."""
        self._warm_up()

    def session_opened(self, session: OpenSession) -> None:
        """Sessions call this on entry: they are told of changes until they close."""
        self._announcer.opened(session)

    def session_closed(self, session: OpenSession) -> None:
        """Sessions call this on exit."""
        self._announcer.closed(session)

    def _notify_changed(self) -> None:
        self._announcer.tell(_tools_changed)

    def serving(self) -> AbstractAsyncContextManager[SessionOpener]:
        """Serve within this: the lifespan is entered on the way in and exited on the way out.

        For transports (and applications embedding the server in their own event loop):
        every session opened with the callable it yields gives its tools the configured
        `ctx.context`. `run()` does this for you. Entries made on one event loop while
        serving is held there share it (an app serving `http_app()` and `sse_app()` side by
        side enters the lifespan once); the first entry's exit ends the lifespan.

        Returns:
            An async context manager yielding `open_session(send)`, which makes a
            `ServerSession` writing its messages with `send`.

        Raises:
            toolwire.lifespan.LifespanError: On entry, when the lifespan failed (logged).
        """
        return self._shared_serving()

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve until the client goes away (stdio: stdin EOF, SIGTERM/SIGINT, parent exit),
        or until SIGINT/SIGTERM (HTTP).

        Args:
            transport: "stdio", "http" (streamable HTTP under uvicorn) or "sse" (the legacy
                HTTP+SSE transport under uvicorn).
            **options: Transport options. stdio: `max_message_bytes`, `shutdown_grace` (the
                seconds calls in flight get to reply after stdin EOF, 2 by default). http:
                `host` ("127.0.0.1"), `port` (8000; 0: any free port), `workers` (1),
                `access_log` (False: one line per request on stderr when True),
                `shutdown_grace` (5: after SIGTERM/SIGINT, the seconds calls in flight get
                to be answered before they are refused with a JSON-RPC error), and every
                option of `http_app`. sse: the same but `workers`, and every option of
                `sse_app`. Once listening, one line on stderr says where MCP is served.
                `workers=N` serves from N uvicorn worker processes sharing the port, each
                importing the server anew: define it at module level and call `run()` under
                `if __name__ == "__main__":`; options must then be plain values (a Redis
                `backplane` as its URL). Without `stateless=True` or a backplane each worker
                keeps its own sessions (a warning says so).

        Raises:
            ValueError: An unknown transport, `workers` with another transport than "http",
                `header_timeout` (removed: see docs/deployment.md), or a server or option
                that worker processes cannot rebuild (the message says which and what to
                change).
            SystemExit: With status 1 when the lifespan failed on start-up (the error is
                logged on the `toolwire` logger first).
        """
        if transport not in _TRANSPORTS:
            raise ValueError(
                f"unknown transport {transport!r}; available: {', '.join(_TRANSPORTS)}"
            )
        if "header_timeout" in options and transport != "stdio":
            from .transports.http.run import HEADER_TIMEOUT_GONE

            raise ValueError(f"header_timeout {HEADER_TIMEOUT_GONE}")
        if transport == "http":
            self._run_http(**options)
            return
        if options.get("workers", 1) != 1:
            raise ValueError(
                f"workers= needs transport 'http', not {transport!r}: the legacy SSE "
                "transport and stdio are served by one process"
            )
        options.pop("workers", None)
        if transport == "sse":
            self._run_sse(**options)
            return
        from .transports.stdio import run_stdio

        try:
            run_stdio(self, **options)
        except LifespanError:
            raise SystemExit(1) from None


async def _tools_changed(session: OpenSession) -> None:
    await session.tools_changed()


def _builder_dir() -> Path:
    """The directory of the module whose code is building a `Server` (toolwire's own frames,
    a subclass's included when it lives in toolwire, are skipped); the working directory
    when that module has no file (a REPL, `python -c`)."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            module = str(frame.f_globals.get("__name__", ""))
            if module != "toolwire" and not module.startswith("toolwire."):
                break
            frame = frame.f_back
        file = frame.f_globals.get("__file__") if frame is not None else None
    finally:
        del frame
    return Path(file).resolve().parent if isinstance(file, str) else Path.cwd()
