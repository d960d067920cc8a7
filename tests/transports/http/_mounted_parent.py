"""A parent Starlette app mounting a toolwire server's HTTP apps, for a real uvicorn process.

Chosen by the environment: `MOUNTED` is `http`, `sse` or `both` (the apps mounted),
`FORWARD=1` runs the mounted apps' lifespans from the parent's, and the server's lifespan appends
`enter` and `exit` lines to the file `MARKERS`. The tool `slow` writes `started` and, when it
is cut short, `cancelled`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from toolwire import Server


def _mark(text: str) -> None:
    with open(os.environ["MARKERS"], "a") as markers:
        markers.write(text + "\n")


@contextlib.asynccontextmanager
async def _lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
    _mark("enter")
    try:
        yield {}
    finally:
        await anyio.sleep(0.3)  # a teardown that takes a while, as closing a pool does
        _mark("exit")


server = Server("mounted", version="1.0", lifespan=_lifespan)


@server.tool
def hello(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"


@server.tool
async def slow() -> str:
    """Wait for a long time."""
    _mark("started")
    try:
        await anyio.sleep(3600)
    except BaseException:
        _mark("cancelled")
        raise
    return "done"


def _home(request: Any) -> PlainTextResponse:
    return PlainTextResponse("home")


mounted = os.environ.get("MOUNTED", "http")
routes: list[Any] = [Route("/", _home)]
apps: list[Any] = []
if mounted in ("http", "both"):
    apps.append(server.http_app())
    routes.append(Mount("/tools", app=apps[-1]))
if mounted in ("sse", "both"):
    apps.append(server.sse_app())
    routes.append(Mount("/legacy", app=apps[-1]))


@contextlib.asynccontextmanager
async def _forwarded(parent: Any) -> AsyncIterator[None]:
    async with contextlib.AsyncExitStack() as stack:
        for each in apps:
            await stack.enter_async_context(each.lifespan(parent))
        yield


app = Starlette(routes=routes, lifespan=_forwarded if os.environ.get("FORWARD") == "1" else None)
