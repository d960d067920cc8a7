"""Running the legacy SSE app under uvicorn until SIGTERM/SIGINT.

uvicorn waits for every response in progress before it shuts down, and an event stream is
never done on its own: on the first exit signal the app's streams are ended, so that the
process leaves promptly and its clients see their stream close.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .._process import configure_logging, release_threads

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["run_app"]

logger = logging.getLogger("toolwire.http")

GRACEFUL_SECONDS = 5
"""After the exit signal, how long responses still in progress get before they are cancelled."""


def run_app(app: Starlette, *, host: str, port: int) -> bool:
    """Serve `app` until an exit signal; whether it started (False: its lifespan failed).

    Args:
        app: An app built by `legacy_sse_app` (its `state.legacy_sse` ends the streams).
        host: The address to bind.
        port: The port to bind (0: any free port).
    """
    import uvicorn

    configure_logging()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    server = _StreamEndingServer(config, app.state.legacy_sse)
    started = False
    try:
        server.run()
        started = server.started
    finally:
        release_threads(0 if started else 1, logger)
    return started


class _StreamEndingServer:
    """A uvicorn server that ends the app's event streams when it is told to exit."""

    def __init__(self, config: Any, transport: Any) -> None:
        import uvicorn

        outer = self

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                super().handle_exit(sig, frame)
                # A signal is how this server is meant to stop: exit 0 afterwards, as the
                # stdio transport does, rather than have uvicorn raise it again.
                self._captured_signals.clear()
                outer.exiting()

        self._server = Server(config)
        self._transport = transport
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ending: asyncio.Task[None] | None = None

    @property
    def started(self) -> bool:
        return bool(self._server.started)

    def run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._server.serve()

    def exiting(self) -> None:
        # Called from a signal handler: hand the work to the loop, thread-safely.
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._end_streams)

    def _end_streams(self) -> None:
        if self._ending is None:
            self._ending = asyncio.get_running_loop().create_task(self._transport.end_streams())
