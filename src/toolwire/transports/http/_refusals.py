"""Refusing a request before it reaches the MCP endpoint: a status, a JSON-RPC error body.

The security middleware answer on their own (the endpoint never sees the request), and a
client reading the body should learn the same thing as the operator reading the log: what
was refused and what to set to allow it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from ...protocol.wire.jsonrpc import RequestId, error_message
from .channel import JSON_TYPE, respond

__all__ = ["ASGIApp", "Receive", "Scope", "Send", "header_text", "printable", "refuse"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_SHOWN_LIMIT = 200


async def refuse(
    send: Send,
    status: int,
    code: int,
    message: str,
    *,
    request_id: RequestId | None = None,
    data: Any = None,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Answer with `status` and a JSON-RPC error (`code`, `message`, `data`) as the body."""
    await respond(
        send, status, error_message(request_id, code, message, data), [JSON_TYPE, *headers]
    )


def printable(raw: bytes | str) -> str:
    """A header value as it may appear in a message or a log line: what the client sent is
    untrusted, so control characters are escaped and the length is capped."""
    text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
    if len(text) > _SHOWN_LIMIT:
        text = text[:_SHOWN_LIMIT] + "..."
    if text.isprintable():
        return text
    return text.encode("unicode_escape").decode("ascii")


def header_text(value: str) -> bytes:
    """A quoted-string for an HTTP header parameter (RFC 9110): quotes and backslashes
    escaped, anything outside printable ASCII dropped."""
    cleaned = "".join(char for char in value if " " <= char <= "~")
    return cleaned.replace("\\", "\\\\").replace('"', '\\"').encode("ascii")
