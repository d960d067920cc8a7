"""What a session sends instead of a frame too large for its transport to carry.

An HTTP deployment bounds each event it emits (proxies and clients buffer an SSE event whole);
a tool result past that bound must not vanish, or the caller would wait for ever. A reply is
replaced by a JSON-RPC error for the same id that names both sizes; anything else (a
notification, a request to the client) is dropped with a warning, since nobody waits on a
notification and a request to the client ends with its own timeout.
"""

from __future__ import annotations

import logging

from .jsonrpc import INTERNAL_ERROR, RequestId, encode_value, error_message

__all__ = ["oversized_frame"]

logger = logging.getLogger("toolwire.protocol")


def oversized_frame(frame: bytes, request_id: RequestId | None, limit: int) -> bytes | None:
    """The frame to send in place of `frame`, which is over `limit` bytes; None: send nothing.

    Args:
        frame: The encoded message that is too large.
        request_id: The request it belongs to, if any (see `ServerSession.send`).
        limit: The largest frame the transport carries.
    """
    size = len(frame)
    if request_id is not None and _is_reply(frame, request_id):
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


def _is_reply(frame: bytes, request_id: RequestId) -> bool:
    # Replies are encoded as {"jsonrpc":"2.0","id":<id>,"result"|"error":...}; a request to
    # the client carries an id of its own, followed by "method".
    head = b'{"jsonrpc":"2.0","id":' + encode_value(request_id) + b","
    return frame.startswith(head) and not frame.startswith(b'"method"', len(head))
