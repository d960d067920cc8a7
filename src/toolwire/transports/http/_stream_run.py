"""Running an app whose responses are long-lived streams under uvicorn, until SIGTERM/SIGINT.

uvicorn waits for every response in progress before it shuts down, without a time limit
unless one is configured, and an event stream is never done on its own. So the first exit
signal also ends the app's streams (`end_streams`): the process leaves promptly and every
client sees its stream close. Responses that still run after `GRACEFUL_SECONDS` are cancelled.
A stop by signal ends with status 0, as stdio's does (uvicorn would raise the signal again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .._heap import settle_heap_now
from .._process import configure_logging, release_threads

__all__ = ["GRACEFUL_SECONDS", "run_ending_streams"]

logger = logging.getLogger("toolwire.http")

GRACEFUL_SECONDS = 5
"""After the exit signal, how long responses still in progress get before they are cancelled."""


def run_ending_streams(
    app: Any,
    *,
    host: str,
    port: int,
    end_streams: Callable[[], Awaitable[None]],
    configure: Callable[[Any], None] | None = None,
) -> bool:
    """Serve `app` until an exit signal; whether it started (False: its start-up failed,
    which the app logged).

    Args:
        app: The ASGI app.
        host: The address to bind.
        port: The port to bind (0: any free port).
        end_streams: Ends the app's open streams; awaited on the event loop at the first
            exit signal.
        configure: Adjusts the `uvicorn.Config` before serving (e.g. its HTTP protocol).
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
    if configure is not None:
        configure(config)
    ending: list[asyncio.Task[None]] = []
    loop: list[asyncio.AbstractEventLoop] = []

    async def end() -> None:
        await end_streams()

    def start_ending() -> None:
        if not ending:
            ending.append(asyncio.get_running_loop().create_task(end()))

    class Server(uvicorn.Server):
        ends_app_streams = True  # so the apps need not watch for it (see _host_exit.py)

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            self._captured_signals.clear()  # stopped as intended: no signal raised again
            # A signal handler may run between any two bytecodes: the loop does the work.
            if loop and not loop[0].is_closed():
                loop[0].call_soon_threadsafe(start_ending)

    server = Server(config)

    async def serve() -> None:
        loop.append(asyncio.get_running_loop())
        await server.serve()

    settle_heap_now()  # this process is ours, and serves nothing yet (see _heap.py)
    try:
        asyncio.run(serve())
    except SystemExit:  # how uvicorn ends a failed start-up
        if server.started:
            raise
    finally:
        release_threads(0 if server.started else 1, logger)
    return bool(server.started)
