"""A toolwire server reached in memory: the `mcp` client's streams wired to a server session.

The server is served as a transport serves it (lifespan, one session), but frames cross two
in-memory streams: no process, thread or socket. The session shows error details, since the
caller is the server's author. Leaving closes the session (cancelling calls still running),
then exits the lifespan.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream

    from ..protocol.session.serving import Servable
    from ..protocol.session.session import ServerSession

__all__ = ["memory_transport"]

_BUFFERED = 64  # messages in flight each way before the writer waits


@asynccontextmanager
async def memory_transport(server: Servable) -> AsyncIterator[tuple[Any, Any]]:
    """Serve `server` in this task and yield the `(read, write)` streams `mcp.Client` takes."""
    to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](
        _BUFFERED
    )
    client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](_BUFFERED)

    async def send(frame: bytes) -> None:
        message = jsonrpc_message_adapter.validate_json(frame)
        # A client that has gone is not an error: what was meant for it is dropped.
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await to_client.send(SessionMessage(message))

    async with (
        to_client,
        client_reads,
        client_writes,
        from_client,
        server.serving() as open_session,
        open_session(send, error_details=True, session_id=secrets.token_hex(16)) as session,
        anyio.create_task_group() as group,
    ):
        group.start_soon(_hand_frames, from_client, session)
        try:
            yield client_reads, client_writes
        finally:
            group.cancel_scope.cancel()
            session.close()


async def _hand_frames(
    from_client: MemoryObjectReceiveStream[SessionMessage], session: ServerSession
) -> None:
    """Give the session each message the client writes, in order, as the wire's bytes."""
    async for item in from_client:
        frame = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        await session.backlog.until_clear()  # while the session's replies are not being read
        await session.receive(frame)
