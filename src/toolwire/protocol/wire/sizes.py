"""What a session sends instead of a frame too large for its transport to carry.

An HTTP deployment bounds each event it emits (proxies and clients buffer an SSE event whole);
a tool result past that bound must not vanish, or the caller would wait for ever. A reply is
replaced by a JSON-RPC error for the same id that names both sizes; anything else (a
notification, a request to the client) is dropped with a warning, since nobody waits on a
notification and a request to the client ends with its own timeout.
"""

from __future__ import annotations

import logging

from .jsonrpc import INTERNAL_ERROR, FrameKind, RequestId, error_message

__all__ = ["oversized_frame"]

logger = logging.getLogger("toolwire.protocol")


def oversized_frame(
    frame: bytes, kind: FrameKind, request_id: RequestId | None, limit: int
) -> bytes | None:
    """The frame to send in place of `frame`, which is over `limit` bytes; None: send nothing.

    Args:
        frame: The encoded message that is too large.
        kind: What the frame is (see `ServerSession.send`).
        request_id: The request it belongs to, if any.
        limit: The largest frame the transport carries.
    """
    size = len(frame)
    if kind is FrameKind.REPLY and request_id is not None:
        logger.warning(
            "the reply to request %r is %d bytes, over the limit of %d bytes "
            "(max_event_bytes); the client gets an error instead",
            request_id,
            size,
            limit,
        )
        return error_message(
            request_id,
            INTERNAL_ERROR,
            f"Result of {size} bytes exceeds the maximum event size of {limit} bytes",
        )
    logger.warning(
        "a message of %d bytes for request %r is over the limit of %d bytes "
        "(max_event_bytes) and was not sent",
        size,
        request_id,
        limit,
    )
    return None
