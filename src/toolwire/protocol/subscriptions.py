"""`subscriptions/listen` (2026-07-28): the streams on which a modern client hears list changes.

In the modern era a server never sends `notifications/tools/list_changed` on its own: a client
opts in with a `subscriptions/listen` request, whose response is the stream. Wire shapes follow
the spec and the official SDK (`mcp.server.subscriptions.ListenHandler`); `id` below is the
listen request's JSON-RPC id, string or integer, echoed exactly:

- request  `{"method": "subscriptions/listen", "params": {"_meta": <envelope>,
  "notifications": {"toolsListChanged": true}}}`
- first frame of the stream: `notifications/subscriptions/acknowledged` with
  `{"notifications": <honored filter>, "_meta": {"io.modelcontextprotocol/subscriptionId": id}}`
- then, per change: `notifications/tools/list_changed` (or `prompts/list_changed`) with
  `{"_meta": {<same key>: id}}`
- graceful end (`Listeners.end`): the result `{"resultType": "complete", "_meta":
  {<same key>: id, "io.modelcontextprotocol/serverInfo": ...}}` for the listen request.

Decisions:

- The acknowledgement honors `toolsListChanged` and `promptsListChanged` (each only when
  asked for); kinds this module does not serve are omitted from it, as the spec asks of
  unsupported kinds (the SDK's handler echoes every requested kind).
  A stream that honors nothing stays open, silent, until it is cancelled.
- `params.notifications` must be an object; each flag, when present and not null, must be a
  boolean (as the schema says; the SDK's pydantic models would coerce "yes" or 1), and
  `resourceSubscriptions` a list of strings. Anything else is -32602 "Invalid request
  parameters" with `data` naming the field (unknown filter keys are ignored).
- `notifications/cancelled` naming the listen request ends the stream and sends nothing:
  a cancelled request gets no response (spec), and the SDK client settles its side itself.
- A listen reusing the id of a stream still open is ignored with a warning (answering it
  would close the client's open stream); ids are not checked against calls in flight.
- At most `MAX_STREAMS` per connection; the next listen gets -32603 "Subscription limit
  reached" before any acknowledgement (the SDK's bound and error).
- A stream has no task of its own: it is an entry that the change publisher writes to. Changes
  are level triggers ("refetch if you care"), so they coalesce: while a stream's notification
  waits for the wire, further changes add at most one more of each kind. A change that
  arrives while the acknowledgement is being written is sent right after it, never before.
- Leaving the session (or `close()`) drops every stream without a frame: the transport is
  going away, and an abrupt end carries no response (spec).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from . import eras, handlers
from .jsonrpc import INTERNAL_ERROR, ProtocolError, RequestId, notification, result_message

__all__ = [
    "ACKNOWLEDGED",
    "MAX_STREAMS",
    "PROMPTS_LIST_CHANGED",
    "SUBSCRIPTION_ID",
    "TOOLS_LIST_CHANGED",
    "Listeners",
    "honored_filter",
]

logger = logging.getLogger("toolwire.protocol")

Send = Callable[[bytes, RequestId | None], Awaitable[None]]

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
TOOLS_LIST_CHANGED = "notifications/tools/list_changed"
PROMPTS_LIST_CHANGED = "notifications/prompts/list_changed"
MAX_STREAMS = 1024

_FLAGS = ("toolsListChanged", "promptsListChanged", "resourcesListChanged")
# The filter flags this module honors, with the notification each one brings.
_HONORED = {"toolsListChanged": TOOLS_LIST_CHANGED, "promptsListChanged": PROMPTS_LIST_CHANGED}


def honored_filter(params: dict[str, Any] | None) -> dict[str, Any]:
    """Validate a listen request's params; return the filter this server honors.

    Args:
        params: The request's `params` (its envelope already checked).

    Returns:
        The honored flags the client set to true (`{"toolsListChanged": True, ...}`), or `{}`.

    Raises:
        ProtocolError: -32602 naming the malformed field.
    """
    requested = params.get("notifications") if params else None
    if not isinstance(requested, dict):
        raise eras.invalid_params("subscriptions/listen: 'notifications' must be an object")
    for flag in _FLAGS:
        value = requested.get(flag)
        if value is not None and not isinstance(value, bool):
            raise eras.invalid_params(
                f"subscriptions/listen: 'notifications.{flag}' must be a boolean"
            )
    uris = requested.get("resourceSubscriptions")
    if uris is not None and (
        not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris)
    ):
        raise eras.invalid_params(
            "subscriptions/listen: 'notifications.resourceSubscriptions' must be a list of strings"
        )
    return {flag: True for flag in _HONORED if requested.get(flag) is True}


@dataclass(eq=False)
class _Stream:
    """One open listen stream."""

    request_id: RequestId
    honored: frozenset[str]  # the notifications (methods) this stream carries
    acked: bool = False  # the acknowledgement is on the wire
    sending: bool = False  # a change notification is on its way to the wire
    pending: set[str] = field(default_factory=set)  # changes not sent yet, by method

    @property
    def meta(self) -> dict[str, Any]:
        """The `_meta` every frame of the stream carries."""
        return {SUBSCRIPTION_ID: self.request_id}


class Listeners:
    """The open `subscriptions/listen` streams of one connection.

    Args:
        send: Writes one encoded frame with the listen request it belongs to (the session's
            `send`, which never interleaves frames).
    """

    def __init__(self, send: Send) -> None:
        self._send = send
        self._streams: dict[RequestId, _Stream] = {}

    def __len__(self) -> int:
        """How many streams are open."""
        return len(self._streams)

    def __contains__(self, request_id: object) -> bool:
        """Whether a stream opened by `request_id` is open."""
        return request_id in self._streams

    async def listen(self, request_id: RequestId, params: dict[str, Any] | None) -> None:
        """Open a stream: validate, register, acknowledge (no response until the stream ends).

        Args:
            request_id: The listen request's id; every frame of the stream carries it.
            params: The request's params, envelope already checked.

        Raises:
            ProtocolError: -32602 for malformed params, -32603 past `MAX_STREAMS`.
        """
        if request_id in self._streams:
            logger.warning(
                "subscriptions/listen id %r is already an open stream; duplicate ignored",
                request_id,
            )
            return
        honored = honored_filter(params)
        if len(self._streams) >= MAX_STREAMS:
            raise ProtocolError(INTERNAL_ERROR, "Subscription limit reached")
        stream = _Stream(request_id, frozenset(_HONORED[flag] for flag in honored))
        # Registered before the acknowledgement is written, so that a change published
        # meanwhile is remembered (and sent after it) rather than lost.
        self._streams[request_id] = stream
        try:
            acknowledgement = {"notifications": honored, "_meta": stream.meta}
            await self._send(notification(ACKNOWLEDGED, acknowledgement), request_id)
        except BaseException:
            self._drop(stream)
            raise
        stream.acked = True
        if stream.pending:
            await self._deliver(stream, None)

    def cancel(self, request_id: Any) -> bool:
        """End a stream the client cancelled; nothing is sent. Whether one was open."""
        try:
            stream = self._streams.get(request_id)
        except TypeError:  # an unhashable id names no stream
            return False
        if stream is None:
            return False
        self._drop(stream)
        return True

    def cancel_all(self) -> None:
        """Drop every stream without a frame (the connection is ending)."""
        self._streams.clear()

    async def tools_changed(self) -> None:
        """Send `notifications/tools/list_changed` on every stream that asked for it."""
        await self.changed(TOOLS_LIST_CHANGED)

    async def changed(self, method: str) -> None:
        """Send the change notification `method` on every stream that asked for it."""
        for stream in list(self._streams.values()):
            if method in stream.honored:
                await self._deliver(stream, method)

    async def end(self, server_info: dict[str, Any]) -> None:
        """End every stream gracefully: each listen request gets its (empty) result.

        Args:
            server_info: The server's `serverInfo`, stamped on each result.
        """
        for stream in list(self._streams.values()):
            self._drop(stream)
            result = handlers.modern({"_meta": stream.meta}, server_info)
            await self._send(result_message(stream.request_id, result), stream.request_id)

    def _drop(self, stream: _Stream) -> None:
        if self._streams.get(stream.request_id) is stream:
            del self._streams[stream.request_id]

    async def _deliver(self, stream: _Stream, method: str | None) -> None:
        """Write the change notification `method` (None: those pending) on `stream`,
        coalescing changes that pile up."""
        if method is not None:
            stream.pending.add(method)
        if not stream.acked or stream.sending:
            return  # sent once the acknowledgement / the frame ahead is out
        stream.sending = True
        try:
            while stream.pending and self._streams.get(stream.request_id) is stream:
                changed = notification(stream.pending.pop(), {"_meta": stream.meta})
                await self._send(changed, stream.request_id)
        finally:
            stream.sending = False
