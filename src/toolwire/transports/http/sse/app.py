"""The legacy HTTP+SSE app of a server (`Server.sse_app()`): `GET /sse` and `POST /messages/` in
a Starlette app, behind the same guards and lifespan rules as the streamable HTTP app."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.routing import Route

from .._served_app import GuardedApp, Guards
from .transport import LegacySse

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ....protocol.session.serving import Servable

__all__ = ["LegacySseApp"]


class _Endpoint:
    """A handler as a plain ASGI app (Starlette would take a bound method for a request
    handler expecting a `Request`)."""

    def __init__(self, handler: Callable[[Any, Any, Any], Awaitable[None]]) -> None:
        self._handler = handler

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._handler(scope, receive, send)


class LegacySseApp(GuardedApp):
    """A Starlette app serving MCP's legacy HTTP+SSE transport (see `Server.sse_app`); its
    `transport` (also its `runtime`) holds the endpoints and live sessions."""

    def __init__(
        self,
        servable: Servable,
        *,
        sse_path: str,
        message_path: str,
        max_sessions: int,
        keepalive_seconds: float,
        max_body_bytes: int | None,
        guards: Guards,
        max_event_bytes: int | None,
    ) -> None:
        if max_body_bytes is None:
            max_body_bytes = servable.max_message_bytes
        self.transport = self.runtime = LegacySse(
            servable,
            sse_path=sse_path,
            message_path=message_path,
            max_sessions=max_sessions,
            keepalive_seconds=keepalive_seconds,
            max_body_bytes=max_body_bytes,
            max_event_bytes=max_event_bytes,
        )
        super().__init__(
            routes=[
                Route(sse_path, _Endpoint(self.transport.stream)),
                Route(message_path, _Endpoint(self.transport.post)),
            ],
            lifespan=self.lifespan,
        )
        self._entry = guards.around(self._routed, max_body_bytes=max_body_bytes)
