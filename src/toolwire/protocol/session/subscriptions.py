"""`subscriptions/listen` (2026-07-28): the streams on which a modern client hears of changes. A
stream is an acknowledgement with the honored filter, then list changes and resource updates tagged
with the listen request's id, and on a graceful end a `complete` result. Only the flags asked for
and URIs this server can read are honored; a malformed filter is -32602 naming the field, a listen
past `MAX_STREAMS` is -32603. A cancelled listen ends without a frame."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..wire import eras
from ..wire.jsonrpc import (
    INTERNAL_ERROR,
    FrameKind,
    ProtocolError,
    RequestId,
    RoutedSend,
    notification,
    result_message,
)

__all__ = ["MAX_STREAMS", "MAX_URI_LENGTH", "RESOURCE_UPDATED", "Listeners"]

logger = logging.getLogger("toolwire.protocol")

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
RESOURCE_UPDATED = "notifications/resources/updated"
MAX_STREAMS = 1024
MAX_URIS = 1024  # resourceSubscriptions honored per stream
MAX_URI_LENGTH = 8192  # characters of a URI that can be followed (a subscription is kept)

# The list-change flags a stream may ask for, and the kind of list each one follows.
LIST_CHANGED_FLAGS = {
    "toolsListChanged": "tools",
    "resourcesListChanged": "resources",
    "promptsListChanged": "prompts",
}


def _honored_filter(params: dict[str, Any] | None, knows: Callable[[str], bool]) -> dict[str, Any]:
    """The filter of a listen request that this server honors (-32602 naming a malformed
    field): the flags set to true, and the URIs `knows` can serve (of `MAX_URI_LENGTH` at most)."""
    requested = params.get("notifications") if params else None
    if not isinstance(requested, dict):
        raise eras.invalid_params("subscriptions/listen: 'notifications' must be an object")
    for flag in LIST_CHANGED_FLAGS:
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
    honored: dict[str, Any] = {
        flag: True for flag in LIST_CHANGED_FLAGS if requested.get(flag) is True
    }
    if uris:
        followed = [
            uri for uri in dict.fromkeys(uris) if len(uri) <= MAX_URI_LENGTH and knows(uri)
        ][:MAX_URIS]
        if followed:
            honored["resourceSubscriptions"] = followed
    return honored


@dataclass(eq=False)
class _Stream:
    """One open listen stream."""

    request_id: RequestId
    kinds: frozenset[str]  # the lists whose changes it honors ("tools", "resources")
    uris: frozenset[str]  # the resources whose updates it honors
    acked: bool = False  # the acknowledgement is on the wire
    sending: bool = False  # a notification is on its way to the wire
    # Due and not sent yet, in order, each once: ("list", kind) or ("updated", uri).
    pending: dict[tuple[str, str], None] = field(default_factory=dict)

    @property
    def meta(self) -> dict[str, Any]:
        """The `_meta` every frame of the stream carries."""
        return {SUBSCRIPTION_ID: self.request_id}

    def frame(self, due: tuple[str, str]) -> bytes:
        """The notification for one due item."""
        what, name = due
        if what == "updated":
            return notification(RESOURCE_UPDATED, {"uri": name, "_meta": self.meta})
        return notification(f"notifications/{name}/list_changed", {"_meta": self.meta})


class Listeners:
    """The open `subscriptions/listen` streams of one connection (`knows`: whether the
    server can serve a resource URI)."""

    def __init__(self, send: RoutedSend, knows: Callable[[str], bool]) -> None:
        self._send = send
        self._knows = knows
        self._streams: dict[RequestId, _Stream] = {}

    def __len__(self) -> int:
        """How many streams are open."""
        return len(self._streams)

    def __contains__(self, request_id: object) -> bool:
        """Whether a stream opened by `request_id` is open."""
        return request_id in self._streams

    async def listen(self, request_id: RequestId, params: dict[str, Any] | None) -> None:
        """Open a stream: validate, register, acknowledge (no response until it ends)."""
        if request_id in self._streams:
            logger.warning(
                "subscriptions/listen id %r is already an open stream; duplicate ignored",
                request_id,
            )
            return
        honored = _honored_filter(params, self._knows)
        if len(self._streams) >= MAX_STREAMS:
            raise ProtocolError(INTERNAL_ERROR, "Subscription limit reached")
        kinds = frozenset(kind for flag, kind in LIST_CHANGED_FLAGS.items() if flag in honored)
        stream = _Stream(request_id, kinds, frozenset(honored.get("resourceSubscriptions", ())))
        # Registered before the acknowledgement, so that a change meanwhile is not lost.
        self._streams[request_id] = stream
        try:
            acknowledgement = {"notifications": honored, "_meta": stream.meta}
            await self._send(
                notification(ACKNOWLEDGED, acknowledgement), FrameKind.NOTICE, request_id
            )
        except BaseException:
            self._drop(stream)
            raise
        stream.acked = True
        if stream.pending:
            await self._flush(stream)

    def cancel(self, request_id: RequestId) -> None:
        """End a stream the client cancelled; nothing is sent."""
        self._streams.pop(request_id, None)

    def cancel_all(self) -> None:
        """Drop every stream without a frame (the connection is ending)."""
        self._streams.clear()

    def followed(self) -> set[str]:
        """The resource URIs that some open stream follows."""
        return {uri for stream in self._streams.values() for uri in stream.uris}

    async def list_changed(self, kind: str) -> None:
        """Send `notifications/<kind>/list_changed` on every stream that asked for it."""
        for stream in list(self._streams.values()):
            if kind in stream.kinds:
                await self._deliver(stream, ("list", kind))

    async def resource_updated(self, uri: str) -> None:
        """Send `notifications/resources/updated` on every stream following `uri`."""
        for stream in list(self._streams.values()):
            if uri in stream.uris:
                await self._deliver(stream, ("updated", uri))

    async def end(self, server_info: dict[str, Any]) -> None:
        """End every stream gracefully: each listen request gets its (empty) result."""
        for stream in list(self._streams.values()):
            self._drop(stream)
            result = eras.stamp({"_meta": stream.meta}, server_info)
            await self._send(
                result_message(stream.request_id, result), FrameKind.REPLY, stream.request_id
            )

    def _drop(self, stream: _Stream) -> None:
        if self._streams.get(stream.request_id) is stream:
            del self._streams[stream.request_id]

    async def _deliver(self, stream: _Stream, due: tuple[str, str]) -> None:
        """Write `due` on `stream`, coalescing with what already waits."""
        stream.pending[due] = None
        if stream.acked and not stream.sending:  # else sent by the frame ahead's writer
            await self._flush(stream)

    async def _flush(self, stream: _Stream) -> None:
        stream.sending = True
        try:
            while stream.pending and self._streams.get(stream.request_id) is stream:
                due = next(iter(stream.pending))
                del stream.pending[due]
                await self._send(stream.frame(due), FrameKind.NOTICE, stream.request_id)
        finally:
            stream.sending = False
