"""A client's answer that reaches a process other than the one whose call asked for it.

When a tool asks its client something during a call, the answer comes in a separate POST,
which a load balancer may send to any process. A process that receives an answer it does not
wait for still answers the POST 202 at once and passes it on the change bus
(`CLIENT_RESPONSE`, naming the session); the one copy waiting for that id takes it, and the
others ignore it. An answer larger than `MAX_FORWARDED_BYTES` is not passed on: the waiting
call gets an error answer naming the size and the limit.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from ....protocol.wire.jsonrpc import INTERNAL_ERROR, Response, classify

if TYPE_CHECKING:
    from .session_manager import SessionManager

__all__ = ["MAX_FORWARDED_BYTES", "forward_notice", "take_forwarded"]

logger = logging.getLogger("toolwire.http")

MAX_FORWARDED_BYTES = 1024 * 1024
"""The largest client answer (as JSON) passed between processes: an elicitation form or a
sampled message fits many times over; an image sampled back may not, and is refused."""


def forward_notice(session_id: str, message: dict[str, Any], request_id: Any) -> str:
    """The data of the `CLIENT_RESPONSE` notice for one client answer in one session: the
    answer itself, or an error answer to the same request when it is too large to carry."""
    data = json.dumps([session_id, message], separators=(",", ":"))
    if len(data) <= MAX_FORWARDED_BYTES:
        return data
    logger.warning(
        "session %s: the client's answer to %r is %d bytes, over the %d the change bus "
        "carries between processes; the waiting call gets an error instead",
        session_id,
        request_id,
        len(data),
        MAX_FORWARDED_BYTES,
    )
    refusal = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": INTERNAL_ERROR,
            "message": (
                f"The answer ({len(data)} bytes) reached another server process and is too "
                f"large to pass on (at most {MAX_FORWARDED_BYTES} bytes)"
            ),
        },
    }
    return json.dumps([session_id, refusal], separators=(",", ":"))


def take_forwarded(sessions: SessionManager, data: str) -> bool:
    """Resolve the request a forwarded answer is for, if this process waits for it; return
    whether it did."""
    try:
        session_id, message = json.loads(data)
    except (TypeError, ValueError):
        logger.warning("change bus: ignored a client answer that is not one: %.200r", data)
        return False
    item = classify(message) if isinstance(session_id, str) else None
    if not isinstance(item, Response):
        logger.warning("change bus: ignored a client answer that is not one: %.200r", data)
        return False
    held = sessions.live.get(session_id)
    server_session = held.server_session if held is not None else None
    if server_session is None or not server_session.outbound.awaits(item.id):
        logger.debug("session %s: answer %r is not awaited here; ignored", session_id, item.id)
        return False
    server_session.outbound.resolve(item.id, item.result, item.error)
    logger.debug("session %s: took answer %r passed on by another process", session_id, item.id)
    return True
