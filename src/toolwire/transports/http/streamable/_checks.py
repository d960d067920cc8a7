"""What a handshake-era request's headers must say: `Accept` and `Content-Type`.

Media ranges are compared without their parameters, and `*/*` and type wildcards count, as HTTP
defines them. `answer_as` gives a POST an event stream only when its `Accept` names one
(`text/event-stream` or `text/*`), a JSON body when it allows JSON, `*/*` or has no `Accept`,
and refuses it only when it allows neither.
"""

from __future__ import annotations

__all__ = ["accepts_sse", "answer_as", "is_json"]


def _kinds(accept: bytes) -> set[bytes]:
    return {part.split(b";", 1)[0].strip().lower() for part in accept.split(b",")}


def answer_as(accept: bytes | None, json_response: bool) -> str | None:
    """How to answer a POST: "json" (one body), "sse" (a stream), or None (406).

    Args:
        accept: The request's `Accept` header, if any.
        json_response: The app answers with JSON bodies only.
    """
    if not accept:
        return "json"
    kinds = _kinds(accept)
    json_ok = bool(kinds & {b"application/json", b"application/*", b"*/*"})
    sse_ok = b"text/event-stream" in kinds or b"text/*" in kinds
    if json_response:
        return "json" if json_ok else None
    if sse_ok:
        return "sse"
    return "json" if json_ok else None


def accepts_sse(accept: bytes | None) -> bool:
    """Whether a GET's `Accept` allows an event stream (a missing one allows anything)."""
    if not accept:
        return True
    return bool(_kinds(accept) & {b"text/event-stream", b"text/*", b"*/*"})


def is_json(content_type: bytes | None) -> bool:
    """Whether a `Content-Type` says JSON (parameters such as `charset` allowed)."""
    return (
        content_type is not None
        and content_type.split(b";", 1)[0].strip().lower() == b"application/json"
    )
