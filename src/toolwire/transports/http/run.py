"""Running an HTTP app of a server under uvicorn, the way `Server.run("http" | "sse")` and
`toolwire run --transport http | sse` do."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ._stream_run import run_ending_streams

if TYPE_CHECKING:
    from .app import StreamableHttpApp
    from .legacy_sse_app import LegacySseApp

__all__ = ["run_http"]


def run_http(
    app: StreamableHttpApp | LegacySseApp,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    header_timeout: float | None,
) -> bool:
    """Serve `app` on `host:port` until SIGINT/SIGTERM; return whether it started.

    uvicorn logs only warnings and errors (no banner, no access log); toolwire's own logger
    is set up as for stdio (`TOOLWIRE_LOG_LEVEL`). The first exit signal ends every session
    and stream (uvicorn would otherwise wait for clients to drop their GET streams), then
    the process leaves with status 0; worker threads of sync tools are let go at the end.

    Args:
        app: The app `Server.http_app()` or `Server.sse_app()` built.
        host: The interface to bind.
        port: The TCP port (0: any free one).
        header_timeout: Seconds a connection gets to send a complete request head before
            it is closed (None: no limit); see `_http_protocol.py`.

    Returns:
        False when the app's start-up (the server's lifespan) failed; it is logged.
    """
    from ._http_protocol import configure_protocol

    return run_ending_streams(
        app,
        host=host,
        port=port,
        end_streams=app.end_streams,
        configure=functools.partial(configure_protocol, header_timeout=header_timeout),
    )
