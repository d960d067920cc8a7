"""The requests an era serves, as tables of `Route`s, and the capabilities that follow from them.
Each handler gets the `Session` serving the request and answers on it; what a method adds to the
capabilities travels with its route, so a server never claims a capability whose method it does not
serve. List pages hold `PAGE_SIZE` entries behind an opaque cursor; a cursor this server did not
issue for that list is -32602."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Protocol

from ..wire import eras
from ..wire.jsonrpc import (
    INVALID_PARAMS,
    FrameKind,
    ProtocolError,
    encode_value,
    result_message_raw,
)
from .asking import AskingSession

if TYPE_CHECKING:
    import anyio

    from ...tools.threads import SyncBudget
    from ..features.registry import RegisteredTool
    from ..wire.jsonrpc import RequestId
    from .app import ServedApp
    from .call_context import ContextSource
    from .requests_in_flight import RequestsInFlight
    from .subscriptions import Listeners

__all__ = [
    "PAGE_SIZE",
    "Params",
    "Route",
    "Session",
    "capabilities",
    "decode_cursor",
    "encode_cursor",
    "send_page",
]

PAGE_SIZE = 100
_CURSOR_PREFIX = "tw1:"

Params = dict[str, Any] | None  # a request's params, as route handlers get them


class Session(AskingSession, Protocol):
    """What a route handler uses of the session serving the request (`session.ServerSession`)."""

    server: ServedApp
    tools: Mapping[str, RegisteredTool]
    requests: RequestsInFlight
    contexts: ContextSource
    sync_limiter: SyncBudget | anyio.CapacityLimiter | None
    listeners: Listeners
    protocol_version: str | None
    log_level: str
    resource_subscriptions: set[str]

    def capabilities(self) -> dict[str, Any]:
        """The capabilities the connection's era advertises."""


@dataclass(frozen=True, slots=True)
class Route:
    """How one method is served in one era: `handler(session, request_id, params, version,
    log_level)` answers it (or starts the work that will), `grants` is what it adds to the
    capabilities (merged one level deep), `before_handshake` lets it precede `initialize`."""

    handler: Callable[Concatenate[Session, ...], Awaitable[None]]
    grants: Mapping[str, Mapping[str, Any]] | None = None
    before_handshake: bool = False


def capabilities(table: Mapping[str, Route]) -> dict[str, Any]:
    """The capabilities a server serving `table` advertises (a new dict on each call)."""
    merged: dict[str, dict[str, Any]] = {}
    for route in table.values():
        for name, settings in (route.grants or {}).items():
            merged.setdefault(name, {}).update(settings)
    return merged


async def send_page(
    session: Session,
    request_id: RequestId,
    params: dict[str, Any] | None,
    version: str,
    method: str,
    key: str,
    entries: Sequence[Any] | Callable[[], Awaitable[Sequence[Any]]],
    cache: dict[tuple[str, int], bytes] | None = None,
) -> None:
    """Answer the list request `method` with the page of `entries` its cursor names, each
    entry's `listing(version)` under `key`, and a `nextCursor` when more follow.

    `entries` may be a coroutine function, awaited only when the page must be built; a `cache`
    keeps each built page's encoded result by (version, offset) and serves it again as is.
    """
    cursor = params.get("cursor") if params else None
    if cursor is not None and not isinstance(cursor, str):
        raise eras.invalid_params(f"{method}: 'cursor' must be a string")
    offset = 0 if cursor is None else decode_cursor(cursor, method)
    payload = None if cache is None else cache.get((version, offset))
    if payload is None:
        if callable(entries):
            entries = await entries()
        if offset > len(entries) or (offset and offset == len(entries)):
            raise ProtocolError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})
        end = offset + PAGE_SIZE
        result: dict[str, Any] = {key: [entry.listing(version) for entry in entries[offset:end]]}
        if end < len(entries):
            result["nextCursor"] = encode_cursor(end, method)
        eras.stamp_for(version, result, session.server_info, cacheable=True)
        payload = encode_value(result)
        if cache is not None:
            cache[(version, offset)] = payload
    await session.send(result_message_raw(request_id, payload), FrameKind.REPLY, request_id)


def encode_cursor(offset: int, method: str) -> str:
    """An opaque cursor for the page of the list `method` starting at `offset`."""
    text = f"{_CURSOR_PREFIX}{method} {offset}"
    return base64.urlsafe_b64encode(text.encode()).decode("ascii")


def decode_cursor(cursor: str, method: str) -> int:
    """The offset a cursor of the list `method` names; -32602 for anything this server did not
    issue for that list (a cursor of another list included)."""
    try:
        if len(cursor) > 64:
            raise ValueError
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
        issued_for, _, digits = text.rpartition(" ")
        if issued_for != _CURSOR_PREFIX + method or not digits.isdigit():
            raise ValueError
        return int(digits)
    except (ValueError, UnicodeError, binascii.Error):
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor}) from None
