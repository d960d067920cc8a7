"""Reading a request body without ever holding more of it than the limit allows.

A declared `Content-Length` above the limit is refused before a byte is read; a body sent in
chunks (or lying about its length) is refused as soon as it crosses the limit, and what came
before is dropped. A body that takes longer than `BODY_SECONDS` to arrive is given up on (a
client trickling bytes would otherwise hold its request open for ever).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BODY_SECONDS", "BodyTimeout", "BodyTooLarge", "ClientGone", "read_body"]

BODY_SECONDS = 30.0

ASGIReceive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class BodyTooLarge(Exception):
    """The body is longer than `limit` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body exceeds the limit of {limit} bytes")
        self.limit = limit


class BodyTimeout(Exception):
    """The body did not arrive within `seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request body did not arrive within {seconds:g} seconds")
        self.seconds = seconds


class ClientGone(Exception):
    """The client disconnected before its body was complete."""


def declared_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    """The `Content-Length` a request declares, or None (absent or not a number)."""
    for name, value in headers:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def read_body(receive: ASGIReceive, limit: int, declared: int | None = None) -> bytes:
    """The whole body of the request, at most `limit` bytes (a `declared` Content-Length over
    it is refused at once), within `BODY_SECONDS`; raises `BodyTooLarge`, `BodyTimeout` or
    `ClientGone`."""
    if declared is not None and declared > limit:
        raise BodyTooLarge(limit)
    seconds = BODY_SECONDS
    # A bare timer rather than asyncio.timeout(): a third of the cost, on every request.
    task = asyncio.current_task()
    assert task is not None
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    timer = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        return await _read(receive, limit)
    except asyncio.CancelledError:
        if not expired:
            raise
        task.uncancel()
        raise BodyTimeout(seconds) from None
    finally:
        timer.cancel()


async def _read(receive: ASGIReceive, limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientGone
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit)
        if not message.get("more_body", False):
            return b"".join((*parts, chunk)) if parts else chunk
        parts.append(chunk)
