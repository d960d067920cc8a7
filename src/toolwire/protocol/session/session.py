"""One MCP connection: frames in, replies and notifications out, in either protocol era. The
transport hands each frame to `receive()` and writes what comes back through `send`, one frame at a
time. The first request fixes the era; the era tables at the end of this module route each request
to its feature's handler. A request that runs the author's code runs in a task of `requests`, so
replies may come out of order and `notifications/cancelled` ends one without a reply. Leaving the
context, or `close()`, cancels everything still running."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio

from ...tools.log_text import log_with_trace
from ..features.completion import COMPLETION_ROUTES
from ..features.prompts import PROMPT_ROUTES
from ..features.resources import RESOURCE_ROUTES_HANDSHAKE, RESOURCE_ROUTES_MODERN
from ..features.tools import TOOL_ROUTES_HANDSHAKE, TOOL_ROUTES_MODERN
from ..wire import eras
from ..wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    FrameKind,
    Invalid,
    Notification,
    ProtocolError,
    RequestId,
    Response,
    RoutedSend,
    batch_replies,
    classify,
    decode,
    error_message,
    notification,
    result_message,
    sniff_request_id,
    valid_id,
)
from .call_context import NO_CONTEXT, ContextSource
from .methods import Params, Route, Session, capabilities
from .outbound import Outbound
from .requests_in_flight import Backlog, RequestsInFlight
from .subscriptions import Listeners

if TYPE_CHECKING:
    from types import TracebackType

    import anyio.abc

    from ...tools.threads import SyncBudget
    from ..auth.identity import Identity
    from .app import ServedApp

__all__ = ["ServerSession"]

logger = logging.getLogger("toolwire.protocol")

Send = Callable[[bytes], Awaitable[None]]


class ServerSession:
    """The protocol state of one connection to an application (a `Server`), writing each
    encoded message with `send` (`routed`: with its `FrameKind` and request id too, for an
    HTTP transport's streams). Without a `back_channel` (HTTP in JSON-response or stateless
    mode) asking raises `NoBackChannelError`; `identity` (None: no scope is enforced) may be
    replaced by the same caller's of a newer token; `error_details` adds the author's exception
    to error replies (an in-process client only); `session_id` is the MCP session's opaque id,
    None for session-less HTTP."""

    def __init__(
        self,
        server: ServedApp,
        send: Send | RoutedSend,
        *,
        contexts: ContextSource = NO_CONTEXT,
        routed: bool = False,
        back_channel: bool = True,
        identity: Identity | None = None,
        error_details: bool = False,
        session_id: str | None = None,
    ) -> None:
        self.server = server
        self.tools = server.tool_registry.view()
        self.server_info: dict[str, Any] = {}  # read at opening
        self.session_id = session_id
        self.back_channel = back_channel
        self.identity = identity
        self.error_details = error_details
        self._send: Callable[..., Awaitable[None]] = send
        self._routed = routed
        self.contexts = contexts
        self.client_info: dict[str, Any] | None = None  # from `initialize` (handshake era)
        self.client_capabilities: dict[str, Any] | None = None  # likewise
        self.outbound = Outbound(self.send)
        self._send_lock = asyncio.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.era: eras.Era | None = None  # fixed by the first request
        self.protocol_version: str | None = None  # negotiated (handshake era)
        self.log_level = "debug"  # logging/setLevel (handshake era)
        self._task_group: anyio.abc.TaskGroup | None = None
        self.listeners = Listeners(
            self.send, lambda uri: server.resource_registry.find(uri) is not None
        )
        self.resource_subscriptions: set[str] = set()
        self.backlog = Backlog()
        self.requests = RequestsInFlight(self.send, self.backlog, error_details=error_details)
        self.sync_limiter: SyncBudget | anyio.CapacityLimiter | None = None
        # Set by a transport whose events are bounded (HTTP's `max_event_bytes`).
        self.max_frame_bytes: int | None = None

    async def __aenter__(self) -> ServerSession:
        self.server_info = self.server.server_info
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "toolwire serves MCP sessions on asyncio only: open the session in an asyncio "
                "event loop (anyio's default backend), not on another anyio backend such as trio"
            ) from None
        self.sync_limiter = self.server.sync_limiter
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        self.server.session_opened(self)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        self.server.session_closed(self)
        assert self._task_group is not None
        self.close()
        try:
            await self.requests.wait()
            return await self._task_group.__aexit__(exc_type, exc, tb)
        finally:
            if self.session_id is not None:
                await self.server.session_ended(self.session_id)

    @property
    def in_flight(self) -> int:
        """How many tracked requests (tool calls, resource reads, prompts) are running."""
        return len(self.requests)

    @property
    def busy(self) -> bool:
        """Whether a tracked request runs, or a reply still waits to be written."""
        return bool(self.requests) or self._send_lock.locked()

    def start_soon(self, func: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        """Run a background task in the session's task group."""
        assert self._task_group is not None, "use ServerSession as an async context manager"
        self._task_group.start_soon(func)

    def close(self) -> None:
        """Cancel every call in flight and every task of the session."""
        self.requests.cancel_all()
        self.outbound.close()
        self.listeners.cancel_all()
        if self._task_group is not None:
            self._task_group.cancel_scope.cancel()

    async def refuse_calls(self, code: int, message: str) -> int:
        """Refuse every request in flight with this error, then cancel it; how many."""
        return await self.requests.refuse_all(code, message)

    async def end_streams(self) -> None:
        """End every `subscriptions/listen` stream with its `complete` result."""
        await self.listeners.end(self.server_info)

    async def send(
        self, frame: bytes, kind: FrameKind, request_id: RequestId | None = None
    ) -> None:
        """Write one frame of `kind` (frames never interleave), for the request `request_id`
        if any; a routed transport gets both, an unrouted one only the frame. A frame over
        `max_frame_bytes` is dropped, or for a reply replaced by an error naming both sizes."""
        size = len(frame)
        limit = self.max_frame_bytes
        if limit is not None and size > limit:
            if kind is not FrameKind.REPLY or request_id is None:
                # Nobody waits on a notification; a request to the client has its timeout.
                logger.warning(
                    "a message of %d bytes for request %r is over the limit of %d bytes "
                    "(max_event_bytes) and was not sent",
                    size,
                    request_id,
                    limit,
                )
                return
            logger.warning(
                "the reply to request %r is %d bytes, over the limit of %d bytes "
                "(max_event_bytes); the client gets an error instead",
                request_id,
                size,
                limit,
            )
            text = f"Result of {size} bytes exceeds the maximum event size of {limit} bytes"
            frame = error_message(request_id, INTERNAL_ERROR, text)
            size = len(frame)
        self.backlog.sending(size)
        try:
            async with self._send_lock:
                if self._routed:
                    await self._send(frame, kind, request_id)
                else:
                    await self._send(frame)
        finally:
            self.backlog.sent(size)

    async def reject_oversized(self, size: int, head: bytes = b"") -> None:
        """Answer a frame the transport refused for its size with -32600, addressed to the
        request's id when its first bytes (`head`) show one, else to id null."""
        limit = self.server.max_message_bytes
        text = f"Message of {size} bytes exceeds the maximum message size"
        text += f" of {limit} bytes" if limit else ""
        request_id = sniff_request_id(head) if head else None
        await self.send(
            error_message(request_id, INVALID_REQUEST, text), FrameKind.REPLY, request_id
        )

    async def receive(self, frame: bytes) -> None:
        """Handle one incoming frame; never raises for anything the client sent."""
        self.backlog.frame_size = len(frame)
        try:
            message = decode(frame)
        except (ValueError, RecursionError) as error:
            detail = "nested too deeply" if isinstance(error, RecursionError) else str(error)
            await self.send(
                error_message(None, PARSE_ERROR, "Parse error", detail), FrameKind.REPLY
            )
            return
        await self.receive_message(message)

    async def receive_message(self, message: Any) -> None:
        """Handle one message the transport already decoded; never raises for client input."""
        if isinstance(message, list):
            for reply in batch_replies(message):
                await self.send(reply, FrameKind.REPLY)
            return
        item = classify(message)
        if isinstance(item, Invalid):
            if item.reply is not None:
                await self.send(item.reply, FrameKind.REPLY)
            return
        if isinstance(item, Notification):
            self._notification(item.method, item.params)
            return
        if isinstance(item, Response):
            self.outbound.resolve(item.id, item.result, item.error)
            return
        try:
            await self._request(item.id, item.method, item.params)
        except ProtocolError as error:
            text = error.message_for(self.error_details)
            await self.send(
                error_message(item.id, error.code, text, error.data), FrameKind.REPLY, item.id
            )
        except Exception as error:
            log_with_trace(
                logger, logging.ERROR, "request %r (%s) failed", item.id, item.method, error=error
            )
            await self.send(
                error_message(item.id, INTERNAL_ERROR, "Internal error"), FrameKind.REPLY, item.id
            )

    def _notification(self, method: str, params: dict[str, Any] | None) -> None:
        if method == "notifications/cancelled":
            request_id: Any = (params or {}).get("requestId")
            # A request in flight is cancelled first; else the id may name a listen stream.
            cancelled = not valid_id(request_id) or self.requests.cancel(request_id)
            if not cancelled and self.era == "modern":
                self.listeners.cancel(request_id)
        # Anything else (initialized, progress, roots/list_changed, unknown) needs nothing here.

    async def _request(
        self, request_id: RequestId, method: str, params: dict[str, Any] | None
    ) -> None:
        if self.requests.is_duplicate(request_id):
            return  # any reply would be taken for the running request's
        if self.era is None:
            self.era = (
                "modern" if method != "initialize" and eras.has_envelope(params) else "handshake"
            )
        version: str | None
        if self.era == "modern":
            if method == "initialize":
                requested = (params or {}).get("protocolVersion")
                data: dict[str, Any] = {"supported": list(eras.MODERN_VERSIONS)}
                if isinstance(requested, str):
                    data["requested"] = requested
                raise ProtocolError(
                    UNSUPPORTED_PROTOCOL_VERSION,
                    "connection is serving the 2026-07-28 protocol; the initialize handshake "
                    "is not accepted",
                    data,
                )
            version, log_level = eras.check_envelope(params)
            route = MODERN.get(method)
        else:
            if method != "initialize" and eras.has_envelope(params):
                raise ProtocolError(
                    INVALID_REQUEST,
                    "this connection serves the handshake protocol era; "
                    "requests carrying the 2026-07-28 envelope are not accepted on it",
                )
            route = HANDSHAKE.get(method)
            version, log_level = self.protocol_version, self.log_level
            if route is not None and version is None and not route.before_handshake:
                raise eras.invalid_params("Received request before initialization")
        if route is None:
            raise ProtocolError(METHOD_NOT_FOUND, "Method not found", method)
        await route.handler(self, request_id, params, version, log_level)

    def capabilities(self) -> dict[str, Any]:
        """What this connection's era serves, as the capabilities advertised."""
        return capabilities(MODERN if self.era == "modern" else HANDSHAKE)

    async def list_changed(self, kind: str) -> None:
        """Tell the client that its list of `kind` ("tools", "resources", "prompts") changed:
        directly in the handshake era, on the listen streams asking for it in 2026-07-28."""
        if self.era == "handshake" and self.protocol_version is not None:
            await self.send(
                notification(f"notifications/{kind}/list_changed", {}), FrameKind.BROADCAST
            )
        elif self.era == "modern":
            await self.listeners.list_changed(kind)

    async def resource_updated(self, uri: str) -> None:
        """Tell the client that the resource at `uri` changed, if it subscribed to it or a
        listen stream follows it."""
        if self.era == "handshake" and uri in self.resource_subscriptions:
            await self.send(
                notification("notifications/resources/updated", {"uri": uri}), FrameKind.BROADCAST
            )
        elif self.era == "modern":
            await self.listeners.resource_updated(uri)

    def followed_resources(self) -> set[str]:
        """The URIs whose updates the client hears from `resource_updated`."""
        if self.era == "handshake":
            return set(self.resource_subscriptions)
        if self.era == "modern":
            return self.listeners.followed()
        return set()


# The methods about the connection itself, not about what the server publishes.


async def _initialize(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """Negotiate the version and remember what the client said about itself (2024-11-05 names
    no `completions` capability though it serves the method)."""
    version = eras.negotiate(eras.check_initialize(params))
    session.protocol_version = version
    session.client_info = (params or {}).get("clientInfo")
    session.client_capabilities = (params or {}).get("capabilities")
    capabilities = session.capabilities()
    if not eras.supports(version, "completions"):
        capabilities.pop("completions", None)
    info = session.server.server_info
    if "icons" in info and not eras.supports(version, "icons"):
        info = {key: value for key, value in info.items() if key != "icons"}
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": info,
    }
    if session.server.instructions:
        result["instructions"] = session.server.instructions
    await session.send(result_message(request_id, result), FrameKind.REPLY, request_id)


async def _ping(session: Session, request_id: RequestId, *_: Any) -> None:
    """Answer `{}`: the connection is alive."""
    await session.send(result_message(request_id, {}), FrameKind.REPLY, request_id)


async def _set_level(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """Set the level below which a call's log messages are not sent (handshake era)."""
    level: Any = (params or {}).get("level")
    if level not in eras.LOG_LEVELS:
        raise eras.invalid_params(
            f"logging/setLevel: 'level' must be one of {', '.join(eras.LOG_LEVELS)}"
        )
    session.log_level = level
    await session.send(result_message(request_id, {}), FrameKind.REPLY, request_id)


async def _discover(session: Session, request_id: RequestId, *_: Any) -> None:
    """Say which versions and capabilities this server serves (2026-07-28)."""
    result: dict[str, Any] = {
        "supportedVersions": list(eras.MODERN_VERSIONS),
        "capabilities": session.capabilities(),
    }
    if session.server.instructions:
        result["instructions"] = session.server.instructions
    eras.stamp(result, session.server.server_info, cacheable=True)
    await session.send(result_message(request_id, result), FrameKind.REPLY, request_id)


async def _listen(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """Open a stream of change notifications (2026-07-28, see `subscriptions.py`)."""
    await session.listeners.listen(request_id, params)


# What each era serves; the capabilities advertised derive from these (methods.py).
HANDSHAKE: dict[str, Route] = {
    "initialize": Route(_initialize, before_handshake=True),
    "ping": Route(_ping, before_handshake=True),
    **TOOL_ROUTES_HANDSHAKE,
    "logging/setLevel": Route(_set_level, {"logging": {}}),
    **RESOURCE_ROUTES_HANDSHAKE,
    **PROMPT_ROUTES,
    **COMPLETION_ROUTES,
}
MODERN: dict[str, Route] = {
    "server/discover": Route(_discover),
    **TOOL_ROUTES_MODERN,
    # List changes reach a modern client only on its listen streams.
    "subscriptions/listen": Route(_listen, {"tools": {"listChanged": True}}),
    **RESOURCE_ROUTES_MODERN,
    **PROMPT_ROUTES,
    **COMPLETION_ROUTES,
}
