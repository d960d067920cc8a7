"""One live `mcp` client, entered, held open and left by an owner task of its own, while other
tasks only send requests through it: opening and closing may happen in any two tasks, and a
caller's cancellation never tears the client's context managers down half-way."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio

__all__ = ["Link", "LinkClosedError"]

logger = logging.getLogger("toolwire.client")

# How long closing waits for the owner task before cancelling it, then after cancelling it.
_CLOSE_SECONDS = 10.0
_CANCELLED_CLOSE_SECONDS = 5.0


class LinkClosedError(Exception):
    """The connection ended (the server exited, or its stream closed)."""


def _innermost(error: BaseException) -> BaseException:
    """The one interesting exception inside nested single-member exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


class Link:
    """A client `factory()` yields, opened by `open()` and closed by `close()` from any tasks."""

    def __init__(self, factory: Callable[[], AbstractAsyncContextManager[Any]], label: str):
        self._factory = factory
        self._label = label
        self._client: Any = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None

    @property
    def client(self) -> Any:
        """The `mcp.Client` (None before `open()` succeeds)."""
        return self._client

    @property
    def alive(self) -> bool:
        """Whether the owner task still holds the connection open."""
        return self._task is not None and not self._task.done() and self._client is not None

    async def _own(self) -> None:
        try:
            async with self._factory() as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            self._failure = _innermost(error)
            if self._ready.is_set():
                logger.warning("MCP server %r: connection ended: %r", self._label, self._failure)
        finally:
            self._ready.set()

    async def open(self, timeout: float | None) -> None:
        """Start the owner task and wait until the client is ready; a failure undoes it."""
        self._task = asyncio.get_running_loop().create_task(
            self._own(), name=f"toolwire-mcp-client {self._label}"
        )
        try:
            with anyio.fail_after(timeout):
                await self._ready.wait()
        except BaseException:
            await self.close()
            raise
        if self._client is None or self._task.done():
            failure = self._failure or LinkClosedError("the connection closed while opening")
            await self.close()
            raise failure

    async def close(self) -> None:
        """Stop the owner task and wait for it (bounded), even from a cancelled caller."""
        task = self._task
        if task is None:
            return
        self._stop.set()
        with anyio.CancelScope(shield=True):
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_SECONDS)
            if not done:
                logger.warning("MCP server %r: closing took too long, cancelling", self._label)
                task.cancel()
                await asyncio.wait({task}, timeout=_CANCELLED_CLOSE_SECONDS)
        if task.done() and not task.cancelled():
            with contextlib.suppress(BaseException):
                task.result()
        self._client = None
