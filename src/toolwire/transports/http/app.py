"""The streamable HTTP app of a server: a Starlette app with one MCP path.

`streamable_http_app(server)` is what `Server.http_app()` returns. It runs standalone under
any ASGI server, or mounted inside another Starlette or FastAPI app: Starlette runs only the
outermost app's lifespan, so this app also starts serving on its first request, and a parent
may instead run it from its own lifespan (`lifespan=mcp_app.lifespan`) to start up front.

The MCP path is answered straight from `__call__` (no routing, no per-request objects); any
other path, and an app given extra middleware, go through Starlette as usual.

Security (allowed hosts and origins, authentication) wraps the whole app at one point,
`_secured`, from the options collected in `SecurityOptions`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.routing import Route

from ._asgi_lifespan import speak_lifespan
from ._event_limit import DEFAULT_MAX_EVENT_BYTES, checked_event_limit
from ._runtime import Runtime
from .endpoint import Endpoint, EndpointConfig
from .events import EventStore, MemoryEventStore

if TYPE_CHECKING:
    from ...protocol.registry import ToolRegistry
    from ...protocol.serving import Servable
    from .changes import ChangeBus
    from .records import SessionStore

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_MAX_SESSIONS",
    "SecurityOptions",
    "StreamableHttpApp",
    "streamable_http_app",
]

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]

DEFAULT_IDLE_TIMEOUT = 1800.0
DEFAULT_MAX_SESSIONS = 10_000
DEFAULT_RETRY_MS = 1000
DEFAULT_KEEPALIVE_SECONDS = 15.0


@dataclass(frozen=True)
class SecurityOptions:
    """What guards the app (applied by `_secured`).

    Attributes:
        allowed_hosts: `Host` values accepted (None: the loopback names, whatever the bind;
            `["*"]`: any). See `security.HostOriginGuard`.
        allowed_origins: `Origin` values accepted besides the request's own host (None: the
            loopback origins; `["*"]`: any).
        auth: The server's `BearerAuth` (None: no authentication).
        host: The interface the app is served on, when known (`Server.run` passes it): a
            concrete address or name joins the default allowed hosts.
        path: The MCP path (auth's protected-resource metadata names it).
    """

    allowed_hosts: Sequence[str] | None = None
    allowed_origins: Sequence[str] | None = None
    auth: Any = None
    host: str | None = None
    path: str = "/mcp"


def _secured(
    app: ASGIApp,
    options: SecurityOptions,
    *,
    path: str,
    tools: ToolRegistry | None,
    max_body_bytes: int,
) -> ASGIApp:
    """Wrap `app` in the security middleware that `options` ask for: the Host/Origin guard
    always, bearer authentication (and per-tool scopes of `tools`) with `auth`."""
    from .security import protected

    return protected(
        app,
        allowed_hosts=options.allowed_hosts,
        bind_host=options.host,
        allowed_origins=options.allowed_origins,
        auth=options.auth,
        tools=tools,
        endpoint_path=path,
        max_body_bytes=max_body_bytes,
    )


def _route_path(scope: MutableMapping[str, Any]) -> str:
    # The path below the mount point: ASGI's `path` includes `root_path`.
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and (len(path) == len(root) or path[len(root)] == "/"):
        return path[len(root) :]
    return path


class StreamableHttpApp(Starlette):
    """A Starlette app serving MCP (streamable HTTP) on one path.

    Args:
        endpoint: Answers the MCP path.
        runtime: The serving state the lifespan enters.
        path: The MCP path.
        security: What `_secured` wraps the app in.
    """

    def __init__(
        self, endpoint: Endpoint, runtime: Runtime, path: str, security: SecurityOptions
    ) -> None:
        super().__init__(routes=[Route(path, endpoint)], lifespan=self.lifespan)
        self.endpoint = endpoint
        self.runtime = runtime
        self.path = path
        self._paths = {path, path.rstrip("/") + "/"} if path != "/" else {"/", ""}
        self._entry = _secured(
            self._dispatch,
            security,
            path=path,
            tools=getattr(runtime.servable, "tool_registry", None),
            max_body_bytes=endpoint.config.max_body_bytes,
        )

    @asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """Serve for the duration: usable as the lifespan of a parent app that mounts this
        one (`Starlette(lifespan=mcp_app.lifespan, routes=[Mount("/", mcp_app)])`)."""
        async with self.runtime.serving():
            yield

    async def end_streams(self) -> None:
        """End every open stream and session now (for a server that is stopping: it would
        otherwise wait for clients to close their GET streams)."""
        await self.runtime.end_streams()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await speak_lifespan(receive, send, self.lifespan, "MCP")
            return
        await self._entry(scope, receive, send)

    async def _dispatch(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and not self.user_middleware
            and _route_path(scope) in self._paths
        ):
            await self.endpoint(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def streamable_http_app(
    servable: Servable,
    *,
    path: str = "/mcp",
    stateless: bool = False,
    json_response: bool = False,
    resumable: bool = True,
    event_store: EventStore | None = None,
    retry_ms: int | None = DEFAULT_RETRY_MS,
    session_idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    max_body_bytes: int | None = None,
    max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
    keepalive_seconds: float | None = DEFAULT_KEEPALIVE_SECONDS,
    session_store: SessionStore | None = None,
    allowed_hosts: Sequence[str] | None = None,
    allowed_origins: Sequence[str] | None = None,
    auth: Any = None,
    host: str | None = None,
    change_bus: ChangeBus | None = None,
) -> StreamableHttpApp:
    """Build the ASGI app serving `servable` over streamable HTTP (see `Server.http_app`,
    which documents every option).

    Raises:
        ValueError: An option is out of range (the message names it).
    """
    if not path.startswith("/"):
        raise ValueError(f"path must start with '/', not {path!r}")
    if session_idle_timeout is not None and not session_idle_timeout > 0:
        raise ValueError(
            f"session_idle_timeout must be a number of seconds > 0 or None, "
            f"not {session_idle_timeout!r}"
        )
    if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
        raise ValueError(f"max_sessions must be an integer >= 1, not {max_sessions!r}")
    if max_body_bytes is None:
        max_body_bytes = servable.max_message_bytes
    if (
        isinstance(max_body_bytes, bool)
        or not isinstance(max_body_bytes, int)
        or max_body_bytes < 1
    ):
        raise ValueError(f"max_body_bytes must be an integer >= 1, not {max_body_bytes!r}")
    if retry_ms is not None and (
        isinstance(retry_ms, bool) or not isinstance(retry_ms, int) or retry_ms < 0
    ):
        raise ValueError(f"retry_ms must be an integer >= 0 or None, not {retry_ms!r}")
    if keepalive_seconds is not None and not keepalive_seconds > 0:
        raise ValueError(
            f"keepalive_seconds must be a number of seconds > 0 or None, not {keepalive_seconds!r}"
        )
    if event_store is not None and not isinstance(event_store, EventStore):
        raise ValueError("event_store must have the EventStore methods store and replay_after")
    _check_shared(session_store, change_bus)
    store = None
    if resumable and not stateless:
        store = event_store if event_store is not None else MemoryEventStore()
    runtime = Runtime(
        servable,
        idle_timeout=session_idle_timeout,
        max_sessions=max_sessions,
        session_store=session_store,
        event_store=store,
        back_channel=not (stateless or json_response),
        max_event_bytes=checked_event_limit(max_event_bytes),
        stateless=stateless,
        change_bus=change_bus,
    )
    config = EndpointConfig(
        stateless=stateless,
        json_response=json_response,
        max_body_bytes=max_body_bytes,
        retry_ms=retry_ms,
        keepalive_seconds=keepalive_seconds,
    )
    security = SecurityOptions(allowed_hosts, allowed_origins, auth, host, path)
    return StreamableHttpApp(Endpoint(runtime, config), runtime, path, security)


def _check_shared(session_store: Any, change_bus: Any) -> None:
    from .changes import ChangeBus
    from .records import SessionStore

    if session_store is not None and not isinstance(session_store, SessionStore):
        raise ValueError(
            "session_store must have the SessionStore methods save, load, touch and end "
            f"(a toolwire session-record store), not {type(session_store).__name__}"
        )
    if change_bus is not None and not isinstance(change_bus, ChangeBus):
        raise ValueError(
            f"change_bus must have the ChangeBus method join, not {type(change_bus).__name__}"
        )
