"""Stopping an HTTP app that toolwire's own runner serves: `ShutdownGate` sits in front of
the app and counts the POSTs under way, and `wind_down`, once uvicorn's `should_exit` is set,
refuses new requests, ends idle streams at once, gives calls in flight a grace period to be
answered, answers those still running at its end with a JSON-RPC error before cancelling
them, then ends every session. It works on the app's `Serving` (`_served_app.py`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ...protocol.wire.jsonrpc import error_message
from .asgi import JSON_TYPE, respond

if TYPE_CHECKING:
    from ._served_app import Serving

__all__ = [
    "SHUTTING_DOWN",
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


async def wind_down(app: Serving, gate: ShutdownGate, grace: float) -> None:
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
            SHUTTING_DOWN,
            f"Server is shutting down: the call did not finish within the {grace:g} s "
            "shutdown grace period and was cancelled",
        )
        logger.warning(
            "shutdown: %d call(s) still running after %g s were cancelled", refused, grace
        )
        flushed = loop.time() + FLUSH_SECONDS
        while gate.posts and loop.time() < flushed:
            await asyncio.sleep(TICK_SECONDS)
    await app.end_streams()
