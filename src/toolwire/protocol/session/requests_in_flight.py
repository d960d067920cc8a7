"""The requests of one session that run the author's code, each answered from a task of its own. A
tool call, a resource read or a prompt runs as a task so that the session keeps reading: a slow
function holds no other request up and `notifications/cancelled` can reach it. A cancelled request
gets no reply; a request reusing the id of one in flight is ignored with a warning. A `CallInFlight`
is also what its function reports through: progress only when the request carried a progress token
(and increasing), logs at the client's level, nothing once answered. Each session's `Backlog` counts
the bytes of frames not yet written, the bytes of requests whose calls still run and the number of
those calls; while any is past its limit the backlog is `full` and a transport reads no more frames
until it clears (nothing read is dropped)."""

from __future__ import annotations

import asyncio
import functools
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from ...errors import NoBackChannelError
from ...tools.log_text import log_with_trace
from ..wire.content import to_jsonable
from ..wire.eras import LOG_LEVELS, progress_token
from ..wire.jsonrpc import (
    INTERNAL_ERROR,
    FrameKind,
    ProtocolError,
    RequestId,
    RoutedSend,
    error_message,
    notification,
    result_message,
)
from .asking import Asker, AskingSession

if TYPE_CHECKING:
    from ...context import ElicitResult, SampleResult
    from ..auth.identity import Identity

__all__ = ["STREAM_CLOSER", "Backlog", "CallInFlight", "RequestsInFlight", "start_call"]

logger = logging.getLogger("toolwire.protocol")

STREAM_CLOSER: ContextVar[Callable[[], Awaitable[None]] | None] = ContextVar(
    "toolwire_stream_closer", default=None
)
"""Set by a transport whose request stream may end early (streamable HTTP's SSE responses)."""


UNSENT_LIMIT = 4 * 1024 * 1024
CALL_BYTES_LIMIT = 4 * 1024 * 1024
CALLS_LIMIT = 1024


@dataclass(eq=False, slots=True)
class Backlog:
    """What one session holds (see the module docstring)."""

    unsent: int = 0
    call_bytes: int = 0
    calls: int = 0
    frame_size: int = 0  # of the frame being handled, for the call it starts
    _clear: anyio.Event | None = field(default=None, init=False)  # set as the backlog clears

    @property
    def full(self) -> bool:
        """Whether the transport should read no more frames for now."""
        return (
            self.unsent >= UNSENT_LIMIT
            or self.call_bytes >= CALL_BYTES_LIMIT
            or self.calls >= CALLS_LIMIT
        )

    async def until_clear(self) -> None:
        """Return as soon as the backlog is not full (at once if it is not)."""
        while self.full:
            if self._clear is None:
                self._clear = anyio.Event()
            await self._clear.wait()

    def sending(self, size: int) -> None:
        """A frame of `size` bytes is waiting to be written."""
        self.unsent += size

    def sent(self, size: int) -> None:
        """That frame is written (or given up)."""
        self.unsent -= size
        self._wake()

    def call_started(self) -> int:
        """A call began for the frame being handled; returns the size to end it with."""
        size = self.frame_size
        self.calls += 1
        self.call_bytes += size
        return size

    def call_ended(self, size: int) -> None:
        """A call that began with `call_started` is over."""
        self.calls -= 1
        self.call_bytes -= size
        self._wake()

    def _wake(self) -> None:
        if self._clear is not None and not self.full:
            self._clear.set()
            self._clear = None


@dataclass(eq=False, slots=True)
class CallInFlight:
    """One request in flight: its task, what is known of the request (`identity`: the caller's
    as it was accepted), and what its function reports and asks through: progress for `token`,
    logs from `log_level` up, questions through the asker `make_asker(call=self)` builds (None:
    no client to ask). Once `abandoned`, no reply may be sent for it; `size` is its request's
    bytes in the backlog."""

    send: RoutedSend
    token: Any
    log_level: InitVar[str | None]
    request_id: RequestId
    make_asker: Callable[..., Asker] | None = None
    session_id: str | None = None
    _: KW_ONLY
    version: str = ""
    meta: Any = None
    client_info: Mapping[str, Any] | None = None
    identity: Identity | None = None
    asker: Asker | None = field(default=None, init=False)
    task: asyncio.Task[None] | None = field(default=None, init=False)
    closed: bool = field(default=False, init=False)
    abandoned: bool = field(default=False, init=False)
    size: int = field(default=0, init=False)
    _level: int | None = field(default=None, init=False)
    _last: float = field(default=-math.inf, init=False)
    _closer: Callable[[], Awaitable[None]] | None = field(
        default_factory=STREAM_CLOSER.get, init=False
    )

    def __post_init__(self, log_level: str | None) -> None:
        self._level = LOG_LEVELS.index(log_level) if log_level in LOG_LEVELS else None

    def cancel(self) -> None:
        """Stop the call; no reply will be sent for it."""
        self.abandoned = True
        self.closed = True
        if self.task is not None:
            self.task.cancel()

    async def close_stream(self) -> None:
        """End the stream carrying this call's messages, if its transport has one to end."""
        if self._closer is not None and not self.closed:
            await self._closer()

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Send `notifications/progress` if the caller asked for it. A bad value is logged
        whether or not it did, so that a tool's mistake shows with every client."""
        if not _finite(progress):
            logger.warning("progress must be a finite number, not %r; dropped", progress)
            return
        if total is not None and not _finite(total):
            logger.warning("total must be a finite number or None, not %r; left out", total)
            total = None
        if self.token is None or self.closed:
            return
        if progress <= self._last:
            logger.warning(
                "progress must increase (got %s after %s); dropped", progress, self._last
            )
            return
        self._last = progress
        params: dict[str, Any] = {"progressToken": self.token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = str(message)
        await self.send(
            notification("notifications/progress", params), FrameKind.NOTICE, self.request_id
        )

    async def log(self, level: str, data: Any, logger_name: str | None) -> None:
        """Send `notifications/message` if `level` passes the client's threshold (an unknown
        level is logged whatever the client asked for)."""
        if level not in LOG_LEVELS:
            logger.warning("unknown log level %r; use one of %s", level, ", ".join(LOG_LEVELS))
            return
        if self._level is None or self.closed:
            return
        if LOG_LEVELS.index(level) < self._level:
            return
        params: dict[str, Any] = {"level": level}
        if logger_name:
            params["logger"] = str(logger_name)
        params["data"] = to_jsonable(data)
        await self.send(
            notification("notifications/message", params), FrameKind.NOTICE, self.request_id
        )

    def ready_asker(self) -> Asker | None:
        """The asker, built now if it was not yet (a modern retry's answers are checked as it
        is built: -32602 when malformed)."""
        if self.asker is None and self.make_asker is not None:
            self.asker = self.make_asker(call=self)
        return self.asker

    def _questions(self, method: str) -> Asker:
        asker = self.ready_asker()
        if asker is None:
            raise NoBackChannelError(method, f"Cannot send {method!r}: no client to ask.")
        return asker

    async def elicit(
        self, message: str, schema: Any, timeout: float | None, key: str | None
    ) -> ElicitResult:
        """Ask the user through the client (see `ToolContext.elicit`)."""
        return await self._questions("elicitation/create").elicit(message, schema, timeout, key)

    async def sample(
        self, messages: Any, options: dict[str, Any], timeout: float | None, key: str | None
    ) -> SampleResult:
        """Ask the client's model (see `ToolContext.sample`)."""
        asker = self._questions("sampling/createMessage")
        return await asker.sample(messages, options, timeout, key)

    async def list_roots(self, timeout: float | None, key: str | None) -> list[dict[str, Any]]:
        """Ask the client for its roots (see `ToolContext.list_roots`)."""
        return await self._questions("roots/list").list_roots(timeout, key)


def _finite(value: object) -> bool:
    """Whether `value` is a finite int or float (not a bool): what JSON can carry as a number."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


class RequestsInFlight:
    """The requests one session runs in tasks, by id, each counted in `backlog` while it
    runs (`error_details`: error replies add the author's exception)."""

    def __init__(
        self,
        send: RoutedSend,
        backlog: Backlog,
        *,
        error_details: bool = False,
    ) -> None:
        self._send = send
        self._backlog = backlog
        self._error_details = error_details
        self._calls: dict[RequestId, CallInFlight] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # running, or still replying
        self.unanswered: Callable[[RequestId], None] | None = None
        """Set by a transport: told each request that ended without a reply. Must not raise."""

    def __len__(self) -> int:
        return len(self._calls)

    def is_duplicate(self, request_id: RequestId) -> bool:
        """Whether a request with this id is in flight (logged: the new one is ignored)."""
        if request_id in self._calls:
            logger.warning("request id %r is already in flight; duplicate ignored", request_id)
            return True
        return False

    def answer_in_task(
        self, call: CallInFlight, work: Callable[[], Awaitable[dict[str, Any]]]
    ) -> None:
        """Track `call` and reply with what `work()` returns (a `ProtocolError` it raises is
        the error reply, anything else a logged -32603), from a task."""
        self._calls[call.request_id] = call
        call.size = self._backlog.call_started()
        call.task = asyncio.create_task(self._answer(call, work))
        self._tasks.add(call.task)
        call.task.add_done_callback(functools.partial(self._task_done, call))

    def settle(self, call: CallInFlight) -> None:
        """Take `call` out of the table (its reply comes next, if any)."""
        call.closed = True
        if self._calls.get(call.request_id) is call:
            del self._calls[call.request_id]
            self._backlog.call_ended(call.size)

    def cancel(self, request_id: RequestId) -> bool:
        """Cancel a request (no reply will be sent); whether it was in flight."""
        call = self._calls.get(request_id)
        if call is None:
            return False
        call.cancel()
        return True

    def cancel_all(self) -> None:
        """Cancel every request in flight (not those already writing their reply)."""
        for call in list(self._calls.values()):
            call.cancel()

    async def refuse_all(self, code: int, message: str) -> int:
        """Answer every request in flight with this error, then cancel it; how many. Each is
        abandoned first, so one ending meanwhile sends no second reply."""
        refused = list(self._calls.items())
        for request_id, call in refused:
            call.abandoned = True
            try:
                await self._send(
                    error_message(request_id, code, message), FrameKind.REPLY, request_id
                )
            except Exception as error:  # the client is gone: the call is cancelled regardless
                logger.debug("the refusal of request %r was not delivered: %r", request_id, error)
            finally:
                call.cancel()
        return len(refused)

    async def wait(self) -> None:
        """Wait, shielded, for every task to end (a reply cut in half would corrupt the
        stream)."""
        if self._tasks:
            with anyio.CancelScope(shield=True):
                await asyncio.wait(set(self._tasks))

    async def _answer(
        self, call: CallInFlight, work: Callable[[], Awaitable[dict[str, Any]]]
    ) -> None:
        request_id = call.request_id
        try:
            reply = result_message(request_id, await work())
        except ProtocolError as error:
            text = error.message_for(self._error_details)
            reply = error_message(request_id, error.code, text, error.data)
        except Exception as error:
            log_with_trace(logger, logging.ERROR, "request %r failed", request_id, error=error)
            reply = error_message(request_id, INTERNAL_ERROR, "Internal error")
        finally:
            self.settle(call)
        if not call.abandoned:  # cancelled, or answered by its input round
            await self._send(reply, FrameKind.REPLY, request_id)

    def _task_done(self, call: CallInFlight, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self.settle(call)  # if cancelled before it ever started
        if not task.cancelled() and task.exception() is not None:  # a bug: requests reply
            logger.error("a request's task failed", exc_info=task.exception())
        if call.abandoned and self.unanswered is not None:
            self.unanswered(call.request_id)


def start_call(
    session: AskingSession,
    request_id: RequestId,
    params: dict[str, Any],
    version: str,
    log_level: str | None,
    method: str,
    subject: str | None = None,
) -> CallInFlight:
    """The call in flight for an accepted request that runs the author's code (-32602 for a
    malformed progress token). With a `subject` (the tool, prompt or URI the request names) it
    may ask its client, its asker made at the first question, or at once for a 2026-07-28
    retry, whose answers are checked up front (-32602)."""
    make_asker = None
    if subject is not None:
        make_asker = functools.partial(Asker, session, request_id, version, params, subject, method)
    call = CallInFlight(
        session.send,
        progress_token(params, method),
        log_level,
        request_id,
        make_asker,
        session.session_id,
        version=version,
        meta=params.get("_meta"),
        client_info=session.client_info,
        identity=session.identity,
    )
    if session.era == "modern" and ("requestState" in params or "inputResponses" in params):
        call.ready_asker()
    return call
