"""The requests of one session that run the author's code, each answered from a task of its own.

A tool call, a resource read or a prompt runs as a task so that the session keeps reading
frames meanwhile: a slow function holds no other request up, `notifications/cancelled` can
reach it, and a transport asking whether the session is busy sees it. `RequestsInFlight` is
the session's table of such requests, from acceptance until their reply is about to be
written: cancelling one ends its task and sends no reply, a request reusing the id of one
still in flight is ignored with a warning (two replies for one id would be taken for the
first one's), and `unanswered` tells a transport of each request that ended without a reply
once nothing of it can still be sent.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio

from ..wire.jsonrpc import (
    INTERNAL_ERROR,
    FrameKind,
    ProtocolError,
    RequestId,
    RoutedSend,
    error_message,
    result_message,
)

if TYPE_CHECKING:
    from .backlog import Backlog
    from .reporter import Reporter

__all__ = ["CallInFlight", "RequestsInFlight"]

logger = logging.getLogger("toolwire.protocol")


class CallInFlight:
    """One request in flight (a tool call, a resource read, a prompt) and its task."""

    __slots__ = ("abandoned", "reporter", "size", "task")

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.abandoned = False  # cancelled: no reply may be sent for it any more
        self.task: asyncio.Task[None] | None = None
        self.size = 0  # its request's bytes, as the session's backlog counted them

    def cancel(self) -> None:
        """Stop the call; no reply will be sent for it."""
        self.abandoned = True
        self.reporter.closed = True
        if self.task is not None:
            self.task.cancel()


class RequestsInFlight:
    """The requests one session runs in tasks, by id, and how a request gets its task.

    Args:
        send: Writes one frame for a request id (the session's `send`).
        backlog: The session's backlog: it counts each request's bytes while it runs.
        error_details: Whether an error reply adds the author's exception.
    """

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
        """Set by a transport: told the id of each request that ended without a reply (the
        client cancelled it), after its task is over. Must not raise."""

    def __len__(self) -> int:
        return len(self._calls)

    def is_duplicate(self, request_id: RequestId) -> bool:
        """Whether a request with this id is still in flight (then it is logged, and the
        new one must be ignored)."""
        if request_id in self._calls:
            logger.warning("request id %r is already in flight; duplicate ignored", request_id)
            return True
        return False

    def answer_in_task(
        self,
        request_id: RequestId,
        call: CallInFlight,
        work: Callable[[], Awaitable[dict[str, Any]]],
    ) -> None:
        """Track `call` and reply to `request_id` with what `work()` returns, from a task.

        `work` returns the whole result (era fields included); a `ProtocolError` it raises
        is the error reply, any other exception a logged -32603 "Internal error", as for a
        request answered inline. Check `is_duplicate` first.
        """
        self.launch(request_id, call, self._answer(request_id, call, work))

    def launch(
        self, request_id: RequestId, call: CallInFlight, coro: Coroutine[Any, Any, None]
    ) -> None:
        """Put `call` in flight and run `coro` (which replies and takes it out of the table
        with `settle`) as its task."""
        self._calls[request_id] = call
        call.size = self._backlog.call_started()
        call.task = asyncio.create_task(coro)
        self._tasks.add(call.task)
        call.task.add_done_callback(functools.partial(self._task_done, request_id, call))

    def settle(self, request_id: RequestId, call: CallInFlight) -> None:
        """Take `call` out of the table (its reply comes next, if any)."""
        call.reporter.closed = True
        if self._calls.get(request_id) is call:
            del self._calls[request_id]
            self._backlog.call_ended(call.size)

    def cancel(self, request_id: RequestId) -> bool:
        """Cancel the request `request_id` (no reply will be sent for it); whether it was
        in flight."""
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
        """Answer every request in flight with the JSON-RPC error `code`/`message`, then
        cancel it; how many there were. Each is marked abandoned before its error goes out,
        so one ending meanwhile sends no second reply."""
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
        """Wait, shielded, for every task to end, as a task group waits for its children: a
        request already replying finishes its frame (a reply cut in half would corrupt the
        stream)."""
        if self._tasks:
            with anyio.CancelScope(shield=True):
                await asyncio.wait(set(self._tasks))

    async def _answer(
        self,
        request_id: RequestId,
        call: CallInFlight,
        work: Callable[[], Awaitable[dict[str, Any]]],
    ) -> None:
        try:
            reply = result_message(request_id, await work())
        except ProtocolError as error:
            text = error.message_for(self._error_details)
            reply = error_message(request_id, error.code, text, error.data)
        except Exception:
            logger.exception("request %r failed", request_id)
            reply = error_message(request_id, INTERNAL_ERROR, "Internal error")
        finally:
            self.settle(request_id, call)
        if not call.abandoned:  # cancelled, or answered by its input round
            await self._send(reply, FrameKind.REPLY, request_id)

    def _task_done(
        self, request_id: RequestId, call: CallInFlight, task: asyncio.Task[None]
    ) -> None:
        self._tasks.discard(task)
        if self._calls.get(request_id) is call:  # cancelled before it ever started
            del self._calls[request_id]
            self._backlog.call_ended(call.size)
        if not task.cancelled() and task.exception() is not None:  # a bug: requests reply
            logger.error("a request's task failed", exc_info=task.exception())
        if call.abandoned and self.unanswered is not None:
            self.unanswered(request_id)
