"""Server-sent events as bytes: the wire form of one event, and the response headers."""

from __future__ import annotations

import re

__all__ = ["SSE_HEADERS", "encode_event"]

SSE_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    # Reverse proxies (nginx) would otherwise hold events back until their buffer fills.
    (b"x-accel-buffering", b"no"),
]

_BREAKS = re.compile(rb"\r\n|\r|\n")


def encode_event(data: bytes, event_id: str | None = None, retry_ms: int | None = None) -> bytes:
    """One SSE event of `data`, named `message` (b"": an id and retry hint only)."""
    head = b""
    if event_id is not None:
        head += b"id: " + event_id.encode("utf-8") + b"\n"
    if retry_ms is not None:
        head += b"retry: " + str(int(retry_ms)).encode("ascii") + b"\n"
    if data:
        head += b"event: message\n"
    if b"\n" in data or b"\r" in data:
        lines = _BREAKS.split(data)
        return head + b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"
    return head + b"data: " + data + b"\n\n"
