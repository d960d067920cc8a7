"""A server whose lifespan fails before serving: `toolwire run` must exit 1 saying why."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from toolwire import Server


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[Any]:
    raise RuntimeError("no database")
    yield


server = Server("broken", lifespan=lifespan)
