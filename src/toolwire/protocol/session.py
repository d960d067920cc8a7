"""One MCP connection: decoded frames in, replies and notifications out, both eras.

The transport hands over each frame's bytes; replies go back through `send`. Tool calls run
concurrently in the session's task group, so `receive` returns at once. The era is chosen by
the client's first request, as the official SDK does: an `initialize` (or anything without
the 2026-07-28 `_meta` envelope) opens a handshake-era connection, an enveloped request a
modern one.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from ..context import ToolContext
from ..tools.invoke import invoke_tool
from ..tools.threads import sync_limiter
from . import eras
from .content import call_result, strip_version_fields
from .jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProtocolError,
    RequestId,
    error_message,
    notification,
    result_message,
    valid_id,
)

if TYPE_CHECKING:
    from types import TracebackType

    from ..server import Server
    from .registry import RegisteredTool

logger = logging.getLogger("toolwire.protocol")

Send = Callable[[bytes], Awaitable[None]]
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
PAGE_SIZE = 100


class _Reporter:
    """Progress and log messages of one call, sent as notifications."""

    def __init__(self, session: ServerSession, token: Any, log_level: str | None) -> None:
        self._session = session
        self._token = token
        self._log_level = log_level
        self._last = float("-inf")

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        if self._token is None:
            return
        if progress <= self._last:
            logger.warning(
                "progress must increase (got %s after %s); dropped", progress, self._last
            )
            return
        self._last = progress
        params: dict[str, Any] = {"progressToken": self._token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._session.send(notification("notifications/progress", params))

    async def log(self, level: str, data: Any, logger_name: str | None) -> None:
        threshold = self._log_level
        if threshold is None or level not in LOG_LEVELS:
            return
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger_name:
            params["logger"] = logger_name
        await self._session.send(notification("notifications/message", params))


class ServerSession:
    """The protocol state of one connection to a `Server`."""

    def __init__(self, server: Server, send: Send) -> None:
        self.server = server
        self._send = send
        self._send_lock = anyio.Lock()
        self.era: str | None = None  # "legacy" | "modern"
        self.protocol_version: str | None = None
        self.log_level: str = "debug"
        self._in_flight: dict[RequestId, anyio.CancelScope] = {}
        self._task_group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> ServerSession:
        sync_limiter.set(self.server.sync_limiter)
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        self.server._sessions.add(self)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        self.server._sessions.discard(self)
        assert self._task_group is not None
        if exc_type is not None:
            self._task_group.cancel_scope.cancel()
        return await self._task_group.__aexit__(exc_type, exc, tb)

    def close(self) -> None:
        """Cancel every call in flight."""
        if self._task_group is not None:
            self._task_group.cancel_scope.cancel()

    async def send(self, frame: bytes) -> None:
        async with self._send_lock:
            await self._send(frame)

    async def reject_oversized(self, size: int) -> None:
        """Answer a frame the transport refused for its size."""
        limit = getattr(self.server, "max_message_bytes", None)
        await self.send(
            error_message(
                None,
                INVALID_REQUEST,
                f"Message of {size} bytes exceeds the maximum message size"
                + (f" of {limit} bytes" if limit else ""),
            )
        )

    async def receive(self, frame: bytes) -> None:
        """Handle one incoming frame."""
        try:
            message = json.loads(frame)
        except (ValueError, UnicodeDecodeError) as error:
            await self.send(error_message(None, PARSE_ERROR, f"Parse error: {error}"))
            return
        if isinstance(message, list):
            await self.send(
                error_message(None, INVALID_REQUEST, "Batch requests are not supported")
            )
            return
        await self._handle(message)

    async def _handle(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            await self._invalid(message, "Invalid request: expected a JSON-RPC 2.0 object")
            return
        method = message.get("method")
        has_id = "id" in message
        if method is None and has_id and ("result" in message or "error" in message):
            return  # a response; this server sends no requests, so there is nothing to match
        if not isinstance(method, str):
            await self._invalid(message, "Invalid request: 'method' must be a string")
            return
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            if has_id and valid_id(message["id"]):
                await self.send(
                    error_message(message["id"], INVALID_PARAMS, "params must be an object")
                )
            return
        if not has_id:
            await self._notification(method, params or {})
            return
        request_id = message["id"]
        if not valid_id(request_id):
            await self._invalid(message, "Invalid request: 'id' must be a string or an integer")
            return
        try:
            await self._request(request_id, method, params or {})
        except ProtocolError as error:
            await self.send(error_message(request_id, error.code, error.message, error.data))

    async def _invalid(self, message: Any, text: str) -> None:
        request_id = message.get("id") if isinstance(message, dict) else None
        await self.send(
            error_message(request_id if valid_id(request_id) else None, INVALID_REQUEST, text)
        )

    async def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            scope = self._in_flight.get(params.get("requestId"))  # type: ignore[arg-type]
            if scope is not None:
                scope.cancel()

    async def _request(self, request_id: RequestId, method: str, params: dict[str, Any]) -> None:
        enveloped = eras.is_enveloped(params)
        if self.era is None:
            self.era = "modern" if enveloped and method != "initialize" else "legacy"
        if self.era == "modern":
            await self._modern_request(request_id, method, params)
            return
        if enveloped:
            raise ProtocolError(
                INVALID_REQUEST, "connection uses the handshake era; _meta envelope not allowed"
            )
        if method == "initialize":
            await self.send(result_message(request_id, self._initialize(params)))
            return
        if method == "ping":
            await self.send(result_message(request_id, {}))
            return
        if self.protocol_version is None:
            raise ProtocolError(INVALID_PARAMS, "Received request before initialization")
        if method == "logging/setLevel":
            level = params.get("level")
            if level not in LOG_LEVELS:
                raise ProtocolError(INVALID_PARAMS, f"unknown log level {level!r}")
            self.log_level = level
            await self.send(result_message(request_id, {}))
            return
        await self._tool_request(request_id, method, params, self.protocol_version, self.log_level)

    async def _modern_request(
        self, request_id: RequestId, method: str, params: dict[str, Any]
    ) -> None:
        if method == "initialize":
            raise ProtocolError(
                UNSUPPORTED_PROTOCOL_VERSION,
                "connection is serving the 2026-07-28 protocol; initialize is not available",
                {
                    "supported": list(eras.MODERN_VERSIONS),
                    "requested": params.get("protocolVersion"),
                },
            )
        meta = eras.check_envelope(params)
        version = meta[eras.META_VERSION]
        if method == "server/discover":
            result = {
                "supportedVersions": list(eras.MODERN_VERSIONS),
                "capabilities": self._capabilities(),
                "ttlMs": 0,
                "cacheScope": "private",
            }
            if self.server.instructions:
                result["instructions"] = self.server.instructions
            await self.send(result_message(request_id, self._modern(result)))
            return
        level = meta.get(eras.META_LOG_LEVEL)
        await self._tool_request(
            request_id, method, params, version, level if level in LOG_LEVELS else None
        )

    def _modern(self, result: dict[str, Any]) -> dict[str, Any]:
        result["resultType"] = "complete"
        result["_meta"] = {eras.META_SERVER_INFO: self.server.server_info}
        return result

    def _capabilities(self) -> dict[str, Any]:
        return {"tools": {"listChanged": True}, "logging": {}}

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        version = eras.negotiate(params.get("protocolVersion"))
        self.protocol_version = version
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self._capabilities(),
            "serverInfo": self.server.server_info,
        }
        if self.server.instructions:
            result["instructions"] = self.server.instructions
        return result

    async def _tool_request(
        self,
        request_id: RequestId,
        method: str,
        params: dict[str, Any],
        version: str,
        log_level: str | None,
    ) -> None:
        if method == "tools/list":
            result = self._list_tools(params, version)
            if self.era == "modern":
                result.update(ttlMs=0, cacheScope="private")
                result = self._modern(result)
            await self.send(result_message(request_id, result))
        elif method == "tools/call":
            if request_id in self._in_flight:
                raise ProtocolError(INVALID_REQUEST, f"request id {request_id!r} is already in use")
            entry = self._resolve_tool(params)
            scope = anyio.CancelScope()
            self._in_flight[request_id] = scope
            assert self._task_group is not None
            self._task_group.start_soon(
                self._call, request_id, entry, params, version, log_level, scope
            )
        elif method == "ping" and self.era == "modern":
            await self.send(result_message(request_id, self._modern({})))
        else:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _list_tools(self, params: dict[str, Any], version: str) -> dict[str, Any]:
        tools = [entry for entry in self.server._registry.values() if entry.tool.is_enabled is True]
        start = 0
        cursor = params.get("cursor")
        if cursor is not None:
            try:
                start = int(base64.urlsafe_b64decode(str(cursor).encode()).decode())
            except Exception:
                raise ProtocolError(INVALID_PARAMS, f"Invalid cursor: {cursor!r}") from None
            if not 0 <= start <= len(tools):
                raise ProtocolError(INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
        page = tools[start : start + PAGE_SIZE]
        result: dict[str, Any] = {"tools": [entry.listing(version) for entry in page]}
        if start + PAGE_SIZE < len(tools):
            result["nextCursor"] = base64.urlsafe_b64encode(
                str(start + PAGE_SIZE).encode()
            ).decode()
        return result

    def _resolve_tool(self, params: dict[str, Any]) -> RegisteredTool:
        name = params.get("name")
        if not isinstance(name, str):
            raise ProtocolError(INVALID_PARAMS, "tools/call needs a string 'name'")
        entry = self.server._registry.get(name)
        if entry is None or entry.tool.is_enabled is not True:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise ProtocolError(INVALID_PARAMS, "tools/call 'arguments' must be an object")
        return entry

    async def _call(
        self,
        request_id: RequestId,
        entry: RegisteredTool,
        params: dict[str, Any],
        version: str,
        log_level: str | None,
        scope: anyio.CancelScope,
    ) -> None:
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        arguments = _drop_null_defaults(params.get("arguments") or {}, entry)
        arguments_json = json.dumps(arguments, ensure_ascii=False)
        ctx: ToolContext[Any] = ToolContext(
            None,
            tool_name=entry.name,
            tool_call_id=str(request_id),
            tool_arguments=arguments_json,
            reporter=_Reporter(self, token, log_level),
        )
        result: dict[str, Any] | None = None
        try:
            with scope:
                if entry.timeout is None:
                    outcome = await invoke_tool(entry.tool, ctx, arguments_json)
                    result = call_result(entry, outcome.output, outcome.is_error)
                else:
                    with anyio.move_on_after(entry.timeout) as deadline:
                        outcome = await invoke_tool(entry.tool, ctx, arguments_json)
                        result = call_result(entry, outcome.output, outcome.is_error)
                    if deadline.cancelled_caught:
                        text = f"Tool '{entry.name}' timed out after {entry.timeout:g} seconds."
                        result = call_result(entry, text, True)
        finally:
            self._in_flight.pop(request_id, None)
        if result is None:
            return  # cancelled by the client: the spec says no reply
        result = strip_version_fields(result, version)
        if self.era == "modern":
            result = self._modern(result)
        await self.send(result_message(request_id, result))

    async def tools_changed(self) -> None:
        """Tell a handshake-era client that the tool list changed."""
        if self.era == "legacy" and self.protocol_version is not None:
            await self.send(notification("notifications/tools/list_changed", {}))


def _drop_null_defaults(arguments: dict[str, Any], entry: RegisteredTool) -> dict[str, Any]:
    """A null sent for a parameter with a non-null default means "use the default"."""
    if None not in arguments.values():
        return arguments
    properties = entry.tool.params_json_schema.get("properties", {})
    cleaned = dict(arguments)
    for key, value in arguments.items():
        prop = properties.get(key)
        if (
            value is None
            and isinstance(prop, dict)
            and prop.get("default") is not None
            and not _allows_null(prop)
        ):
            del cleaned[key]
    return cleaned


def _allows_null(prop: dict[str, Any]) -> bool:
    typ = prop.get("type")
    if typ == "null" or (isinstance(typ, list) and "null" in typ):
        return True
    return any(isinstance(v, dict) and _allows_null(v) for v in prop.get("anyOf", []))
