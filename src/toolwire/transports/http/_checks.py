"""What a handshake-era request's headers must say: `Accept` and `Content-Type`.

Media ranges are compared without their parameters; `*/*` and a type's wildcard (`text/*`)
count, as HTTP defines them. A missing `Accept` is refused: the transport specification
requires the client to list what it takes.
"""

from __future__ import annotations

__all__ = ["accepts", "accepts_sse", "is_json"]


def accepts(accept: bytes | None, json_only: bool) -> bool:
    """Whether a POST's `Accept` allows the answer: JSON (`json_only`), or JSON and SSE."""
    if not accept:
        return False
    kinds = {part.split(b";", 1)[0].strip().lower() for part in accept.split(b",")}
    if b"*/*" in kinds:
        return True
    json_ok = b"application/json" in kinds or b"application/*" in kinds
    if json_only:
        return json_ok
    return json_ok and (b"text/event-stream" in kinds or b"text/*" in kinds)


def accepts_sse(accept: bytes | None) -> bool:
    """Whether a GET's `Accept` allows an event stream."""
    if not accept:
        return False
    kinds = {part.split(b";", 1)[0].strip().lower() for part in accept.split(b",")}
    return bool(kinds & {b"text/event-stream", b"text/*", b"*/*"})


def is_json(content_type: bytes | None) -> bool:
    """Whether a `Content-Type` says JSON (parameters such as `charset` allowed)."""
    return (
        content_type is not None
        and content_type.split(b";", 1)[0].strip().lower() == b"application/json"
    )
