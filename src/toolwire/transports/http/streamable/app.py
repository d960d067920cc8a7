"""The streamable HTTP app of a server (`Server.http_app()`): a Starlette app with one MCP path,
answered without routing, guarded as a whole; standalone, or mounted with its lifespan forwarded
(see docs/decisions.md, `app.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.routing import Route

from ....errors import check_count, check_seconds
from .._runtime import Runtime
from .._served_app import GuardedApp, Guards
from ..asgi import route_path
from ..changes import ChangeBus
from .endpoint import Endpoint, EndpointConfig
from .events import EventStore, MemoryEventStore
from .records import SessionStore

if TYPE_CHECKING:
    from ....protocol.session.serving import Servable

__all__ = ["StreamableHttpApp", "streamable_http_app"]


class StreamableHttpApp(GuardedApp):
    """A Starlette app serving MCP (streamable HTTP) on one path, answered by `endpoint`."""

    runtime: Runtime

    def __init__(self, endpoint: Endpoint, path: str, guards: Guards) -> None:
        super().__init__(routes=[Route(path, endpoint)], lifespan=self.lifespan)
        self.endpoint = endpoint
        self.runtime = endpoint.runtime
        self.path = path
        self._paths = {path, path.rstrip("/") + "/"} if path != "/" else {"/", ""}
        self._entry = guards.around(self._dispatch, max_body_bytes=endpoint.config.max_body_bytes)

    async def _dispatch(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and not self.user_middleware
            and route_path(scope) in self._paths
        ):
            await self.endpoint(scope, receive, send)
            return
        await self._routed(scope, receive, send)


def streamable_http_app(
    servable: Servable,
    *,
    path: str,
    stateless: bool,
    json_response: bool,
    resumable: bool,
    event_store: EventStore | None,
    retry_ms: int | None,
    session_idle_timeout: float | None,
    max_sessions: int,
    max_body_bytes: int | None,
    max_event_bytes: int | None,
    keepalive_seconds: float | None,
    session_store: SessionStore | None,
    guards: Guards,
    change_bus: ChangeBus | None,
) -> StreamableHttpApp:
    """Build the ASGI app serving `servable` over streamable HTTP (see `Server.http_app`).

    Raises:
        ValueError: An option is out of range (the message names it).
    """
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"path must start with '/', not {path!r}")
    if session_idle_timeout is not None:
        check_seconds("session_idle_timeout", session_idle_timeout, " or None")
    check_count("max_sessions", max_sessions, 1)
    if max_body_bytes is None:
        max_body_bytes = servable.max_message_bytes
    check_count("max_body_bytes", max_body_bytes, 1)
    if retry_ms is not None:
        check_count("retry_ms", retry_ms, 0, " or None")
    if keepalive_seconds is not None:
        check_seconds("keepalive_seconds", keepalive_seconds, " or None")
    if event_store is not None and not isinstance(event_store, EventStore):
        raise ValueError("event_store must have the EventStore methods store and replay_after")
    if session_store is not None and not isinstance(session_store, SessionStore):
        raise ValueError(
            "session_store must have the SessionStore methods save, load, touch and end "
            f"(a toolwire session-record store), not {type(session_store).__name__}"
        )
    if change_bus is not None and not isinstance(change_bus, ChangeBus):
        raise ValueError(
            f"change_bus must have the ChangeBus method join, not {type(change_bus).__name__}"
        )
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
        max_event_bytes=max_event_bytes,
        change_bus=change_bus,
    )
    config = EndpointConfig(
        stateless=stateless,
        json_response=json_response,
        max_body_bytes=max_body_bytes,
        retry_ms=retry_ms,
        keepalive_seconds=keepalive_seconds,
    )
    return StreamableHttpApp(Endpoint(runtime, config), path, guards)
