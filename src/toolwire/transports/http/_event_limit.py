"""The bound on what an HTTP app sends (`max_event_bytes`): its default, and the check of a
value given; `SessionsOpened.opener` applies it to each session an app opens."""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "checked_event_limit"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
"""The largest message an HTTP app sends (an SSE event or a JSON body) unless configured."""


def checked_event_limit(value: Any) -> int | None:
    """`max_event_bytes` as given: None (no bound) or an integer >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"max_event_bytes must be an integer >= 1 or None, not {value!r}")
    return value
