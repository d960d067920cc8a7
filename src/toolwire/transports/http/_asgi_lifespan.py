"""ASGI's lifespan protocol, spoken by the HTTP apps themselves.

Starlette would report a failed start-up with a second traceback after the one serving
already logged; answering the ASGI server directly gives it one line instead.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from ._refusals import Receive, Send

__all__ = ["speak_lifespan"]


async def speak_lifespan(
    receive: Receive,
    send: Send,
    lifespan: Callable[[], AbstractAsyncContextManager[Any]],
    what: str,
) -> None:
    """Hold `lifespan()` open from the server's start-up message to its shutdown message.

    Args:
        receive: The lifespan scope's receive.
        send: The lifespan scope's send.
        lifespan: Enters and leaves serving.
        what: Names the app in a failure message ("MCP", "SSE").
    """
    phase = "startup"
    try:
        await receive()  # lifespan.startup
        async with lifespan():
            await send({"type": "lifespan.startup.complete"})
            phase = "shutdown"
            await receive()  # lifespan.shutdown
    except Exception as error:
        text = f"toolwire: the {what} app's {phase} failed: {type(error).__name__}: {error}"
        await send({"type": f"lifespan.{phase}.failed", "message": text})
        return
    await send({"type": "lifespan.shutdown.complete"})
