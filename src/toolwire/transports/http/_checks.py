"""What a handshake-era request's headers must say: `Accept` and `Content-Type`.

Media ranges are compared without their parameters; `*/*` and a type's wildcard (`text/*`)
count, as HTTP defines them.

The transport specification asks clients to accept both JSON and SSE on a POST, yet real
clients do not all do so: OpenAI's hosted MCP connector and some Claude clients send only
`Accept: application/json` (or no `Accept`), and a strict 406 makes the server unusable
from them (openai-cookbook#2394, claude-code#45368). Since the server may always answer a
request with one JSON body, a POST gets an event stream only when its `Accept` names one
(`text/event-stream` or `text/*`); one that allows JSON, a bare `*/*` or no `Accept` at all
(RFC 9110: anything) gets a JSON body. Only an `Accept` allowing neither is refused.
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
