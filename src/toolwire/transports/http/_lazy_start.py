"""Serving started by an app's first request, for an app whose lifespan nobody runs.

Starlette runs only the outermost app's lifespan, so an HTTP app of a server mounted in a
parent that does not forward it (`lifespan=mcp_app.lifespan`) starts serving when its first
request comes, in a task of its own. Nothing then tells it that the host stops: the serving
lasts until the event loop ends, and a host that ends the process first (uvicorn does, at
SIGTERM) skips the server's lifespan exit. Such a start warns once, naming the fix.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

__all__ = ["LazyStart"]

logger = logging.getLogger("toolwire.http")


class LazyStart:
    """Enters an app's serving once, on demand, and holds it until the event loop ends.

    Args:
        serve: Enters the app's serving (its lifespan) for as long as it is held.
        what: How the warning names the app, e.g. "the MCP app of server 'demo'".
    """

    def __init__(self, serve: Callable[[], AbstractAsyncContextManager[Any]], what: str) -> None:
        self._serve = serve
        self._what = what
        self._starting: asyncio.Future[None] | None = None
        self._holder: asyncio.Task[None] | None = None
        self._warned = False
        self.stopped = False
        """True once the serving was left: nothing restarts it."""

    async def start(self) -> bool:
        """Start serving unless it is started (or starting); whether it is served now.

        Raises:
            Exception: What entering the serving raised (the next call tries again).
        """
        if self.stopped:
            return False
        if self._starting is None:
            loop = asyncio.get_running_loop()
            self._starting = loop.create_future()
            self._holder = loop.create_task(self._hold(self._starting))
        await asyncio.shield(self._starting)
        return not self.stopped

    async def _hold(self, started: asyncio.Future[None]) -> None:
        if not self._warned:
            self._warned = True
            logger.warning(
                "%s started serving on its first request: it is mounted in an app that does not "
                "forward its lifespan, so nothing tells the server when this ASGI server stops "
                "and its lifespan may never exit (its teardown skipped). Forward the lifespan: "
                "Starlette(routes=[Mount(..., app=mcp_app)], lifespan=mcp_app.lifespan), or "
                "FastAPI(lifespan=mcp_app.lifespan).",
                self._what,
            )
        try:
            async with self._serve():
                started.set_result(None)
                try:
                    await asyncio.get_running_loop().create_future()  # until the loop ends
                finally:
                    self.stopped = True
        except Exception as error:
            if not started.done():
                started.set_exception(error)
            self._starting = None  # the next request tries again
