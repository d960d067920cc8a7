"""A toolwire server whose lifespan opens a (pretend) pool and notes each step in a file.

Every step appends a line to the file named by `LIFESPAN_MARKERS`: "enter" when the lifespan
starts, "ready" once the pool is made, "call" in each tool call, "exit" when the lifespan
ends. `LIFESPAN_FAIL=enter|exit` makes it raise there (`enter-leaving-a-thread` after starting
a thread that outlives the failure); `LIFESPAN_SLOW_ENTRY=1` makes entry
note "waiting" and wait for a signal to cancel it, which notes "entry cancelled".
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from toolwire import Server, ToolContext

_MARKERS = os.environ["LIFESPAN_MARKERS"]
_FAIL = os.environ.get("LIFESPAN_FAIL", "")


def mark(line: str) -> None:
    with open(_MARKERS, "a") as markers:
        markers.write(line + "\n")


@asynccontextmanager
async def open_pool(server: Server) -> AsyncIterator[dict[str, Any]]:
    mark("enter")
    if os.environ.get("LIFESPAN_SLOW_ENTRY"):
        mark("waiting")  # the transport's signal watcher listens already
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            mark("entry cancelled")
            raise
    if _FAIL == "enter-leaving-a-thread":  # a driver's non-daemon thread, never stopped
        threading.Thread(target=time.sleep, args=(60,), name="driver").start()
    if _FAIL.startswith("enter"):
        raise RuntimeError("database unreachable")
    pool = {"server": server.name, "connections": 3, "open": True}
    mark("ready")
    try:
        yield pool
    finally:
        await anyio.sleep(0.01)  # closing a real pool awaits too
        pool["open"] = False
        mark("exit")
        if _FAIL == "exit":
            raise RuntimeError("pool would not close")


server = Server("pooled", version="1.0.0", lifespan=open_pool)


@server.tool
async def pool_size(ctx: ToolContext[dict]) -> int:
    """How many connections the shared pool holds."""
    mark("call")
    assert ctx.context["open"]
    return int(ctx.context["connections"])


@server.tool
def pool_owner(ctx: ToolContext[dict]) -> str:
    """The server that owns the pool (a sync tool, run in a worker thread)."""
    mark("call")
    return str(ctx.context["server"])


if __name__ == "__main__":
    server.run()
