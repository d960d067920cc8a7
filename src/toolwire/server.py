"""`Server`: what an MCP server publishes (tools, resources, prompts) and the ways to serve it.

One class over parts it owns: a `ToolRegistry`, a `ResourceRegistry` and a `PromptRegistry`
(the latter two made on first use, so that a server without them never loads their modules),
an `Announcer` telling open sessions of every change, the bound on worker threads, and one
`SharedServing` holding the lifespan; the HTTP apps come from `toolwire.transports.http`,
imported only when asked for, so that `import toolwire` and stdio load no web stack.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ._announcer import Announcer
from .errors import UserError
from .lifespan import LifespanError, SharedServing, check_options
from .protocol.features.registry import (
    RegisteredTool,
    ToolRegistry,
    registered_tool,
)
from .protocol.wire.icons import normalize_icons
from .tools.function_tool import FunctionTool, function_tool

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    import anyio

    from .protocol.auth.bearer import BearerAuth
    from .protocol.features.prompt_registry import PromptRegistry
    from .protocol.features.resource_files import DirectoryResources
    from .protocol.features.resource_registry import ResourceRegistry
    from .protocol.session.app import OpenSession
    from .protocol.session.call_context import CallInfo
    from .protocol.session.serving import SessionOpener
    from .tools.threads import SyncBudget
    from .transports.http.changes import ChangeBus
    from .transports.http.sse.app import LegacySseApp
    from .transports.http.streamable.app import StreamableHttpApp
    from .transports.http.streamable.events import EventStore
    from .transports.http.streamable.records import SessionStore

__all__ = ["Server"]

F = TypeVar("F", bound=Callable[..., Any])
H = TypeVar("H", bound=Callable[[str], Any])

_TRANSPORTS = ("stdio", "http", "sse")
# `tool`'s and `add_tool`'s MCP options, in the order `registered_tool` takes them.
_MCP_OPTIONS = ("title", "annotations", "meta", "output_schema", "timeout", "scopes", "icons")
# MCP users spell these `name` / `description`; function_tool (the Agents SDK) adds `_override`.
_SPELLINGS = (("name", "name_override"), ("description", "description_override"))


class Server:
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
        self._announcer = Announcer()
        self._registry = ToolRegistry()
        self._registry.listeners.append(
            partial(self._announcer.tell, methodcaller("tools_changed"))
        )
        self._resources: ResourceRegistry | None = None  # made on first use, as prompts are
        self._prompts: PromptRegistry | None = None
        self._session_end_hooks: list[Callable[[str], Any]] = []
        self._limiter: SyncBudget | anyio.CapacityLimiter | None = None
        self._limiter_loop: object = None
        self._warmed_up = False
        self._shared_serving = SharedServing(self)
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
        built_with = _one_spelling("tool", options, name, description)

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

    def tools_listed(self) -> None:
        """Sessions call this after sending a tool list: calls come next, so the first time
        it builds in the background what first calls need."""
        if self._warmed_up:
            return
        self._warmed_up = True
        from .tools.warmup import warm_up_in_background

        warm_up_in_background([entry.tool for entry in self._registry.values()])

    def session_opened(self, session: OpenSession) -> None:
        """Sessions call this on entry: they are told of changes until they close."""
        self._announcer.opened(session)

    def session_closed(self, session: OpenSession) -> None:
        """Sessions call this on exit."""
        self._announcer.closed(session)

    async def session_ended(self, session_id: str) -> None:
        """Sessions with an id call this once closed: runs the `on_session_end` hooks."""
        if self._session_end_hooks:
            from ._session_end import run_hooks

            await run_hooks(self._session_end_hooks, session_id)

    def on_session_end(self, func: H) -> H:
        """Call `func(session_id)` whenever this process stops serving an MCP session that
        has an id (the `ctx.session_id` and `CallInfo.session_id` its calls saw): a DELETE or
        idle expiry over streamable HTTP, a closed legacy SSE stream, stdin EOF, shutdown.

        Usable as a decorator, several times. `func` may be a coroutine function; a sync one
        runs in a worker thread. The hooks of one session run together once its calls are
        over, within 5 seconds altogether (an async hook still running then is cancelled; a
        sync one is left to finish). A hook that raises is logged on the `toolwire` logger
        and the session closes all the same. Session-less requests (stateless HTTP, the
        2026-07-28 era) have no session id and never fire it.

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
                partial(self._announcer.tell, methodcaller("resources_changed"))
            )
            registry.update_listeners.append(
                lambda uri: self._announcer.tell(methodcaller("resource_updated", uri))
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
        """Publish a function as a resource (`uri` fixed) or a resource template (`uri` with
        `{name}` variables, which become the function's arguments).

        Args:
            uri: The resource's URI (`config://app`), or a URI template
                (`users://{user_id}/profile`; `{+path}` may span `/`, `{?a,b}` names optional
                query parameters).
            mime_type: The contents' MIME type (default: by what the function returns:
                `text/plain` for `str`, `application/octet-stream` for `bytes`,
                `application/json` for anything else, which is sent as JSON text).
            name: The name clients show (default: the function's name).
            title: A human-readable title (2025-06-18 on).
            description: What the resource holds (default: the function's docstring).
            size: The size in bytes, if known (fixed resources).
            annotations: MCP annotations (`audience`, `priority`, `lastModified`).
            icons: Icons for clients (`{"src": ..., "mimeType": ..., "sizes": [...]}`;
                2025-11-25 on).
            meta: `_meta` sent with the listing.
            completers: For templates, per-variable functions suggesting values for
                `completion/complete`.

        Returns:
            A decorator returning the function unchanged.

        Raises:
            ValueError: The template is malformed, the function's parameters do not fit it,
                or the URI is published already.
            toolwire.UserError: `icons` is not a list of well-formed icons (the message
                names the resource and what is wrong).
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
        # Imported here: a server that publishes no resource never loads them.
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

        `uri_prefix + "notes/todo.md"` reads `root/notes/todo.md`. URIs are matched against
        the prefix and checked segment by segment, never handed to the file system as given:
        anything that would leave `root` (`..`, encoded or not, absolute paths, backslashes,
        NUL bytes, symbolic links pointing out) is refused with the resource-not-found error,
        as is a file larger than `max_bytes`. Text files are sent as text, others as blobs.

        A relative `root` is taken from the server's `root_path`: by default the directory of
        the module that builds the server (as Flask does), not the working directory, which is
        wherever a client happens to start the server.

        Args:
            root: The directory (it must exist); relative to the server's `root_path`.
            uri_prefix: What the URIs start with; it must end with `/`.
            name: The template's name (default: the directory's name).
            title: A human-readable title.
            description: What the files are.
            mime_type: One MIME type for every file (default: guessed from each name).
            max_listed: How many files `resources/list` shows at most (the rest stay
                readable; a warning is logged once when the listing is cut).
            max_bytes: The largest file served.
            include_hidden: Serve and list names starting with `.` too (`.env`, `.git` are
                refused by default).

        Returns:
            The `DirectoryResources` serving it (its `template` is what was published).

        Raises:
            ValueError: `root` is not a directory, or the prefix is unusable.
        """
        from .protocol.features.resource_files import DirectoryResources

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
        """Stop publishing the resource with this URI (or the template with this text);
        connected clients are told the list changed.

        Raises:
            KeyError: Nothing is published under it.
        """
        self.resource_registry.remove(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Tell the clients that follow `uri` (`resources/subscribe`, or a 2026-07-28 listen
        stream naming it) that its contents changed; they read it again if they care."""
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
            registry.listeners.append(
                partial(self._announcer.tell, methodcaller("prompts_changed"))
            )
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

        The options of `add_prompt`, typed in the overloads above, are the keyword arguments
        below.

        The function's parameters are the prompt's arguments (a parameter without a
        default is required; the docstring's `Args:` describe them). It returns a string,
        a `toolwire.PromptMessage`, or a list of them (see `toolwire.PromptMessage` for
        the content a message may hold); it may be async. A first parameter annotated
        `ToolContext` receives the request's context instead (for `ctx.elicit`).

        Args:
            func: The function (when used bare).
            name: The prompt's name (default: the function's name).
            title: A human-readable name shown by clients.
            description: What the prompt is for (default: from the docstring).
            icons: Pictures for clients to show (`toolwire.Icon`s or dicts; 2025-11-25).
            meta: `_meta` sent with the prompt listing.
            completers: Argument name -> completer, for `completion/complete`: a list of
                choices (suggested by prefix) or a function `(value, context_arguments)`
                returning suggestions, sync or async.

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
        """Publish a function as a prompt (the options of `prompt`); connected clients are
        told, as for tools.

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

        `func(ref, argument, value, context_arguments)` (sync or async) gets the request's
        `ref` as sent (`{"type": "ref/prompt", "name": ...}` or `{"type": "ref/resource",
        "uri": ...}`), the argument's name, what was typed so far, and the arguments the
        client already settled; it returns suggestions (an iterable of strings) or None.

        Returns:
            The function itself, unchanged.
        """
        if not callable(func):
            raise UserError(f"completion handler must be a function, not {type(func).__name__}")
        self.completion_handler = func
        return func

    @property
    def sync_limiter(self) -> SyncBudget | anyio.CapacityLimiter:
        """Bounds the threads running sync tools, resources and prompts.

        One bound of `max_sync_workers` covers every sync function run for a client (tools,
        resource functions, prompts, a directory's reads and listings). On asyncio it is a
        `SyncBudget` (see `toolwire.tools.threads`), which also counts bodies still running
        after their calls timed out; on trio an `anyio.CapacityLimiter`. It is made on first
        use on each event loop and belongs to that loop.
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

        It runs under any ASGI server (`uvicorn module:app`), or mounted inside a Starlette
        or FastAPI app, which must forward its ASGI lifespan:
        `Starlette(routes=[Mount("/", app)], lifespan=app.lifespan)` or
        `FastAPI(lifespan=app.lifespan)`. The lifespan is how the server starts up front and
        learns that it stops; mounted without it, the app starts serving on its first
        request and its server's lifespan may never exit (a warning says so). uvicorn waits
        for open responses before it runs the lifespan's exit, and a GET stream stays open
        until its client leaves: under your own uvicorn give it a graceful timeout
        (`--timeout-graceful-shutdown 5`). `Server.run("http")` and `toolwire run` need none
        of this: they own their uvicorn server and stop it themselves. The server's own
        `lifespan` runs once either way, also when its `sse_app()` is served beside this
        app (they share one serving).

        Args:
            path: Where MCP is served.
            stateless: No sessions: each POST is served on its own (no `initialize` needed)
                and GET/DELETE answer 405; tools cannot send requests to the client.
            json_response: Answer each request with one JSON body instead of an SSE stream
                (then no progress or log messages, no requests to the client during a call).
            resumable: Give SSE events ids and keep them, so that a client resumes a lost
                stream with `Last-Event-ID` (and a tool may end its stream early with
                `ctx.close_sse_stream()`). Sessions only.
            event_store: Where those events are kept (default: in memory, bounded; a
                `toolwire.redis.RedisEventStore` lets a stream resume on any process serving
                the URL).
            retry_ms: The reconnection delay suggested to clients, in milliseconds (None: no
                suggestion).
            session_idle_timeout: Seconds without a request after which an idle session ends
                (None: never).
            max_sessions: Sessions this process holds at once (made here, or rebuilt from a
                shared store's record); beyond it `initialize`, or a request needing a
                rebuild, gets 503.
            max_body_bytes: The largest request body (413 beyond it); default
                `max_message_bytes`.
            max_event_bytes: The largest message the app sends, an SSE event or a JSON body
                (16 MiB; None: no bound). A reply over it becomes a JSON-RPC error naming both
                sizes; a notification over it is dropped; both are logged.
            keepalive_seconds: Seconds of silence on an SSE stream after which a comment
                keeps it open through proxies (None: never).
            session_store: Where session records are kept (default: in memory, for this
                process). A store shared by every process serving the URL
                (`toolwire.redis.RedisSessionStore`) lets any of them continue any session,
                also after a restart.
            allowed_hosts: `Host` values the app answers (DNS-rebinding protection, on for
                every bind). Default: `127.0.0.1`, `localhost`, `[::1]` on any port, plus
                `host` when it names one interface; a server reached under another name
                refuses with 421 until it is listed here: `["api.example.com"]` (any port),
                `["api.example.com:8443"]` (that port); `["*"]` switches the check off.
            allowed_origins: Browser `Origin`s allowed besides the request's own host.
                Default: the loopback origins; `["*"]` switches the check off. Others: 403.
            auth: Bearer authentication for this app (default: the server's `auth`). With
                one, every request needs a token, tools' `scopes` are enforced, and the
                RFC 9728 metadata is served at `/.well-known/oauth-protected-resource`
                (and with `path` appended).
            host: The interface the app will be served on (`run()` passes it): a concrete
                address or name joins the allowed hosts.
            change_bus: Carries changes (tools, resources, prompts, resource updates), session
                ends and clients' answers to server requests between the processes
                serving the URL, so that the clients of every process hear a change made on
                one (default: none, this process's clients only).
            backplane: Supplies `session_store`, `event_store` and `change_bus` at once: a
                `toolwire.redis.RedisBackplane(url)` (`pip install 'toolwire[redis]'`), or just its
                URL, for several processes or machines behind one URL (`toolwire run
                --redis URL` passes it). Excludes those three options.

        Returns:
            A Starlette app.

        Raises:
            ValueError: An option is out of range (the message names it).
        """
        from .protocol.auth.bearer import bearer_auth
        from .transports.http.streamable.app import streamable_http_app

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
            allowed_hosts=None if allowed_hosts is None else _listed(allowed_hosts),
            allowed_origins=None if allowed_origins is None else _listed(allowed_origins),
            auth=self.auth if auth is None else bearer_auth(auth),
            host=host,
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

        A client opens `GET sse_path`; the stream's first event names the URL it POSTs its
        messages to (`message_path?session_id=...`, under the app's mount point); replies
        and notifications come back on the stream, which is the session: closing it ends
        the session. The app's lifespan serves the server (its own lifespan included); a
        parent app that mounts it must forward that lifespan (`lifespan=app.lifespan`), as
        for `http_app()`, whose notes on uvicorn's graceful timeout apply here too. Mounted
        beside `http_app()`, both share one serving: the server's lifespan runs once. Both
        endpoints are guarded: `Host` and `Origin` always (loopback names unless
        configured), bearer tokens with `Server(auth=...)` (a session then belongs to the
        caller that opened it).

        Args:
            sse_path: Where clients open their event stream.
            message_path: Where clients POST their messages.
            max_sessions: Streams open at once beyond which a new one is refused (503).
            keepalive_seconds: Seconds of silence on a stream after which a comment keeps
                it open through proxies.
            max_body_bytes: The largest POST body (413 beyond it); default
                `max_message_bytes`.
            max_event_bytes: The largest event sent on a stream (16 MiB; None: no bound); a
                reply over it becomes a JSON-RPC error, a notification is dropped.
            allowed_hosts: `Host` values accepted (default: 127.0.0.1, localhost, [::1]).
            allowed_origins: `Origin` values accepted (default: the loopback origins).

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
        if transport != "http" and options.pop("workers", 1) != 1:
            raise ValueError(
                f"workers= needs transport 'http', not {transport!r}: the legacy SSE "
                "transport and stdio are served by one process"
            )
        if transport != "stdio":
            _run_uvicorn(self, transport, **options)
            return
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

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, not {workers!r}")
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


def _one_spelling(
    method: str, options: dict[str, Any], name: str | None, description: str | None
) -> dict[str, Any]:
    """`options` with `name`/`description` folded into function_tool's spelling of them; both
    spellings of one option at once are a `TypeError`, as Python treats a repeated keyword."""
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
    """A copy of a built tool with another name or description (the only options it takes):
    the object the caller holds keeps its own."""
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


def _listed(values: Iterable[str]) -> list[str]:
    # One name is a common slip for a list of one: never a list of its characters.
    return [values] if isinstance(values, str) else list(values)


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
