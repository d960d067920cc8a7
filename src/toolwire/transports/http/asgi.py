"""The plain HTTP exchange under every toolwire ASGI app: the ASGI types, the request body
(`read_body`: never more than the limit, never longer than `BODY_SECONDS`), and answers that are
not streams (`respond`; `refuse`: an HTTP error status with a JSON-RPC error body naming what
was wrong). Header values a client sent are shown through `printable`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from ...protocol.wire.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, RequestId, error_message

__all__ = [
    "BODY_SECONDS",
    "JSON_TYPE",
    "ASGIApp",
    "ASGIReceive",
    "ASGISend",
    "BodyTimeout",
    "BodyTooLarge",
    "ClientGone",
    "Headers",
    "Scope",
    "header",
    "header_text",
    "json_body",
    "printable",
    "read_body",
    "refuse",
    "request_headers",
    "respond",
    "route_path",
    "unavailable",
]

logger = logging.getLogger("toolwire.http")

Scope = MutableMapping[str, Any]
ASGIReceive = Callable[[], Awaitable[MutableMapping[str, Any]]]
ASGISend = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, ASGIReceive, ASGISend], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

JSON_MEDIA = b"application/json"
JSON_TYPE = (b"content-type", JSON_MEDIA)
_SHOWN_LIMIT = 200

BODY_SECONDS = 30.0


class BodyTooLarge(Exception):
    """The body is longer than `limit` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"Request body exceeds the limit of {limit} bytes")
        self.limit = limit


class BodyTimeout(Exception):
    """The body did not arrive within `seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request body did not arrive within {seconds:g} seconds")
        self.seconds = seconds


class ClientGone(Exception):
    """The client disconnected before its body was complete."""


def header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of the request header `name` (lower case), or None."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def request_headers(scope: Scope) -> tuple[dict[bytes, bytes], dict[bytes, int]]:
    """The request's headers by name, the first copy of each, `Accept` lines joined into one
    list (RFC 9110 section 5.3); and how many times each name sent twice or more came."""
    found: dict[bytes, bytes] = {}
    repeated: dict[bytes, int] = {}
    accepts: list[bytes] = []
    for name, value in scope["headers"]:
        if name == b"accept":
            accepts.append(value)
        elif name not in found:
            found[name] = value
        else:
            repeated[name] = repeated.get(name, 1) + 1
    if accepts:
        found[b"accept"] = b", ".join(accepts)
    return found, repeated


def route_path(scope: Scope) -> str:
    """The request's path below the mount point (ASGI's `path` includes `root_path`)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and (len(path) == len(root) or path[len(root)] == "/"):
        return path[len(root) :]
    return path


async def read_body(receive: ASGIReceive, limit: int, declared: int | None = None) -> bytes:
    """The whole body, at most `limit` bytes (`declared` is its Content-Length), within
    `BODY_SECONDS`; raises `BodyTooLarge`, `BodyTimeout` or `ClientGone`."""
    if declared is not None and declared > limit:
        raise BodyTooLarge(limit)
    seconds = BODY_SECONDS
    task = asyncio.current_task()
    assert task is not None
    expired: list[bool] = []

    def expire() -> None:
        expired.append(True)
        task.cancel()

    # A bare timer, not asyncio.timeout(): it is set on every request and costs half as much.
    timer = asyncio.get_running_loop().call_later(seconds, expire)
    parts: list[bytes] = []
    size = 0
    try:
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise ClientGone
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge(limit)
            if not message.get("more_body", False):
                return b"".join((*parts, chunk)) if parts else chunk
            parts.append(chunk)
    except asyncio.CancelledError:
        if not expired or task.uncancel():
            raise
        raise BodyTimeout(seconds) from None
    finally:
        timer.cancel()


async def json_body(
    scope: Scope,
    receive: ASGIReceive,
    send: ASGISend,
    limit: int,
    too_large: str = "Payload Too Large: ",
) -> bytes | None:
    """The body of a POST whose `Content-Type` says JSON, at most `limit` bytes; None once
    refused (415; 413, its reason after `too_large`; 408) or when the client left."""
    content_type = header(scope, b"content-type")
    if content_type is None or content_type.split(b";", 1)[0].strip().lower() != JSON_MEDIA:
        await refuse(send, 415, "Unsupported Media Type: Content-Type must be application/json")
        return None
    length = header(scope, b"content-length")
    try:
        return await read_body(receive, limit, int(length) if length and length.isdigit() else None)
    except BodyTooLarge as error:
        await refuse(send, 413, f"{too_large}{error}")
    except BodyTimeout as error:
        await refuse(send, 408, f"Request Timeout: {error}", headers=[(b"connection", b"close")])
    except ClientGone:
        pass
    return None


async def respond(
    send: ASGISend, status: int, body: bytes = b"", headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Send a whole response in two ASGI messages."""
    head: Headers = list(headers)
    head.append((b"content-length", str(len(body)).encode("ascii") if body else b"0"))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


async def refuse(
    send: ASGISend,
    status: int,
    message: str,
    *,
    code: int = INVALID_REQUEST,
    headers: Iterable[tuple[bytes, bytes]] = (),
    request_id: RequestId | None = None,
    data: Any = None,
) -> None:
    """Answer with an HTTP error status and a JSON-RPC error body (a failed send is logged)."""
    body = error_message(request_id, code, message, data)
    try:
        await respond(send, status, body, [JSON_TYPE, *headers])
    except Exception as error:  # the ASGI server's own protocol error: not ours to report
        logger.debug("refusal %d not sent, the connection is over: %r", status, error)


async def unavailable(send: ASGISend, failure: Exception) -> None:
    """Answer 503 for a shared store that failed (`records.StoreUnavailable`)."""
    await refuse(
        send,
        503,
        f"Service Unavailable: {failure}",
        code=INTERNAL_ERROR,
        headers=[(b"retry-after", b"1")],
    )


def printable(raw: bytes | str) -> str:
    """A client's header value for a message or log line: escaped, its length capped."""
    text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
    if len(text) > _SHOWN_LIMIT:
        text = text[:_SHOWN_LIMIT] + "..."
    if text.isprintable():
        return text
    return text.encode("unicode_escape").decode("ascii")


def header_text(value: str) -> bytes:
    """The inside of an HTTP quoted-string (RFC 9110); anything but printable ASCII dropped."""
    cleaned = "".join(char for char in value if " " <= char <= "~")
    return cleaned.replace("\\", "\\\\").replace('"', '\\"').encode("ascii")
