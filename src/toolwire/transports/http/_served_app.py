"""What the two HTTP apps of a server have in common: the guards around them, and answering
the ASGI lifespan themselves while every other scope passes the guards.

`StreamableHttpApp` (`streamable/app.py`) and `LegacySseApp` (`sse/app.py`) differ in what they
serve and how serving starts; both guard every request at one point, built here from `Guards`, and
both report a failed start-up in one line (`speak_lifespan`) rather than Starlette's second
traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from starlette.applications import Starlette

if TYPE_CHECKING:
    from ...protocol.features.registry import ToolRegistry
    from .asgi import ASGIApp, ASGIReceive, ASGISend

__all__ = ["GuardedApp", "Guards", "speak_lifespan"]


@dataclass(frozen=True)
class Guards:
    """What guards an app: the Host/Origin check always (`allowed_hosts`, `allowed_origins`,
    and `host`, the interface served on, as `security.HostOriginGuard` takes them), bearer
    tokens with `auth`, for the resource at `path`, with the per-tool scopes of `tools`."""

    allowed_hosts: Sequence[str] | None = None
    allowed_origins: Sequence[str] | None = None
    auth: Any = None
    host: str | None = None
    path: str = "/mcp"
    tools: ToolRegistry | None = None

    def around(self, app: ASGIApp, *, max_body_bytes: int = 4 * 1024 * 1024) -> ASGIApp:
        """`app` behind these guards: Host/Origin outermost (a forged Host is refused before
        any token is looked at), then bearer authentication with `auth`, which reads at most
        `max_body_bytes` of a body for its scope checks."""
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
    """A Starlette app answering ASGI lifespan itself; other scopes go to `_entry`, which a
    subclass sets to its dispatch behind `Guards.around` (ending in `_routed`)."""

    lifespan_name: ClassVar[str]
    """Names the app in a failed start-up's message ("MCP", "SSE")."""

    _entry: ASGIApp

    def lifespan(self, app: Any = None) -> AbstractAsyncContextManager[None]:
        """Serve for the duration (a subclass's serving)."""
        raise NotImplementedError

    async def end_streams(self) -> None:
        """End every open stream now: the server is stopping."""
        raise NotImplementedError

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await speak_lifespan(receive, send, self.lifespan, self.lifespan_name)
            return
        await self._entry(scope, receive, send)

    async def _routed(self, scope: Any, receive: Any, send: Any) -> None:
        """Starlette's own handling (routes, middleware), for what passed the guards."""
        await Starlette.__call__(self, scope, receive, send)


async def speak_lifespan(
    receive: ASGIReceive,
    send: ASGISend,
    lifespan: Callable[[], AbstractAsyncContextManager[Any]],
    what: str,
) -> None:
    """Hold `lifespan()` open from the server's start-up message to its shutdown message.

    Args:
        receive: The lifespan scope's receive.
        send: The lifespan scope's send.
        lifespan: Enters and leaves serving.
        what: Names the app in a failure message ("MCP", "SSE").
    """
    phase = "startup"
    try:
        await receive()  # lifespan.startup
        async with lifespan():
            await send({"type": "lifespan.startup.complete"})
            phase = "shutdown"
            await receive()  # lifespan.shutdown
    except Exception as error:
        text = f"toolwire: the {what} app's {phase} failed: {type(error).__name__}: {error}"
        await send({"type": f"lifespan.{phase}.failed", "message": text})
        return
    await send({"type": "lifespan.shutdown.complete"})
