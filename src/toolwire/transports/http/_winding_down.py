"""Stopping an HTTP app that toolwire's own runner serves: `ShutdownGate` sits in front of
the app and counts the POSTs under way, and `wind_down`, once uvicorn's `should_exit` is set,
refuses new requests, ends idle streams at once, gives calls in flight a grace period to be
answered, answers those still running at its end with a JSON-RPC error before cancelling
them, then ends every session. The app provides what `Drainable` lists; both HTTP apps do,
finding their sessions through `SessionsOpened`.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from ...protocol.session.serving import opener_then
from ...protocol.wire.jsonrpc import error_message
from .asgi import JSON_TYPE, respond

if TYPE_CHECKING:
    from ...protocol.session.serving import SessionOpener
    from ...protocol.session.session import ServerSession

__all__ = [
    "SHUTTING_DOWN",
    "Drainable",
    "OneEnding",
    "SessionsOpened",
    "ShutdownGate",
    "wind_down",
]

logger = logging.getLogger("toolwire.http")

SHUTTING_DOWN = -32000
"""The JSON-RPC error code of a request refused, or a call cut short, by the server stopping."""

TICK_SECONDS = 0.05
"""How often the winding down looks again for idle streams and calls still running."""

FLUSH_SECONDS = 1.0
"""After the refusals of calls past the grace, how long their responses get to go out."""


class Drainable(Protocol):
    """What `wind_down` needs of an app."""

    async def end_idle_streams(self) -> None:
        """End the streams that carry no answer owed to a call (GET and listen streams)."""
        ...

    def calls_in_flight(self) -> int:
        """How many calls (tools, resources, prompts) are still running."""
        ...

    async def refuse_calls(self, message: str) -> int:
        """Answer each running call with a JSON-RPC error saying `message`, then cancel it;
        how many there were."""
        ...

    async def end_streams(self) -> None:
        """End every session and stream."""
        ...


_REFUSED = error_message(None, SHUTTING_DOWN, "Server is shutting down: it takes no new requests")


class ShutdownGate:
    """An ASGI app in front of `app`: counts the POSTs in progress, and once `close()` is
    called answers every new HTTP request with 503 and a JSON-RPC error (the connection is
    then closed). Other scopes (the lifespan) pass through.

    Args:
        app: The app served.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.closed = False
        self.posts = 0
        """POST requests whose handling has not returned yet."""

    def close(self) -> None:
        """Refuse every request from now on."""
        self.closed = True

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.closed:
            await respond(send, 503, _REFUSED, [JSON_TYPE, (b"connection", b"close")])
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        self.posts += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.posts -= 1


async def wind_down(app: Drainable, gate: ShutdownGate, grace: float) -> None:
    """Stop serving `app` behind `gate` within about `grace` seconds (see the module
    docstring); the sessions and streams are all ended on return."""
    loop = asyncio.get_running_loop()
    gate.close()
    deadline = loop.time() + grace
    while True:
        await app.end_idle_streams()
        if not app.calls_in_flight() and not gate.posts:
            break
        if loop.time() >= deadline:
            break
        await asyncio.sleep(TICK_SECONDS)
    if app.calls_in_flight():
        refused = await app.refuse_calls(
            f"Server is shutting down: the call did not finish within the {grace:g} s "
            "shutdown grace period and was cancelled"
        )
        logger.warning(
            "shutdown: %d call(s) still running after %g s were cancelled", refused, grace
        )
        flushed = loop.time() + FLUSH_SECONDS
        while gate.posts and loop.time() < flushed:
            await asyncio.sleep(TICK_SECONDS)
    await app.end_streams()


class SessionsOpened:
    """The protocol sessions an app has opened, whatever hosts them (a session of its own, a
    stateless pool, a legacy SSE stream), found by opening them all through `opener`; a
    session is forgotten once nothing else holds it (a closed one runs no call).
    """

    def __init__(self) -> None:
        self.open: weakref.WeakSet[ServerSession] = weakref.WeakSet()

    def opener(self, opener: SessionOpener, max_event_bytes: int | None) -> SessionOpener:
        """`opener`, recording here each session it makes, which sends nothing over
        `max_event_bytes` (None: no bound; the bound is the transport's, not the protocol's)."""

        def opened(session: ServerSession) -> None:
            self.open.add(session)
            if max_event_bytes is not None:
                session.max_frame_bytes = max_event_bytes

        return opener_then(opener, opened)

    def calls_in_flight(self) -> int:
        """The calls running in every session."""
        return sum(session.in_flight for session in list(self.open))

    async def refuse_calls(self, message: str) -> int:
        """`ServerSession.refuse_calls` on every session; how many calls it refused."""
        refused = 0
        for session in list(self.open):
            refused += await session.refuse_calls(SHUTTING_DOWN, message)
        return refused


class OneEnding:
    """Runs `end` one at a time: the end of serving can come two ways at once (the runner's
    winding down, then the lifespan's exit), and whoever asks while an ending runs waits for
    that one rather than close the same streams again.

    Args:
        end: Ends the streams.
    """

    def __init__(self, end: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._end = end
        self._running: asyncio.Task[None] | None = None

    async def __call__(self) -> None:
        running = self._running
        if running is None or running.done():
            running = self._running = asyncio.get_running_loop().create_task(self._end())
        await asyncio.shield(running)
