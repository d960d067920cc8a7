"""`initialize` over streamable HTTP: a new session answers it and is kept, its record written,
only if the handshake succeeded (a record that cannot be written is a 503 naming the store)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._sse import SSE_HEADERS, encode_event
from ..asgi import JSON_TYPE, ASGIReceive, ASGISend, refuse, respond, unavailable
from ..channel import Stream
from .records import StoreUnavailable
from .sessions import SessionLimitError

if TYPE_CHECKING:
    from ....protocol.wire.jsonrpc import Request
    from .._runtime import Runtime

__all__ = ["SESSION_HEADER", "full", "start_session"]

SESSION_HEADER = b"mcp-session-id"


async def full(send: ASGISend, max_sessions: int) -> None:
    """Refuse a session for want of room (503 with `Retry-After`)."""
    await refuse(
        send,
        503,
        f"Service Unavailable: the server holds its maximum of {max_sessions} sessions; "
        "retry later",
        headers=[(b"retry-after", b"5")],
    )


async def start_session(
    runtime: Runtime,
    receive: ASGIReceive,
    send: ASGISend,
    message: Any,
    body: bytes,
    item: Request,
    identity: Any,
    as_json: bool,
) -> None:
    """Serve one `initialize` POST: a new session answers it, and is kept if it succeeded."""
    sessions = runtime.sessions
    assert sessions is not None
    try:
        opened = await sessions.open(identity, runtime.open_options(identity))
    except SessionLimitError:
        await full(send, sessions.max_sessions)
        return
    session = opened.server_session
    assert session is not None
    collected = Stream(None, None, sse=False)
    collected.owe(item.id)
    opened.routes[item.id] = collected
    session.backlog.frame_size = len(body)
    await session.receive_message(message)
    await collected.wait(receive)
    opened.routes.pop(item.id, None)
    if not collected.replies:  # the client left before its answer: nobody to serve
        await sessions.discard(opened)
        return
    headers = [(SESSION_HEADER, opened.id.encode("ascii"))]
    if session.protocol_version is None:  # refused: no session comes of it
        await sessions.discard(opened)
        headers = []
    else:
        try:
            await sessions.commit(opened)
        except StoreUnavailable as failure:  # a session no other process could find
            await sessions.discard(opened)
            await unavailable(send, failure)
            return
    reply = collected.replies[0]
    if as_json:
        await respond(send, 200, reply, [JSON_TYPE, *headers])
        return
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
    await send({"type": "http.response.body", "body": encode_event(reply)})
