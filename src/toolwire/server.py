"""`Server`: what an MCP server publishes (tools, resources, prompts) and the ways to serve it.

One class over the parts it owns (the registries, the open sessions it tells of changes, the
bound on worker threads, its lifespan held open once per event loop however many apps serve
it); the resource and prompt registries and the HTTP apps are imported only when used, so
`import toolwire` and stdio load no web stack. A lifespan failing on entry is logged and raises
`LifespanError`; its exit runs shielded from cancellation, and an exit that raises is logged.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from .errors import UserError, check_count, check_flag
from .lifespan import LifespanError
from .protocol.features.registry import (
    RegisteredTool,
    ToolRegistry,
    registered_tool,
)
from .protocol.session.call_context import NO_CONTEXT, ContextSource
from .protocol.session.serving import SessionOpener
from .protocol.wire.icons import normalize_icons
from .tools.function_tool import FunctionTool, function_tool

if TYPE_CHECKING:
    import asyncio

    import anyio

    from .protocol.auth.bearer import BearerAuth
    from .protocol.features.prompt_registry import PromptRegistry
    from .protocol.features.resource_files import DirectoryResources
    from .protocol.features.resource_registry import ResourceRegistry
    from .protocol.session.app import OpenSession
    from .protocol.session.call_context import CallInfo
    from .tools.threads import SyncBudget
    from .transports.http.changes import ChangeBus
    from .transports.http.sse.app import LegacySseApp
    from .transports.http.streamable.app import StreamableHttpApp
    from .transports.http.streamable.events import EventStore
    from .transports.http.streamable.records import SessionStore

__all__ = ["Server"]

logger = logging.getLogger("toolwire")

F = TypeVar("F", bound=Callable[..., Any])
H = TypeVar("H", bound=Callable[[str], Any])

_TRANSPORTS = ("stdio", "http", "sse")
_START = " did not start: its lifespan failed"
# MCP users spell these `name` / `description`; function_tool (the Agents SDK) adds `_override`.
_SPELLINGS = (("name", "name_override"), ("description", "description_override"))

SESSION_END_BOUND_SECONDS = 5.0
"""Seconds one session's `on_session_end` hooks may run together (then an async one is
cancelled, a sync one left to finish)."""

# What to tell one open session of a change: given the session, the coroutine that tells it.
Message = Callable[["OpenSession"], Coroutine[Any, Any, Any]]


class Server:
    """An MCP server publishing `FunctionTool`s.

    What a `lifespan` yields is `ctx.context` when neither `context` nor `context_factory` is
    given, else `CallInfo.state`; if entering it raises, `run()` logs it and exits with status
    1 (docs/server.md, "Contexts and lifespans").

    Args:
        name: The server's name, sent to clients as `serverInfo.name`.
        version: The server's version (`serverInfo.version`).
        instructions: Guidance for the model on how to use the tools.
        tools: Tools to publish from the start (FunctionTools, agents tools or callables).
        max_sync_workers: Threads that may run sync tools, resources and prompts at once.
        max_message_bytes: The largest message accepted on stdio.
        context: What every tool call sees as `ctx.context`, the same object for each call.
        context_factory: Makes each call's `ctx.context` from a `toolwire.CallInfo`, on the
            event loop (awaited if async). Excludes `context`.
        lifespan: `lifespan(server)` returns an async context manager held open while serving.
        auth: Bearer authentication over HTTP: a `toolwire.BearerAuth`, or its verifier, an
            async `token -> toolwire.Identity | None` (or an object with `verify_token`).
        icons: Pictures of the server (`toolwire.Icon`s or dicts), sent from 2025-11-25 on.
        root_path: What relative paths are resolved against (default: the directory of the
            module that builds the server).

    Raises:
        TypeError: `name` is not a string, `version` or `instructions` neither a string nor
            None, `tools` not a list, `root_path` not a path, or a serving option cannot
            work (both `context` and `context_factory`, a factory that cannot take a
            `CallInfo`, a lifespan that is not callable).
        ValueError: `max_sync_workers` or `max_message_bytes` is not an integer >= 1.
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
        if not isinstance(name, str):
            raise TypeError(f"Server name must be a string, not {type(name).__name__}")
        _check_text("version", version)
        _check_text("instructions", instructions)
        if isinstance(tools, str | bytes) or not isinstance(tools, Iterable):
            raise TypeError(f"tools must be a list of tools, not {type(tools).__name__}")
        check_count("max_sync_workers", max_sync_workers)
        check_count("max_message_bytes", max_message_bytes)
        _check_options(context, context_factory, lifespan)
        if root_path is not None and not isinstance(root_path, str | os.PathLike):
            raise TypeError(f"root_path must be a path, not {type(root_path).__name__}")
        self.root_path = Path(root_path).resolve() if root_path is not None else _builder_dir()
        self.icons = normalize_icons(icons, f"server {name!r}")
        if auth is not None:
            from .protocol.auth.bearer import bearer_auth

            auth = bearer_auth(auth)
        self.auth: BearerAuth | None = auth
        self.name = name
        self.version = version
        self.instructions = instructions
        self.context = context
        self.context_factory = context_factory
        self.lifespan = lifespan
        self.max_sync_workers = max_sync_workers
        self.max_message_bytes = max_message_bytes
        self.completion_handler: Callable[..., Any] | None = None
        self._sessions: set[OpenSession] = set()
        self._registry = ToolRegistry()
        self._registry.listeners.append(partial(self._tell, methodcaller("list_changed", "tools")))
        self._resources: ResourceRegistry | None = None  # made on first use, as prompts are
        self._prompts: PromptRegistry | None = None
        self._session_end_hooks: list[Callable[[str], Any]] = []
        self._limiter: SyncBudget | anyio.CapacityLimiter | None = None
        self._limiter_loop: object = None
        self._warmed_up = False
        # The serving held, on its future's loop: its opener, or None if the start-up failed.
        self._held: asyncio.Future[SessionOpener | None] | None = None
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

        Args:
            func: The function (when used bare).
            name: The tool's name (default: the function's); the MCP spelling of `name_override`.
            description: Its description (default: the docstring's); `description_override`.
            title: A human-readable name shown by clients.
            annotations: MCP hints (readOnlyHint, destructiveHint, idempotentHint, ...).
            meta: `_meta` sent with the tool listing.
            output_schema: The JSON schema of structured results (default: from the return type).
            timeout: Seconds after which the call gets a timeout error (a sync body is left).
            scopes: OAuth scopes (a list or one space-separated string) a caller's token must
                grant; enforced only with `Server(auth=...)` over HTTP.
            icons: Pictures of the tool (`toolwire.Icon`s or dicts), listed from 2025-11-25.
            **function_tool_options: Any option of `function_tool`.

        Returns:
            The `FunctionTool`, so the decorated name stays usable.

        Raises:
            TypeError: Both spellings of the name, or of the description, were given, or
                either is not a string.
            ValueError: The name is empty.
        """
        name, description = options.pop("name", None), options.pop("description", None)
        _one_spelling("tool", options, name, description)

        def register(the_func: Callable[..., Any]) -> FunctionTool:
            if not callable(the_func):
                raise TypeError(f"tool() takes a function, not {type(the_func).__name__}")
            return self.add_tool(the_func, **options)

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

        Takes the options of `tool`; a tool object given a `name` or `description` is copied,
        not renamed, and `function_tool` options apply to a plain callable only. Connected
        clients are told (`notifications/tools/list_changed`), from any thread.

        Args:
            tool: The tool, or a function to wrap with `function_tool`.

        Returns:
            The published `FunctionTool`.

        Raises:
            UserError: A tool with the same name is already published.
            TypeError: The name or description is not a string, both spellings of the name
                or of the description were given, or `function_tool` options came with a tool
                that is already built.
            ValueError: The name is empty.
        """
        options = _one_spelling("add_tool", function_tool_options, name, description)
        module = type(tool).__module__
        if isinstance(tool, FunctionTool) or module == "agents" or module.startswith("agents."):
            built = tool if isinstance(tool, FunctionTool) else FunctionTool.from_agents(tool)
            built = _renamed(built, options)
        elif callable(tool):
            built = function_tool(tool, **options)
        else:
            raise TypeError(
                "add_tool() takes a FunctionTool, an agents.FunctionTool or a callable, "
                f"not {type(tool).__name__}"
            )
        if not isinstance(built.name, str):
            raise TypeError(f"a tool's name must be a string, not {built.name!r}")
        if built.name in self._registry:
            raise UserError(f"Server {self.name!r} already has a tool named {built.name!r}")
        mcp_options = (title, annotations, meta, output_schema, timeout, scopes, icons)
        self._registry.add(registered_tool(built, *mcp_options))
        return built

    def remove_tool(self, name: str) -> None:
        """Stop publishing a tool; connected clients are told, as for `add_tool`.

        Raises:
            KeyError: No tool has that name.
        """
        self._registry.remove(name)

    def tools_listed(self) -> None:
        """Sessions call this after sending a tool list: the first time, warm up for calls."""
        if self._warmed_up:
            return
        self._warmed_up = True
        from .tools.invoke import warm_up_in_background

        warm_up_in_background([entry.tool for entry in self._registry.values()])

    def session_opened(self, session: OpenSession) -> None:
        """Sessions call this on entry: they are told of changes until they close."""
        self._sessions.add(session)

    def session_closed(self, session: OpenSession) -> None:
        """Sessions call this on exit."""
        self._sessions.discard(session)

    def _tell(self, message: Message) -> None:
        """Have every open session run `message(session)` soon, on its own event loop."""
        import asyncio  # here: importing toolwire.server need not load asyncio

        try:
            running: object = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for session in list(self._sessions):
            loop = session.loop
            if loop is None or loop is running:
                _start(session, message)
                continue
            # Through a task on that loop: from a bare loop callback, anyio cannot tell which
            # event loop it is on and refuses to start anything.
            hop = _hop(session, message)
            try:
                asyncio.run_coroutine_threadsafe(hop, loop)
            except RuntimeError:  # that loop is closed: the session is gone
                hop.close()
                logger.debug("a change came after a session's event loop closed")

    async def session_ended(self, session_id: str) -> None:
        """Sessions with an id call this once closed: runs the `on_session_end` hooks together,
        shielded and within `SESSION_END_BOUND_SECONDS`; never raises."""
        if not self._session_end_hooks:
            return
        import anyio

        with anyio.move_on_after(SESSION_END_BOUND_SECONDS, shield=True) as scope:
            async with anyio.create_task_group() as group:
                for hook in self._session_end_hooks:
                    group.start_soon(_end_hook, hook, session_id)
        if scope.cancelled_caught:
            logger.warning(
                "session %s: the on_session_end hooks did not finish within %g seconds; "
                "left running",
                session_id,
                SESSION_END_BOUND_SECONDS,
            )

    def on_session_end(self, func: H) -> H:
        """Call `func(session_id)` when this process stops serving a session with an id.

        The id is the `ctx.session_id` its calls saw. Usable as a decorator, several times;
        `func` may be async (a sync one runs in a worker thread). A session's hooks run together
        once its calls are over, within 5 seconds altogether; one that raises is logged
        (docs/server.md, "MCP sessions and their end").

        Args:
            func: Takes the session id (a string).

        Returns:
            `func`, unchanged.

        Raises:
            TypeError: `func` is not callable.
        """
        if not callable(func):
            raise TypeError(
                f"on_session_end takes a function of the session id, not {type(func).__name__}"
            )
        self._session_end_hooks.append(func)
        return func

    @property
    def resource_registry(self) -> ResourceRegistry:
        """The published resources and templates, as sessions serve them."""
        registry = self._resources
        if registry is None:  # made on first use: a server without resources never loads them
            from .protocol.features.resource_registry import ResourceRegistry

            registry = self._resources = ResourceRegistry()
            registry.listeners.append(
                partial(self._tell, methodcaller("list_changed", "resources"))
            )
            registry.update_listeners.append(
                lambda uri: self._tell(methodcaller("resource_updated", uri))
            )
        return registry

    def resource(
        self,
        uri: str,
        *,
        mime_type: str | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        size: int | None = None,
        annotations: Mapping[str, Any] | None = None,
        icons: Iterable[Mapping[str, Any]] | None = None,
        meta: Mapping[str, Any] | None = None,
        completers: Mapping[str, Callable[..., Any]] | None = None,
    ) -> Callable[[F], F]:
        """Publish a function as a resource, or as a template when `uri` has `{name}` variables.

        A template's variables are the function's arguments: `{+path}` may span `/`, `{?a,b}`
        names optional query parameters.

        Args:
            uri: The resource's URI (`config://app`) or template (`users://{user_id}/profile`).
            mime_type: The contents' MIME type (default: text/plain for `str`,
                application/octet-stream for `bytes`, else application/json).
            name: The name clients show (default: the function's name).
            title: A human-readable title.
            description: What the resource holds (default: the function's docstring).
            size: The size in bytes, if known (fixed resources).
            annotations: MCP annotations (`audience`, `priority`, `lastModified`).
            icons: Pictures for clients (`toolwire.Icon`s or dicts).
            meta: `_meta` sent with the listing.
            completers: For templates, variable name -> completer for `completion/complete`.

        Returns:
            A decorator returning the function unchanged.

        Raises:
            ValueError: The template is malformed, the function's parameters do not fit it,
                or the URI is published already.
            toolwire.UserError: `icons` is not a list of well-formed icons (the message says
                which and why).
        """

        def register(func: F) -> F:
            self.add_resource(
                uri,
                func,
                name=name,
                title=title,
                description=description,
                mime_type=mime_type,
                size=size,
                annotations=annotations,
                icons=icons,
                meta=meta,
                completers=completers,
            )
            return func

        return register

    def add_resource(
        self,
        uri: str,
        source: Callable[..., Any] | str | bytes,
        *,
        mime_type: str | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        size: int | None = None,
        annotations: Mapping[str, Any] | None = None,
        icons: Iterable[Mapping[str, Any]] | None = None,
        meta: Mapping[str, Any] | None = None,
        completers: Mapping[str, Callable[..., Any]] | None = None,
    ) -> None:
        """Publish a resource or template, as `resource` does; `source` may also be fixed
        text or bytes (then `name` defaults to the URI).

        Raises:
            ValueError: As `resource`.
            TypeError: `source` is neither a function, text nor bytes.
            toolwire.UserError: As `resource`.
        """
        from .protocol.features.resource_reading import registered_resource

        entry = registered_resource(
            uri,
            source,
            mime_type=mime_type,
            name=name,
            title=title,
            description=description,
            size=size,
            annotations=annotations,
            icons=icons,
            meta=meta,
            completers=completers,
        )
        self.resource_registry.add(entry)

    def add_directory_resources(
        self,
        root: str | Path,
        uri_prefix: str = "file:///",
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        max_listed: int = 1000,
        max_bytes: int = 16 * 1024 * 1024,
        include_hidden: bool = False,
    ) -> DirectoryResources:
        """Serve the files under `root`, read-only, as resources under `uri_prefix`.

        `uri_prefix + "notes/todo.md"` reads `root/notes/todo.md`; text files are sent as text,
        others as blobs. A path leaving `root` (`..`, absolute, a link pointing out) or a file
        over `max_bytes` gets the resource-not-found error (docs/security.md).

        Args:
            root: The directory (it must exist); relative to the server's `root_path`.
            uri_prefix: What the URIs start with; it must end with `/`.
            name: The template's name (default: the directory's name).
            title: A human-readable title.
            description: What the files are.
            mime_type: One MIME type for every file (default: guessed from each name).
            max_listed: How many files `resources/list` shows at most (all stay readable).
            max_bytes: The largest file served.
            include_hidden: Serve and list names starting with `.` too.

        Returns:
            The `DirectoryResources` serving it (its `template` is what was published).

        Raises:
            ValueError: `root` is not a directory, the prefix is unusable, or `max_listed` or
                `max_bytes` is not an integer >= 0.
            TypeError: `root` is not a path, or `include_hidden` is not True or False.
            toolwire.UserError: `name`, `title`, `description` or `mime_type` is not a string.
        """
        from .protocol.features.resource_files import DirectoryResources

        if not isinstance(root, str | os.PathLike):
            raise TypeError(f"root must be a path, not {type(root).__name__}")
        check_count("max_listed", max_listed, 0)
        check_count("max_bytes", max_bytes, 0)
        check_flag("include_hidden", include_hidden)
        directory = DirectoryResources(
            self.root_path / Path(root),
            uri_prefix,
            mime_type=mime_type,
            max_listed=max_listed,
            max_bytes=max_bytes,
            include_hidden=include_hidden,
        )
        self.resource_registry.add(directory.published(name, title, description))
        return directory

    def remove_resource(self, uri: str) -> None:
        """Stop publishing the resource (or template) `uri`; connected clients are told.

        Raises:
            KeyError: Nothing is published under it.
        """
        self.resource_registry.remove(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Tell the clients following `uri` (subscribed, or listening in 2026-07-28) it changed."""
        self.resource_registry.updated(uri)

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """Read a published resource as a client would: its `contents` items.

        Raises:
            toolwire.protocol.wire.jsonrpc.ProtocolError: What `resources/read` would answer
                (not found, invalid template values, the function failed).
        """
        from .protocol.features.resources import read_contents

        return await read_contents(self, uri, None)

    @property
    def prompt_registry(self) -> PromptRegistry:
        """The published prompts, as sessions serve them (see `protocol.app.ServedApp`)."""
        registry = self._prompts
        if registry is None:  # made on first use: a server without prompts never loads them
            from .protocol.features.prompt_registry import PromptRegistry

            registry = self._prompts = PromptRegistry()
            registry.listeners.append(partial(self._tell, methodcaller("list_changed", "prompts")))
        return registry

    @property
    def prompts(self) -> Mapping[str, Any]:
        """The published prompts by name (read-only)."""
        return self.prompt_registry

    @overload
    def prompt(self, func: F, /) -> F: ...

    @overload
    def prompt(
        self,
        func: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        completers: Mapping[str, Any] | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(self, func: F | None = None, /, **options: Any) -> F | Callable[[F], F]:
        """Publish a function as a prompt; works bare (`@server.prompt`) or with options.

        The function's parameters are the prompt's arguments (required unless defaulted); it
        returns a string, a `toolwire.PromptMessage` or a list of them, and may be async. A
        first parameter annotated `ToolContext` receives the request's context. Takes the
        options of `add_prompt`, listed below.

        Args:
            func: The function (when used bare).
            name: The prompt's name (default: the function's name).
            title: A human-readable name shown by clients.
            description: What the prompt is for (default: from the docstring).
            icons: Pictures for clients to show (`toolwire.Icon`s or dicts).
            meta: `_meta` sent with the prompt listing.
            completers: Argument name -> a list of choices, or `(value, context_arguments)`
                returning suggestions, for `completion/complete`.

        Returns:
            The function itself, unchanged.

        Raises:
            UserError: A prompt of that name exists, the function cannot be a prompt, or
                an option is malformed (the message names which).
        """

        def register(the_func: F) -> F:
            self.add_prompt(the_func, **options)
            return the_func

        if func is not None:
            return register(func)
        return register

    def add_prompt(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        completers: Mapping[str, Any] | None = None,
    ) -> None:
        """Publish a function as a prompt (the options of `prompt`); connected clients are told.

        Raises:
            UserError: As for `prompt`.
        """
        from .protocol.features.prompt_registry import registered_prompt

        entry = registered_prompt(
            func,
            name=name,
            title=title,
            description=description,
            icons=icons,
            meta=meta,
            completers=completers,
        )
        self.prompt_registry.add(entry)

    def remove_prompt(self, name: str) -> None:
        """Stop publishing a prompt; connected clients are told.

        Raises:
            KeyError: No prompt has that name.
        """
        self.prompt_registry.remove(name)

    def completion(self, func: F, /) -> F:
        """Use `func` for `completion/complete` requests no declared completer answers.

        `func(ref, argument, value, context_arguments)`, sync or async, gets the request's `ref`,
        the argument's name, what was typed so far and the arguments already settled; it returns
        suggestions (an iterable of strings) or None.

        Returns:
            The function itself, unchanged.

        Raises:
            UserError: `func` is not callable.
        """
        if not callable(func):
            raise UserError(f"completion handler must be a function, not {type(func).__name__}")
        self.completion_handler = func
        return func

    @property
    def sync_limiter(self) -> SyncBudget | anyio.CapacityLimiter:
        """Bounds, at `max_sync_workers`, the threads running sync functions for clients.

        One per event loop: a `SyncBudget` on asyncio (it counts bodies left running after
        their timeout too), an `anyio.CapacityLimiter` on trio.
        """
        import asyncio

        try:
            loop: object = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self._limiter is None or self._limiter_loop is not loop:
            if loop is not None:
                from .tools.threads import SyncBudget

                self._limiter = SyncBudget(self.max_sync_workers)
            else:
                import anyio

                self._limiter = anyio.CapacityLimiter(self.max_sync_workers)
            self._limiter_loop = loop
        return self._limiter

    def http_app(
        self,
        path: str = "/mcp",
        *,
        stateless: bool = False,
        json_response: bool = False,
        resumable: bool = True,
        event_store: EventStore | None = None,
        retry_ms: int | None = 1000,
        session_idle_timeout: float | None = 1800.0,
        max_sessions: int = 10_000,
        max_body_bytes: int | None = None,
        max_event_bytes: int | None = 16 * 1024 * 1024,
        keepalive_seconds: float | None = 15.0,
        session_store: SessionStore | None = None,
        allowed_hosts: Sequence[str] | None = None,
        allowed_origins: Sequence[str] | None = None,
        auth: Any = None,
        host: str | None = None,
        change_bus: ChangeBus | None = None,
        backplane: Any = None,
    ) -> StreamableHttpApp:
        """This server as an ASGI app speaking MCP's streamable HTTP transport on `path`.

        A parent app mounting it forwards its lifespan (`lifespan=app.lifespan`; docs/deployment.md,
        "Mounting"). Beside `sse_app()`, both share one serving: the lifespan runs once.

        Args:
            path: Where MCP is served.
            stateless: No sessions: each POST stands alone, GET/DELETE get 405, tools cannot
                ask the client anything.
            json_response: Answer with one JSON body, not an SSE stream (then nothing reaches
                the client during a call).
            resumable: Keep SSE events with ids (sessions only), to resume with `Last-Event-ID`.
            event_store: Where those events are kept (default: in memory, bounded).
            retry_ms: The reconnection delay suggested to clients (None: no suggestion).
            session_idle_timeout: Seconds after which an idle session ends (None: never).
            max_sessions: Sessions held at once; past it, opening or rebuilding one gets 503.
            max_body_bytes: The largest request body (413 beyond); default `max_message_bytes`.
            max_event_bytes: The largest message sent (None: no bound); a reply over it becomes
                a JSON-RPC error, a notification is dropped.
            keepalive_seconds: Seconds of SSE silence before a keep-alive comment (None: never).
            session_store: Where session records are kept (default: this process's memory).
            allowed_hosts: `Host` values answered, others 421 (default: loopback names, any
                port, and `host`); `"name"` any port, `"name:port"` that one, `"*"` no check.
            allowed_origins: `Origin`s allowed besides the request's own host, others 403
                (default: the loopback origins; `["*"]`: no check).
            auth: Bearer authentication for this app (default: the server's `auth`).
            host: The interface served on (`run()` passes it); a concrete one joins the hosts.
            change_bus: Carries changes, session ends and client answers between the processes
                serving the URL (default: none).
            backplane: A `toolwire.redis.RedisBackplane` or its URL, supplying the three stores
                (docs/deployment.md, "Redis"). Excludes `session_store`, `event_store` and
                `change_bus`.

        Returns:
            A Starlette app.

        Raises:
            ValueError: An option is out of range or of the wrong kind, or `backplane` came
                with one of the stores it supplies (the message says which).
            TypeError: `stateless`, `json_response` or `resumable` is not True or False.
        """
        from .protocol.auth.bearer import bearer_auth
        from .transports.http._served_app import Guards
        from .transports.http.streamable.app import streamable_http_app

        if host is not None and not isinstance(host, str):
            raise ValueError(f"host must be a string or None, not {type(host).__name__}")

        check_flag("stateless", stateless)
        check_flag("json_response", json_response)
        check_flag("resumable", resumable)
        stores: dict[str, Any] = {
            "session_store": session_store,
            "event_store": event_store,
            "change_bus": change_bus,
        }
        if backplane is not None:
            if any(store is not None for store in stores.values()):
                raise ValueError(
                    "http_app() got backplane= and session_store=, event_store= or change_bus=: "
                    "the backplane supplies all three; pass one or the others"
                )
            if isinstance(backplane, str):
                from .redis import RedisBackplane

                backplane = RedisBackplane(backplane)
            elif not callable(getattr(backplane, "app_options", None)):
                raise ValueError(
                    "backplane must be a toolwire.redis.RedisBackplane or its URL, not "
                    f"{type(backplane).__name__}"
                )
            stores = backplane.app_options()
        return streamable_http_app(
            self,
            path=path,
            stateless=stateless,
            json_response=json_response,
            resumable=resumable,
            retry_ms=retry_ms,
            session_idle_timeout=session_idle_timeout,
            max_sessions=max_sessions,
            max_body_bytes=max_body_bytes,
            max_event_bytes=max_event_bytes,
            keepalive_seconds=keepalive_seconds,
            guards=Guards(
                allowed_hosts,
                allowed_origins,
                self.auth if auth is None else bearer_auth(auth),
                host,
                path,
                self._registry,
            ),
            **stores,
        )

    def sse_app(
        self,
        *,
        sse_path: str = "/sse",
        message_path: str = "/messages/",
        max_sessions: int = 1000,
        keepalive_seconds: float = 15.0,
        max_body_bytes: int | None = None,
        max_event_bytes: int | None = 16 * 1024 * 1024,
        allowed_hosts: Sequence[str] | None = None,
        allowed_origins: Sequence[str] | None = None,
    ) -> LegacySseApp:
        """A Starlette app serving the tools over MCP's legacy HTTP+SSE transport (2024-11-05).

        A client opens `GET sse_path`, whose first event names where it POSTs its messages;
        the stream is the session. Mounting is as for `http_app()`.

        Args:
            sse_path: Where clients open their event stream.
            message_path: Where clients POST their messages.
            max_sessions: Streams open at once beyond which a new one is refused (503).
            keepalive_seconds: Seconds of silence on a stream before a keep-alive comment.
            max_body_bytes: The largest POST body (413 beyond); default `max_message_bytes`.
            max_event_bytes: The largest event sent (None: no bound); as for `http_app()`.
            allowed_hosts: `Host` values accepted (as for `http_app()`).
            allowed_origins: `Origin` values accepted (as for `http_app()`).

        Returns:
            The app, for uvicorn or to mount in a Starlette/FastAPI app.
        """
        from .transports.http._served_app import Guards
        from .transports.http.sse.app import LegacySseApp

        guards = Guards(
            allowed_hosts, allowed_origins, self.auth, path=sse_path, tools=self._registry
        )
        return LegacySseApp(
            self,
            sse_path=sse_path,
            message_path=message_path,
            max_sessions=max_sessions,
            keepalive_seconds=keepalive_seconds,
            max_body_bytes=max_body_bytes,
            guards=guards,
            max_event_bytes=max_event_bytes,
        )

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[SessionOpener]:
        """Serve within this: the lifespan is entered on the way in and exited on the way out.

        For transports and applications embedding the server in their own event loop. Entries
        on one loop while serving is held there wait for its start-up and share it; the first
        entry's exit ends it. Another event loop gets a serving of its own.

        Returns:
            An async context manager yielding `open_session(send)`, a `ServerSession` maker.

        Raises:
            toolwire.lifespan.LifespanError: On entry, when the lifespan failed (logged), this
                entry's or the one it would have shared.
        """
        import asyncio

        loop = asyncio.get_running_loop()
        held = self._held
        if held is not None and held.get_loop() is loop:
            opener = await asyncio.shield(held)
            if opener is None:
                raise LifespanError(f"server {self.name!r}{_START} (logged above)")
            yield opener
            return
        held = loop.create_future()
        if self._held is None:  # else held on another loop: serve apart, unshared
            self._held = held
        try:
            async with _lifespan_held(self) as opener:
                held.set_result(opener)
                try:
                    yield opener
                finally:
                    # Before the lifespan's exit: an entry made meanwhile starts afresh
                    # rather than share what is closing.
                    self._let_go(held)
        finally:
            if not held.done():
                held.set_result(None)
            self._let_go(held)

    def _let_go(self, held: asyncio.Future[SessionOpener | None]) -> None:
        if self._held is held:
            self._held = None

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve until SIGINT/SIGTERM or, on stdio, until stdin's end or the parent's exit.

        Args:
            transport: "stdio", "http" (streamable HTTP) or "sse" (legacy HTTP+SSE), the
                latter two under uvicorn.
            **options: stdio: `max_message_bytes`, `shutdown_grace` (2 s for calls in flight
                after stdin's end). http: `host` ("127.0.0.1"), `port` (8000; 0: any free),
                `workers` (1; docs/deployment.md, "Several processes"), `access_log` (False),
                `shutdown_grace` (5 s after a signal), and the options of `http_app`. sse: the
                same but `workers`, with the options of `sse_app`.

        Raises:
            TypeError: An option the transport does not take.
            ValueError: An unknown transport, an option out of range, `workers` with another
                transport than "http", `header_timeout` (removed), or a server or option that
                worker processes cannot rebuild (the message says which).
            SystemExit: With status 1 when the lifespan failed on start-up (logged first).
        """
        if transport not in _TRANSPORTS:
            raise ValueError(
                f"unknown transport {transport!r}; available: {', '.join(_TRANSPORTS)}"
            )
        if "header_timeout" in options and transport != "stdio":
            from .transports.http.run import HEADER_TIMEOUT_GONE

            raise ValueError(f"header_timeout {HEADER_TIMEOUT_GONE}")
        if transport != "http" and options.pop("workers", 1) != 1:
            raise ValueError(
                f"workers= needs transport 'http', not {transport!r}: the legacy SSE "
                "transport and stdio are served by one process"
            )
        if transport != "stdio":
            _run_uvicorn(self, transport, **options)
            return
        unknown = sorted(set(options) - {"max_message_bytes", "shutdown_grace"})
        if unknown:
            raise TypeError(
                f"run('stdio') got {', '.join(unknown)}; stdio takes max_message_bytes and "
                "shutdown_grace"
            )
        if options.get("max_message_bytes") is not None:
            check_count("max_message_bytes", options["max_message_bytes"])
        from .transports.stdio.stdio import run_stdio

        try:
            run_stdio(self, **options)
        except LifespanError:
            raise SystemExit(1) from None


def _run_uvicorn(
    server: Server,
    transport: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    access_log: bool = False,
    shutdown_grace: float = 5.0,
    **app_options: Any,
) -> None:
    """`run("http")` and `run("sse")`: one uvicorn server, or worker processes (http only)."""
    from .transports._process import checked_grace
    from .transports.http.run import run_http
    from .transports.http.security.host_origin import check_bind_host

    check_count("workers", workers)
    if not isinstance(host, str) or not host.strip():
        raise ValueError(f"host must be an address or a name, not {host!r}")
    check_bind_host(host)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 (any free port) to 65535, not {port!r}")
    grace = checked_grace(shutdown_grace)
    if workers > 1:
        from .cli._workers import run_in_workers

        run_in_workers(
            server,
            host=host,
            port=port,
            workers=workers,
            access_log=bool(access_log),
            shutdown_grace=grace,
            app_options=app_options,
        )
        return
    app: StreamableHttpApp | LegacySseApp
    if transport == "http":
        app = server.http_app(host=host, **app_options)
        path = app.path
    else:
        app = server.sse_app(**app_options)
        path = app.transport.sse_path
    started = run_http(
        app, host=host, port=port, path=path, access_log=bool(access_log), shutdown_grace=grace
    )
    if not started:
        raise SystemExit(1)


@asynccontextmanager
async def _lifespan_held(server: Server) -> AsyncIterator[SessionOpener]:
    """Hold `server`'s lifespan open, if any, and yield what opens its sessions; a lifespan
    that cannot start, or yields a value beside `context`, is logged and `LifespanError`."""
    from .protocol.session.session import ServerSession

    try:
        manager = nullcontext() if server.lifespan is None else server.lifespan(server)
        if not isinstance(manager, AbstractAsyncContextManager):
            raise TypeError(
                "lifespan(server) must return an async context manager "
                f"(e.g. from an @asynccontextmanager function), not {type(manager).__name__}"
            )
        state = await manager.__aenter__()
    except Exception as error:
        _log_failure(server, _START, error)
        raise LifespanError(f"{type(error).__name__}: {error}") from error
    try:
        contexts = _context_source(server, state)
    except UserError as error:
        _log_failure(server, _START, error)
        await _leave(server, manager, None)
        raise LifespanError(error.message) from error
    try:
        yield partial(ServerSession, server, contexts=contexts)
    except BaseException as error:
        await _leave(server, manager, error)
        raise
    await _leave(server, manager, None)


def _context_source(server: Server, state: Any) -> ContextSource:
    if server.context_factory is not None:
        return ContextSource(factory=server.context_factory, state=state)
    if server.context is not None:
        if state is not None:
            raise UserError(
                f"Server {server.name!r}: the lifespan yielded a value and context= is set too; "
                "tools see only one ctx.context. Drop one of them, or pass context_factory=, "
                "which receives the lifespan's value as CallInfo.state."
            )
        return ContextSource(value=server.context)
    if state is None:
        return NO_CONTEXT
    return ContextSource(value=state, state=state)


def _log_failure(server: Server, when: str, error: Exception) -> None:
    name = type(error).__name__
    logger.error("server %r%s: %s: %s", server.name, when, name, error, exc_info=error)


async def _leave(
    server: Server, manager: AbstractAsyncContextManager[Any], failure: BaseException | None
) -> None:
    import anyio

    with anyio.CancelScope(shield=True):
        try:
            if failure is None:
                await manager.__aexit__(None, None, None)
            else:
                await manager.__aexit__(type(failure), failure, failure.__traceback__)
        except Exception as error:
            if error is failure:  # handed back unchanged: not the lifespan's own failure
                return
            _log_failure(server, ": its lifespan failed on shutdown", error)


def _check_text(name: str, value: object) -> None:
    """Refuse (TypeError naming `name`) a value that is neither a string nor None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, not {type(value).__name__}")


def _check_options(context: Any, factory: Any, lifespan: Any) -> None:
    """Reject, when the server is made, serving options that could never work (TypeError)."""
    if factory is not None:
        if context is not None:
            raise TypeError(
                "Server() got both context= and context_factory=: pass one (a factory can "
                "return a shared object)"
            )
        if not callable(factory):
            raise TypeError(f"context_factory must be callable, not {type(factory).__name__}")
        try:
            inspect.signature(factory).bind(None)
        except TypeError:
            raise TypeError(
                "context_factory must accept one positional argument (a toolwire.CallInfo)"
            ) from None
        except ValueError:  # no signature to inspect (some builtins): let it show at call time
            pass
    if lifespan is not None:
        if inspect.isasyncgenfunction(lifespan):
            raise TypeError(
                "lifespan must return an async context manager: decorate the async generator "
                "function with @contextlib.asynccontextmanager"
            )
        if not callable(lifespan):
            raise TypeError(f"lifespan must be callable, not {type(lifespan).__name__}")


async def _hop(session: OpenSession, message: Message) -> None:
    _start(session, message)


def _start(session: OpenSession, message: Message) -> None:
    # The coroutine is made here so that it can be closed if the session refuses it: a task
    # group may call the function before it finds itself closed.
    telling = message(session)
    try:
        session.start_soon(lambda: telling)
    except RuntimeError:  # the session is closing
        telling.close()
        logger.debug("a change came while a session was closing; it was not told")


async def _end_hook(hook: Callable[[str], Any], session_id: str) -> None:
    """Run one `on_session_end` hook (a sync one in a worker thread); log what it raises."""
    from .tools.threads import call_sync_or_async

    name = getattr(hook, "__qualname__", repr(hook))
    try:
        await call_sync_or_async(None, hook, (session_id,), {})
    except Exception:
        logger.exception("on_session_end hook %s failed for session %s", name, session_id)


def _one_spelling(
    method: str, options: dict[str, Any], name: str | None, description: str | None
) -> dict[str, Any]:
    """`options` with `name`/`description` folded into function_tool's spelling of them,
    each checked to be a string or None (a TypeError naming it; a ValueError for an empty
    name)."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"a tool's name must be a string, not {name!r}")
    if name == "":
        raise ValueError(f"{method}() got an empty name: a tool needs a non-empty name")
    _check_text("description", description)
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


def _renamed(tool: FunctionTool, options: dict[str, Any]) -> FunctionTool:
    """A copy of a built tool with another name or description, the only options it takes."""
    changes = {
        short: value for short, long in _SPELLINGS if (value := options.pop(long, None)) is not None
    }
    if options:
        raise TypeError(
            f"add_tool() got function_tool options ({', '.join(sorted(options))}) for a tool "
            "that is already built; they apply only when add_tool wraps a plain callable"
        )
    return dataclasses.replace(tool, **changes) if changes else tool


def _builder_dir() -> Path:
    """The directory of the first module outside toolwire on the stack (else the working
    directory, as in a REPL)."""
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
