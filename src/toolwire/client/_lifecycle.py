"""Holding a connection open for a server object: open, reuse, reopen, close.

`LinkHolder` is the part of the client classes that owns the `Link` (see `_link.py`): it
connects, hands each request a live `mcp` client (reopening the connection when the last one
died: a server restarted, a session expired), and closes it, all from whatever tasks call.
The transport classes fill in the hooks: how to open the client, and what more to say
when a connection is lost.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from ._link import Link
from .errors import NOT_CONNECTED, MCPCallError, diagnose

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["LinkHolder"]

logger = logging.getLogger("toolwire.client")


class LinkHolder:
    """Connection ownership for a client server (mixed into `MCPClientServer`)."""

    connect_timeout_seconds: float | None
    _link: Link | None
    _connected: bool
    _reconnecting: asyncio.Lock
    _tools_fresh: bool

    @property
    def name(self) -> str:
        raise NotImplementedError

    def _open_client(self) -> AbstractAsyncContextManager[Any]:
        raise NotImplementedError

    async def _describe_loss(self) -> str:
        """More on a lost connection (a child process's exit status and stderr), or ""."""
        return ""

    def _transport_alive(self) -> bool:
        """Whether what carries the connection is still there (a child process has not
        exited); a dead one is replaced before the next request rather than failing it."""
        return True

    def _describe_silence(self) -> str:
        """More on a request left unanswered (what the server wrote instead), or ""."""
        return ""

    @property
    def client(self) -> Any:
        """The live `mcp.Client` (None when not connected)."""
        return self._link.client if self._link is not None else None

    @property
    def session(self) -> Any:
        """The `mcp` ClientSession under the client (None when not connected)."""
        client = self.client
        return client.session if client is not None else None

    @property
    def protocol_version(self) -> str | None:
        """The protocol version agreed with the server (None when not connected)."""
        client = self.client
        return client.protocol_version if client is not None else None

    async def connect(self) -> None:
        """Start the server (stdio) or open the connection (HTTP), and initialize.

        The connection is held by a task of its own, so `cleanup()` may run in another task.

        Raises:
            MCPCallError: The server could not be reached or did not initialize; the message
                names the server.
        """
        if self._link is not None and self._link.alive:
            return
        await self._open_link()
        self._connected = True

    async def _open_link(self) -> None:
        link = Link(self._open_client, self.name)
        try:
            await link.open(self.connect_timeout_seconds)
        except Exception as error:
            found = diagnose(error, self.connect_timeout_seconds)
            reason = found.reason + await self._describe_loss()
            message = f"Failed to connect to MCP server '{self.name}': {reason}"
            raise MCPCallError(
                self.name, "initialize", reason, lost=True, message=message
            ) from error
        self._link = link

    async def cleanup(self) -> None:
        """Close the connection and end the server process (bounded, safe to call twice)."""
        self._connected = False
        link, self._link = self._link, None
        if link is not None:
            await link.close()

    async def __aenter__(self) -> Any:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.cleanup()

    def _ready_client(self) -> Any:
        """The client when the connection is healthy, else None (no await, no lock)."""
        link = self._link
        if link is not None and link.alive and self._transport_alive():
            return link.client
        return None

    async def _live_client(self) -> Any:
        """The client to send a request through, reconnecting when the last one died."""
        if not self._connected:
            from ..errors import UserError

            raise UserError(NOT_CONNECTED)
        ready = self._ready_client()
        if ready is not None:
            return ready
        async with self._reconnecting:
            if self._link is not None and self._link.alive and self._transport_alive():
                return self._link.client
            if self._link is not None:
                old, self._link = self._link, None
                await old.close()
            logger.info("MCP server %r: reconnecting", self.name)
            self._tools_fresh = False
            await self._open_link()
            assert self._link is not None
            return self._link.client

    async def _forget_link(self) -> None:
        """Drop a connection that failed, so that the next request opens a new one."""
        async with self._reconnecting:
            old, self._link = self._link, None
        if old is not None:
            await old.close()
