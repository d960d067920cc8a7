"""Plain ASGI answers: a status, a few headers and a body, without Starlette's Response.

Each refusal a client can trigger carries a JSON-RPC error object (id null) as its body, as
the MCP transport specification asks, so a client library always has a message to show.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from ...protocol.wire.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, error_message

__all__ = ["JSON_TYPE", "ASGISend", "Headers", "error_body", "refuse", "respond", "unavailable"]

ASGISend = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

JSON_TYPE = (b"content-type", b"application/json")

logger = logging.getLogger("toolwire.http")


def error_body(message: str, code: int = INVALID_REQUEST) -> bytes:
    """A JSON-RPC error response with a null id, for a request that never reached a session."""
    return error_message(None, code, message)


async def respond(
    send: ASGISend, status: int, body: bytes = b"", headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Send a whole response in two ASGI messages."""
    head: Headers = list(headers)
    head.append((b"content-length", str(len(body)).encode("ascii") if body else b"0"))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


async def refuse(
    send: ASGISend,
    status: int,
    message: str,
    *,
    code: int = INVALID_REQUEST,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Answer with an HTTP error status and a JSON-RPC error body naming what was wrong.

    A refusal is often sent on the request's headers alone, while the server may already have
    answered a broken request itself and closed (uvicorn does, for a malformed chunk): the
    send then fails. That client is gone; a traceback per such request would let anyone
    flood the log.
    """
    try:
        await respond(send, status, error_body(message, code), [JSON_TYPE, *headers])
    except Exception as error:  # the ASGI server's own protocol error: not ours to report
        logger.debug("refusal %d not sent, the connection is over: %r", status, error)


async def unavailable(send: ASGISend, failure: Exception) -> None:
    """Answer 503 for a shared store that failed (a `records.StoreUnavailable`, whose text
    names the store and what it was doing; the store has logged it)."""
    await refuse(
        send,
        503,
        f"Service Unavailable: {failure}",
        code=INTERNAL_ERROR,
        headers=[(b"retry-after", b"1")],
    )
