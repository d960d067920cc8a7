"""What the two HTTP apps of a server share: `Serving` (the server's lifespan, entered once, and
the sessions opened while it lasts), `Guards` (the one point where every request is guarded)
and `GuardedApp` (the Starlette app around both); see docs/decisions.md, `streamable/app.py`."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from ...errors import check_count
from ...protocol.session.serving import opener_then

if TYPE_CHECKING:
    from ...protocol.features.registry import ToolRegistry
    from ...protocol.session.serving import Servable, SessionOpener
    from ...protocol.session.session import ServerSession
    from .asgi import ASGIApp

__all__ = [
    "GuardedApp",
    "Guards",
    "Serving",
]

logger = logging.getLogger("toolwire.http")


class Serving:
    """The serving of one app; a subclass hosts the sessions (`hosting`) and ends their streams.
    `kind` names the app in messages ("MCP", "SSE").

    Raises:
        ValueError: `max_event_bytes` is neither None nor an integer >= 1.
    """

    def __init__(self, servable: Servable, max_event_bytes: int | None, kind: str) -> None:
        if max_event_bytes is not None:
            check_count("max_event_bytes", max_event_bytes, 1, " or None")
        self.servable = servable
        self.max_event_bytes = max_event_bytes
        self.opener: SessionOpener | None = None
        """Opens a session while serving (None before and after)."""
        self.opened: weakref.WeakSet[ServerSession] = weakref.WeakSet()
        """The sessions opened, forgotten once nothing else holds them."""
        self.stopped = False
        """True once serving ended: a request starts nothing again."""
        self.kind = kind
        self._starting: asyncio.Future[None] | None = None
        self._holder: asyncio.Task[None] | None = None
        self._ending: asyncio.Task[None] | None = None

    def hosting(self, opener: SessionOpener) -> AbstractAsyncContextManager[None]:
        """Host the sessions `opener` opens for the duration."""
        raise NotImplementedError

    async def end_idle_streams(self) -> None:
        """End the streams that carry no answer owed to a call (the server is stopping)."""
        raise NotImplementedError

    async def ending(self) -> None:
        """End every session and stream (`end_streams` runs it one at a time)."""
        raise NotImplementedError

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        """Serve for the duration: the server's lifespan and `hosting`."""
        async with self.servable.serving() as served:
            opener = opener_then(served, self._opened)
            async with self.hosting(opener):
                self.opener = opener
                try:
                    yield
                finally:
                    self.opener = None
                    self.stopped = True

    def _opened(self, session: ServerSession) -> None:
        self.opened.add(session)
        if self.max_event_bytes is not None:
            session.max_frame_bytes = self.max_event_bytes

    async def ensure_started(self) -> SessionOpener | None:
        """The session opener, serving started now if no lifespan did; None once stopped.

        Raises:
            Exception: What the server's start-up raised (the next call tries again).
        """
        if self.opener is not None or self.stopped:
            return self.opener
        if self._starting is None:
            if self._holder is None:  # the first try (later ones follow a failed start-up)
                logger.warning(
                    "%s started serving on its first request: it is mounted in an app that does "
                    "not forward its lifespan, so nothing tells the server when this ASGI server "
                    "stops and its lifespan may never exit (its teardown skipped). Forward the "
                    "lifespan: Starlette(routes=[Mount(..., app=mcp_app)], "
                    "lifespan=mcp_app.lifespan), or FastAPI(lifespan=mcp_app.lifespan).",
                    f"the {self.kind} app of server {getattr(self.servable, 'name', None)!r}",
                )
            loop = asyncio.get_running_loop()
            self._starting = loop.create_future()
            self._holder = loop.create_task(self._hold(self._starting))
        await asyncio.shield(self._starting)
        return self.opener

    async def _hold(self, started: asyncio.Future[None]) -> None:
        """Serve from the first request until the event loop ends."""
        try:
            async with self.serving():
                started.set_result(None)
                await asyncio.get_running_loop().create_future()
        except Exception as error:
            if not started.done():
                started.set_exception(error)
            self._starting = None

    async def end_streams(self) -> None:
        """End every open stream now (the server is stopping); a second asker meanwhile waits
        for the ending under way."""
        if self._ending is None or self._ending.done():
            self._ending = asyncio.get_running_loop().create_task(self.ending())
        await asyncio.shield(self._ending)

    def calls_in_flight(self) -> int:
        """How many calls (tools, resources, prompts) the sessions are running."""
        return sum(session.in_flight for session in list(self.opened))

    async def refuse_calls(self, code: int, message: str) -> int:
        """Answer every call in flight with a JSON-RPC error, then cancel it; how many."""
        refused = 0
        for session in list(self.opened):
            refused += await session.refuse_calls(code, message)
        return refused


@dataclass(frozen=True)
class Guards:
    """What guards an app: the Host/Origin check always, bearer tokens with `auth` (for the
    resource at `path`, with the per-tool scopes of `tools`)."""

    allowed_hosts: Sequence[str] | None = None
    allowed_origins: Sequence[str] | None = None
    auth: Any = None
    host: str | None = None
    path: str = "/mcp"
    tools: ToolRegistry | None = None

    def around(self, app: ASGIApp, *, max_body_bytes: int = 4 * 1024 * 1024) -> ASGIApp:
        """`app` behind these guards, Host/Origin outermost (`max_body_bytes`: what the
        bearer guard reads of a body for its scope checks)."""
        from .security.host_origin import HostOriginGuard

        if self.auth is not None:
            from .security.auth import BearerGuard

            app = BearerGuard(
                app,
                self.auth,
                endpoint_path=self.path,
                tools=self.tools,
                max_body_bytes=max_body_bytes,
            )
        return HostOriginGuard(
            app,
            allowed_hosts=self.allowed_hosts,
            allowed_origins=self.allowed_origins,
            bind_host=self.host,
        )


class GuardedApp(Starlette):
    """A Starlette app served by `runtime`, answering ASGI lifespan itself; other scopes go to
    `_entry`, which a subclass sets to its dispatch behind `Guards.around`."""

    runtime: Serving
    _entry: ASGIApp

    def lifespan(self, app: Any = None) -> AbstractAsyncContextManager[None]:
        """Serve for the duration; also the lifespan a parent app that mounts this one runs."""
        return self.runtime.serving()

    async def end_streams(self) -> None:
        """End every open stream and session now: the server is stopping."""
        await self.runtime.end_streams()

    async def end_idle_streams(self) -> None:
        """End the streams that owe no call an answer (the server is stopping)."""
        await self.runtime.end_idle_streams()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self._entry(scope, receive, send)
            return
        # A failed start-up is said in one line, not in Starlette's second traceback.
        phase = "startup"
        try:
            await receive()  # lifespan.startup
            async with self.lifespan():
                await send({"type": "lifespan.startup.complete"})
                phase = "shutdown"
                await receive()  # lifespan.shutdown
        except Exception as error:
            what = f"the {self.runtime.kind} app's {phase}"
            text = f"toolwire: {what} failed: {type(error).__name__}: {error}"
            await send({"type": f"lifespan.{phase}.failed", "message": text})
            return
        await send({"type": "lifespan.shutdown.complete"})

    async def _routed(self, scope: Any, receive: Any, send: Any) -> None:
        """Starlette's own handling (routes, middleware), for what passed the guards."""
        await Starlette.__call__(self, scope, receive, send)
