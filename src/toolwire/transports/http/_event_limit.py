"""Sessions opened for HTTP carry the app's bound on what they send (`max_event_bytes`).

The bound is a property of the transport, not of the protocol, so the opener the app was
handed is wrapped once: each session it opens learns the bound before its first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol.session.serving import opener_then

if TYPE_CHECKING:
    from ...protocol.session.serving import SessionOpener
    from ...protocol.session.session import ServerSession

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "bounded_opener", "checked_event_limit"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
"""The largest message an HTTP app sends (an SSE event or a JSON body) unless configured."""


def checked_event_limit(value: Any) -> int | None:
    """`max_event_bytes` as given: None (no bound) or an integer >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"max_event_bytes must be an integer >= 1 or None, not {value!r}")
    return value


def bounded_opener(opener: SessionOpener, max_event_bytes: int | None) -> SessionOpener:
    """`opener`, whose sessions send nothing over `max_event_bytes` (None: `opener` itself)."""
    if max_event_bytes is None:
        return opener

    def limit(session: ServerSession) -> None:
        session.max_frame_bytes = max_event_bytes

    return opener_then(opener, limit)
