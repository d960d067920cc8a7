"""The legacy HTTP+SSE app of a server: `GET /sse` and `POST /messages/` in a Starlette app.

`LegacySseApp(server)` is what `Server.sse_app()` returns. It runs standalone under any ASGI
server, or mounted in a Starlette or FastAPI app that forwards its lifespan
(`lifespan=app.lifespan`), which is how the server learns that it stops; without that, serving
starts on the first stream, lasts until the event loop ends, and warns. The server's lifespan is
entered once, shared with its streamable HTTP app on the same event loop. The Host/Origin guard
covers both endpoints, and so does the bearer guard when the server has `auth` (the protected
resource being the stream's path).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.routing import Route

from .._event_limit import DEFAULT_MAX_EVENT_BYTES, checked_event_limit
from .._lazy_start import LazyStart
from .._served_app import GuardedApp, Guards
from .._winding_down import OneEnding, SessionsOpened
from .transport import DEFAULT_MAX_SESSIONS, KEEPALIVE_SECONDS, LegacySse

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ....protocol.session.serving import Servable, SessionOpener

__all__ = ["LegacySseApp"]

logger = logging.getLogger("toolwire.http")


class _Endpoint:
    """A handler as a plain ASGI app (Starlette would take a bound method for a request
    handler expecting a `Request`)."""

    def __init__(self, handler: Callable[[Any, Any, Any], Awaitable[None]]) -> None:
        self._handler = handler

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._handler(scope, receive, send)


class LegacySseApp(GuardedApp):
    """A Starlette app serving MCP's legacy HTTP+SSE transport (see `Server.sse_app`, which
    documents every option; `max_body_bytes` defaults to the server's `max_message_bytes`,
    `guards` to the loopback-only Host/Origin check).

    Attributes:
        transport: The endpoints and their live sessions.
    """

    lifespan_name = "SSE"

    def __init__(
        self,
        servable: Servable,
        *,
        sse_path: str = "/sse",
        message_path: str = "/messages/",
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        keepalive_seconds: float = KEEPALIVE_SECONDS,
        max_body_bytes: int | None = None,
        guards: Guards | None = None,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        if max_body_bytes is None:
            max_body_bytes = servable.max_message_bytes
        self.transport = LegacySse(
            self._opener,
            sse_path=sse_path,
            message_path=message_path,
            max_sessions=max_sessions,
            keepalive_seconds=keepalive_seconds,
            max_body_bytes=max_body_bytes,
        )
        super().__init__(
            routes=[
                Route(sse_path, _Endpoint(self.transport.stream)),
                Route(message_path, _Endpoint(self.transport.post)),
            ],
            lifespan=self.lifespan,
        )
        self._servable = servable
        self._max_event_bytes = checked_event_limit(max_event_bytes)
        self._opened: SessionOpener | None = None
        self._sessions = SessionsOpened()
        name = getattr(servable, "name", None)
        self._lazy = LazyStart(self.lifespan, f"the SSE app of server {name!r}")
        self._stopped = False
        self._ending = OneEnding(self.transport.end_streams)
        guards = guards or Guards(path=sse_path)
        self._entry = guards.around(self._routed, max_body_bytes=max_body_bytes)

    @asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """Serve for the duration; also the lifespan a parent app may run for this one."""
        async with self._servable.serving() as opener:
            self._opened = self._sessions.opener(opener, self._max_event_bytes)
            try:
                yield
            finally:
                self._opened = None
                self._stopped = True
                await self.transport.end_streams()

    async def end_streams(self) -> None:
        """End every open stream (the server is stopping); see `LegacySse.end_streams`.

        Asked again while it runs (the host's exit signal seen two ways), the second asker
        waits for the first ending.
        """
        await self._ending()

    async def end_idle_streams(self) -> None:
        """End the streams of the sessions running no call (the server is stopping)."""
        await self.transport.end_streams(idle_only=True)

    def calls_in_flight(self) -> int:
        """How many calls (tools, resources, prompts) the open sessions are running."""
        return self._sessions.calls_in_flight()

    async def refuse_calls(self, message: str) -> int:
        """Answer every call in flight with a JSON-RPC error saying `message` and cancel it;
        how many there were."""
        return await self._sessions.refuse_calls(message)

    async def _opener(self) -> SessionOpener | None:
        """The opener for a new stream; starts serving if no lifespan did (mounted)."""
        if self._opened is not None or self._stopped:
            return self._opened
        await self._lazy.start()
        return self._opened
