"""Opening an `mcp` client over each transport, loaded only when a server connects (it imports
`mcp` and `httpx2`). A stdio server is a child process in a session of its own: its closed stdout
ends the connection, its death is told by its exit status and last stderr lines, closing ends its
process group (stdin closed, SIGTERM, SIGKILL, each bounded), and on Linux it gets SIGTERM if this
process dies first. Over HTTP, headers and a bearer token may be computed per request; in memory,
a toolwire server's session frames cross two memory streams and leaving closes the session."""

from __future__ import annotations

import asyncio
import codecs
import collections
import contextlib
import ctypes
import json
import logging
import os
import re
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import httpx2
from mcp import StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp.types import INTERNAL_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter

from ..tools.log_text import escape_for_log
from .approvals import resolved

if TYPE_CHECKING:
    from ..protocol.session.serving import Servable

__all__ = [
    "ChildProcess",
    "HeadersProvider",
    "TokenProvider",
    "child_process_transport",
    "memory_transport",
    "open_http",
    "open_sse",
    "open_stdio",
]

logger = logging.getLogger("toolwire.client")

HeadersProvider = Callable[[], "Mapping[str, str] | Awaitable[Mapping[str, str]]"]
TokenProvider = Callable[[], "str | Awaitable[str | None] | None"]
# A transport (or its streams) -> the `mcp.Client` over it, not yet entered.
ClientMaker = Callable[[Any], AbstractAsyncContextManager[Any]]


@dataclass
class _RequestHeaders(httpx2.Auth):
    """Adds headers computed at each request, then hands the request to the configured `auth`."""

    inner: httpx2.Auth | None
    headers: HeadersProvider | None
    token: TokenProvider | str | None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self.headers is not None:
            request.headers.update(dict(await resolved(self.headers())))
        token = await resolved(self.token() if callable(self.token) else self.token)
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        if self.inner is None:
            yield request
            return
        flow = self.inner.async_auth_flow(request)
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
    label: str,
    started: list[Any],
    errlog: TextIO | None,
) -> AbstractAsyncContextManager[Any]:
    """The client of a server started as a child process (the SDK's stdio params), by
    `child_process_transport` on POSIX, else by the `mcp` client's; `errlog` gets its stderr."""
    if os.name == "posix":
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
        return make_client(stdio_client(server, errlog=errlog))
    return make_client(server)


@asynccontextmanager
async def open_http(
    params: Mapping[str, Any],
    make_client: ClientMaker,
    headers: HeadersProvider | None,
    token: TokenProvider | str | None,
    session: dict[str, str],
) -> AsyncGenerator[Any, None]:
    """The client of a streamable HTTP server (the SDK's params); `session` receives the
    `Mcp-Session-Id` the server assigns (key "id"), and the status of the last POST refused
    with no JSON-RPC error in its body (key "refused", e.g. "HTTP error 502 (Bad Gateway)")."""
    timeout = httpx2.Timeout(
        _seconds(params.get("timeout"), 5.0), read=_seconds(params.get("sse_read_timeout"), 300.0)
    )
    auth = _auth(params, headers, token)
    factory = params.get("httpx_client_factory") or partial(
        httpx2.AsyncClient, follow_redirects=True
    )
    http = factory(headers=params.get("headers"), timeout=timeout, auth=auth)

    async def note_response(response: httpx2.Response) -> None:
        given = response.headers.get("mcp-session-id")
        if given:
            session["id"] = given
        if response.status_code >= 400 and response.request.method == "POST":
            kind = response.headers.get("content-type", "").lower()
            if not kind.startswith("application/json"):  # a JSON body holds the server's error
                session["refused"] = f"HTTP error {response.status_code} ({response.reason_phrase})"

    http.event_hooks.setdefault("response", []).append(note_response)
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
    headers: HeadersProvider | None,
    token: TokenProvider | str | None,
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

        async def hand_frames() -> None:
            async for item in from_client:
                frame = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
                await session.backlog.until_clear()  # while its replies are not being read
                await session.receive(frame)

        group.start_soon(hand_frames)
        try:
            yield client_reads, client_writes
        finally:
            group.cancel_scope.cancel()
            session.close()


_LINE_LIMIT = 64 * 1024 * 1024
_STDERR_LINES = 40
_STDERR_LINE_CHARS = 2000  # of each stderr line, kept to describe how the child ended
_STDERR_CHUNK = 64 * 1024  # stderr is read in pieces: a line may be of any length
_EXIT_WAIT = 2.0  # after stdin closes, then after SIGTERM
_STATUS_WAIT = 0.5
_STDERR_DRAIN = 1.0  # after the child ended, for the last of its stderr to be read
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class ChildProcess:
    """The running child, the tail of its stderr and the last stdout line that was not JSON-RPC."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.stderr_open = ""  # the start of the stderr line whose end has not come yet
        self.junk: str | None = None

    def hear(self, text: str) -> None:
        """Keep the last lines of the child's stderr `text`, each cut to its start."""
        *ended, rest = text.split("\n")
        for piece in ended:
            self.stderr_tail.append((self.stderr_open + piece)[:_STDERR_LINE_CHARS] + "\n")
            self.stderr_open = ""
        self.stderr_open = (self.stderr_open + rest)[:_STDERR_LINE_CHARS]

    async def describe_end(self) -> str:
        """How the child ended (given a moment to exit) or that it still runs, with its stderr."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.process.wait()), _STATUS_WAIT)
        code = self.process.returncode
        state = "is still running" if code is None else f"exited with status {code}"
        tail = ("".join(self.stderr_tail) + self.stderr_open).strip()
        return f"{state}; its stderr ended with:\n{tail}" if tail else state

    async def end(self) -> None:
        """Close stdin, then SIGTERM, then SIGKILL the process group, each step bounded."""
        process = self.process
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        for step in (None, signal.SIGTERM, signal.SIGKILL):
            if step is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, step)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), _EXIT_WAIT)
            if process.returncode is not None:
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever the child left in its group


def _answer_fault(answer: Mapping[str, Any], error: Exception) -> str:
    """What makes an answer (an object with an id and no method) invalid JSON-RPC."""
    if "result" in answer and "error" in answer:
        return "it has both 'result' and 'error'"
    if "result" in answer and not isinstance(answer["result"], dict):
        return "its 'result' is not an object"
    if "error" in answer and "result" not in answer:
        return "its 'error' is not an object with an integer 'code' and a string 'message'"
    if "result" not in answer:
        return "it has neither 'result' nor 'error'"
    found = getattr(error, "errors", None)  # a pydantic ValidationError says where
    details = found() if callable(found) else None
    if isinstance(details, list) and details and isinstance(details[0], dict):
        return str(details[0].get("msg", error))
    return str(error) or type(error).__name__


def _error_for(ident: int | str, reason: str) -> SessionMessage:
    """A JSON-RPC error answering our request `ident`, as if the server had sent it."""
    error = ErrorData(code=INTERNAL_ERROR, message=reason)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident, error=error))


def _refused_answer(text: str, error: Exception) -> SessionMessage | None:
    """An error for the request a malformed answer names, so that the caller fails at once
    rather than waiting for an answer that already came; None when `text` names no request."""
    try:
        answer = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(answer, dict) or "method" in answer:
        return None
    ident = answer.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    return _error_for(
        ident, f"the server's answer is not valid JSON-RPC: {_answer_fault(answer, error)}"
    )


# An id in JSON: a whole number or a string.
_ID = rb'(-?\d+|"(?:[^"\\]|\\.)*")'
# A line that starts as an answer does: the keys before its result (or error) are the top
# level's, so an id among them is the answer's own.
_ANSWER_START = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*' + _ID + rb"\s*,\s*)?"
    rb'"(?:result|error)"\s*:'
)
# An id as the last key of a line (a closing brace right after it is the top level's).
_ANSWER_END = re.compile(rb'"id"\s*:\s*' + _ID + rb"\s*\}\s*$")
_ENDS_KEPT = 4096  # bytes of each end of an over-long line, kept to find the request


def _oversized_answer(head: bytes, tail: bytes) -> SessionMessage | None:
    """An error for the request an answer longer than the line limit answers, when its two
    ends say which one it is (the id comes first, or last), else None."""
    start = _ANSWER_START.match(head)
    if start is None:
        return None
    named = start.group(1)
    if named is None:
        end = _ANSWER_END.search(tail)
        named = end.group(1) if end is not None else None
    if named is None:
        return None
    ident = json.loads(named)
    reason = f"the server's answer is longer than the {_LINE_LIMIT >> 20} MiB limit"
    return _error_for(ident, reason)


@asynccontextmanager
async def child_process_transport(
    params: Mapping[str, Any],
    label: str,
    started: list[ChildProcess],
    errlog: TextIO | None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start the child and yield the `(read, write)` streams the `mcp` client takes.

    `started` receives the `ChildProcess`; `errlog` takes its stderr (None: `sys.stderr` as
    it is at each line, so that a redirection is honoured)."""
    cwd = params.get("cwd")
    process = await asyncio.create_subprocess_exec(
        params["command"],
        *params.get("args", []),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(cwd) if cwd is not None else None,
        env={**get_default_environment(), **(params.get("env") or {})},
        start_new_session=True,
        limit=_LINE_LIMIT,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,
    )
    child = ChildProcess(process)
    started.append(child)
    encoding = params.get("encoding", "utf-8")
    errors = params.get("encoding_error_handler", "strict")
    to_client, from_child = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    to_child, from_client = anyio.create_memory_object_stream[SessionMessage](32)
    assert process.stdout is not None and process.stdin is not None and process.stderr is not None
    stdout, stdin, stderr = process.stdout, process.stdin, process.stderr

    async def next_line() -> tuple[bytes, tuple[bytes, bytes] | None]:
        """The next stdout line (b"" at the end), or b"" and the two ends of a line longer
        than the limit, which is read through and dropped."""
        ends: tuple[bytes, bytes] | None = None
        while True:
            try:
                line = await stdout.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                line = end.partial  # the stream's end
            except asyncio.LimitOverrunError as overrun:
                piece = await stdout.readexactly(overrun.consumed)
                head, tail = ends or (piece[:_ENDS_KEPT], b"")
                ends = (head, (tail + piece)[-_ENDS_KEPT:])
                continue
            if ends is None:
                return line, None
            return b"", (ends[0], (ends[1] + line)[-_ENDS_KEPT:])

    async def read_stdout() -> None:
        async with to_client:
            while True:
                raw, ends = await next_line()
                if ends is not None:
                    start = ends[0][:120].decode(encoding, "replace")
                    child.junk = f"{start}... (longer than the {_LINE_LIMIT >> 20} MiB limit)"
                    logger.warning("MCP server %r wrote a line that is too long: %s",
                                   label, escape_for_log(child.junk))  # fmt: skip
                    refusal = _oversized_answer(*ends)
                    await to_client.send(refusal or ValueError(child.junk))
                    continue
                if not raw:
                    return  # end of file: closing the stream fails the pending requests
                try:
                    text = raw.decode(encoding, errors).strip()
                except UnicodeError as error:
                    # One undecodable line is skipped like any other line that is not
                    # JSON-RPC: it must not end the connection and every call on it.
                    logger.warning("MCP server %r wrote a line that is not %s: %.200r",
                                   label, encoding, raw)  # fmt: skip
                    child.junk = raw[:200].decode(encoding, "replace").strip()
                    await to_client.send(error)
                    continue
                if not text:
                    continue
                try:
                    message = jsonrpc_message_adapter.validate_json(text)
                except Exception as error:
                    logger.warning("MCP server %r wrote a line that is not JSON-RPC: %s",
                                   label, escape_for_log(text[:200]))  # fmt: skip
                    child.junk = text[:200]
                    refusal = _refused_answer(text, error)
                    await to_client.send(error if refusal is None else refusal)
                    continue
                await to_client.send(SessionMessage(message))

    async def write_stdin() -> None:
        async with from_client:
            async for item in from_client:
                line = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    stdin.write(line.encode(encoding, errors) + b"\n")
                    await stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the child is gone; reading its stdout reports it

    stderr_done = anyio.Event()

    async def read_stderr() -> None:
        decoder = codecs.getincrementaldecoder(encoding)("replace")
        try:
            while True:
                raw = await stderr.read(_STDERR_CHUNK)
                text = decoder.decode(raw, final=not raw)
                if text:
                    child.hear(text)
                    with contextlib.suppress(Exception):
                        sink = errlog if errlog is not None else sys.stderr
                        sink.write(text)
                        sink.flush()
                if not raw:
                    return
        finally:
            stderr_done.set()

    # stderr is read outside the pipes' task group: a child that dies says why on stderr
    # while its stdout closes, and those last words must be read before we describe it.
    async with anyio.create_task_group() as outer:
        outer.start_soon(read_stderr)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(read_stdout)
                group.start_soon(write_stdin)
                try:
                    yield from_child, to_child
                finally:
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await child.end()
                with anyio.move_on_after(_STDERR_DRAIN):
                    await stderr_done.wait()
            outer.cancel_scope.cancel()
