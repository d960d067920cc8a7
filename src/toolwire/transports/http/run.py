"""Running an HTTP app under uvicorn, the way `Server.run("http")` and `toolwire run` do."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from typing import Any

from .._process import configure_logging, release_threads

__all__ = ["run_http"]

logger = logging.getLogger("toolwire.http")


def run_http(app: Any, host: str = "127.0.0.1", port: int = 8000) -> bool:
    """Serve `app` on `host:port` until SIGINT/SIGTERM; return whether it started.

    uvicorn logs only warnings and errors (no banner, no access log); toolwire's own logger
    is set up as for stdio (`TOOLWIRE_LOG_LEVEL`). Worker threads of sync tools are let go
    at the end.

    Args:
        app: The ASGI app (e.g. `Server.http_app()`).
        host: The interface to bind.
        port: The TCP port (0: any free one).

    Returns:
        False when the app's start-up (the server's lifespan) failed; it is logged.
    """
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn re-raises the SIGTERM/SIGINT it stopped on once it is done, so the process
        would die of the signal; a clean stop here ends with status 0, as stdio does."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            stops = (signal.SIGINT, signal.SIGTERM)
            previous = {signum: signal.signal(signum, self.handle_exit) for signum in stops}
            try:
                yield
            finally:
                for signum, handler in previous.items():
                    signal.signal(signum, handler)

    configure_logging()
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="on"
    )
    server = QuietServer(config)
    try:
        server.run()
    except SystemExit:  # uvicorn's way of saying the start-up failed (already logged)
        if server.started:
            raise
    finally:
        release_threads(0 if server.started else 1, logger)
    return bool(server.started)
