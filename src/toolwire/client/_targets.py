"""Opening an `mcp` client over each transport, with toolwire's extra HTTP options, and serving a
toolwire server in memory: its session's frames cross two in-memory streams, and leaving closes
the session (cancelling calls still running), then exits the lifespan. Loaded only when a
server connects: it imports `mcp` and `httpx2`."""

from __future__ import annotations

import contextlib
import inspect
import os
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import httpx2
from mcp import StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream

    from ..protocol.session.serving import Servable
    from ..protocol.session.session import ServerSession

__all__ = [
    "HeadersProvider",
    "TokenProvider",
    "memory_transport",
    "open_http",
    "open_sse",
    "open_stdio",
]

HeadersProvider = Callable[[], "Mapping[str, str] | Awaitable[Mapping[str, str]]"]
TokenProvider = Callable[[], "str | Awaitable[str | None] | None"]
# A transport (or its streams) -> the `mcp.Client` over it, not yet entered.
ClientMaker = Callable[[Any], AbstractAsyncContextManager[Any]]


async def _resolved(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class _RequestHeaders(httpx2.Auth):
    """Adds headers computed at each request, then hands the request to the configured `auth`."""

    def __init__(
        self,
        inner: httpx2.Auth | None,
        headers: HeadersProvider | None,
        token: TokenProvider | str | None,
    ) -> None:
        self._inner = inner
        self._headers = headers
        self._token = token

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._headers is not None:
            extra = await _resolved(self._headers())
            request.headers.update(dict(extra))
        token = self._token() if callable(self._token) else self._token
        token = await _resolved(token)
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        if self._inner is None:
            yield request
            return
        flow = self._inner.async_auth_flow(request)
        outgoing = await flow.__anext__()
        while True:
            response = yield outgoing
            try:
                outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return


def _seconds(value: timedelta | float | None, default: float) -> float:
    if value is None:
        return default
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _auth(
    params: Mapping[str, Any], headers: HeadersProvider | None, token: TokenProvider | str | None
) -> httpx2.Auth | None:
    inner = params.get("auth")
    if headers is None and token is None:
        return inner
    return _RequestHeaders(inner, headers, token)


def open_stdio(
    params: Mapping[str, Any],
    make_client: ClientMaker,
    label: str = "",
    started: list[Any] | None = None,
    errlog: TextIO | None = None,
) -> AbstractAsyncContextManager[Any]:
    """The client of a server started as a child process (the SDK's stdio params).

    On POSIX toolwire's own transport starts the child (see `_stdio.py`); elsewhere the
    `mcp` client's. `errlog` receives the child's stderr (None: ours).
    """
    if os.name == "posix":
        from ._stdio import child_process_transport

        return make_client(child_process_transport(params, label, started, errlog))
    server = StdioServerParameters(
        command=params["command"],
        args=list(params.get("args", [])),
        env=params.get("env"),
        cwd=params.get("cwd"),
        encoding=params.get("encoding", "utf-8"),
        encoding_error_handler=params.get("encoding_error_handler", "strict"),
    )
    if errlog is not None:
        from mcp.client.stdio import stdio_client

        return make_client(stdio_client(server, errlog=errlog))
    return make_client(server)


@asynccontextmanager
async def open_http(
    params: Mapping[str, Any],
    make_client: ClientMaker,
    headers: HeadersProvider | None = None,
    token: TokenProvider | str | None = None,
    session: dict[str, str] | None = None,
) -> AsyncGenerator[Any, None]:
    """The client of a streamable HTTP server (the SDK's streamable HTTP params).

    `session`, when given, receives the `Mcp-Session-Id` the server assigns (key "id").
    """
    timeout = httpx2.Timeout(
        _seconds(params.get("timeout"), 5.0), read=_seconds(params.get("sse_read_timeout"), 300.0)
    )
    auth = _auth(params, headers, token)
    factory = params.get("httpx_client_factory")
    if factory is not None:
        http = factory(headers=params.get("headers"), timeout=timeout, auth=auth)
    else:
        http = httpx2.AsyncClient(
            headers=params.get("headers"), timeout=timeout, auth=auth, follow_redirects=True
        )
    if session is not None:

        async def note_session(response: httpx2.Response) -> None:
            given = response.headers.get("mcp-session-id")
            if given:
                session["id"] = given

        http.event_hooks.setdefault("response", []).append(note_session)
    async with http:
        transport = streamable_http_client(
            params["url"],
            http_client=http,
            terminate_on_close=params.get("terminate_on_close", True),
        )
        async with make_client(transport) as client:
            yield client


def open_sse(
    params: Mapping[str, Any],
    make_client: ClientMaker,
    headers: HeadersProvider | None = None,
    token: TokenProvider | str | None = None,
) -> AbstractAsyncContextManager[Any]:
    """The client of a legacy HTTP+SSE server (the SDK's SSE params)."""
    extra: dict[str, Any] = {}
    if params.get("httpx_client_factory") is not None:
        extra["httpx_client_factory"] = params["httpx_client_factory"]
    transport = sse_client(
        params["url"],
        headers=params.get("headers"),
        timeout=_seconds(params.get("timeout"), 5.0),
        sse_read_timeout=_seconds(params.get("sse_read_timeout"), 300.0),
        auth=_auth(params, headers, token),
        **extra,
    )
    return make_client(transport)


_BUFFERED = 64  # messages in flight each way before the writer waits


@asynccontextmanager
async def memory_transport(server: Servable) -> AsyncIterator[tuple[Any, Any]]:
    """Serve `server` in this task and yield the `(read, write)` streams `mcp.Client` takes."""
    to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](
        _BUFFERED
    )
    client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](_BUFFERED)

    async def send(frame: bytes) -> None:
        message = jsonrpc_message_adapter.validate_json(frame)
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await to_client.send(SessionMessage(message))

    async with (
        to_client,
        client_reads,
        client_writes,
        from_client,
        server.serving() as open_session,
        open_session(send, error_details=True, session_id=secrets.token_hex(16)) as session,
        anyio.create_task_group() as group,
    ):
        group.start_soon(_hand_frames, from_client, session)
        try:
            yield client_reads, client_writes
        finally:
            group.cancel_scope.cancel()
            session.close()


async def _hand_frames(
    from_client: MemoryObjectReceiveStream[SessionMessage], session: ServerSession
) -> None:
    """Give the session each message the client writes, in order, as the wire's bytes."""
    async for item in from_client:
        frame = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        if session.backlog.full:  # the session's replies are not being read
            cleared = anyio.Event()
            session.backlog.when_clear(cleared.set)
            await cleared.wait()
        await session.receive(frame)
