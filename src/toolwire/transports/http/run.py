"""Running an HTTP app under uvicorn, the way `Server.run("http")` and `toolwire run` do."""

from __future__ import annotations

import logging
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

    configure_logging()
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    try:
        server.run()
    finally:
        release_threads(0 if server.started else 1, logger)
    return bool(server.started)
