"""Requests a session answers from a task it tracks, not before reading the next frame.

A base class of `ServerSession` (through `session_calls.ToolCalls`). Whatever runs the
author's code (a tool call, a resource read, a prompt) runs this way: on a connection that
carries several requests (stdio, legacy SSE, a handshake-era HTTP session) a slow function
would otherwise hold every frame behind it, `notifications/cancelled` could not reach it,
and a transport asking whether the session is `busy` (the 2026-07-28 HTTP pool, idle
expiry, stdio's end of input) would not see it running.

Each such request is a `CallInFlight` in the session's in-flight table from the moment it is
accepted until its reply is about to be written: cancelling it ends its task and no reply
is sent; leaving the session cancels it. A request reusing the id of one still in flight is
ignored with a warning (two replies for one id would be taken for the first one's).

A transport that keeps something open per request (an HTTP response waiting for the reply)
learns of a request that ended without one through `unanswered`: it is called with the
request's id once a cancelled request's task has ended, so nothing of it can still be sent.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio

from .calls import CallInFlight, in_scope
from .jsonrpc import (
    INTERNAL_ERROR,
    ProtocolError,
    RequestId,
    error_message,
    result_message,
)

if TYPE_CHECKING:
    import anyio.abc

    from .backlog import Backlog
    from .call_context import ContextSource
    from .identity import Identity

__all__ = ["TrackedRequests"]

logger = logging.getLogger("toolwire.protocol")


class TrackedRequests:
    """The in-flight table of `ServerSession` and how a request gets a task in it."""

    # The session's state used here (set by ServerSession.__init__/__aenter__).
    backlog: Backlog
    client_info: dict[str, Any] | None
    identity: Identity | None
    error_details: bool
    _contexts: ContextSource
    loop: asyncio.AbstractEventLoop | None
    send: Callable[..., Awaitable[None]]
    _task_group: anyio.abc.TaskGroup | None
    _in_flight: dict[RequestId, CallInFlight]
    _call_tasks: set[asyncio.Task[None]]

    unanswered: Callable[[RequestId], None] | None = None
    """Set by a transport: told the id of each request that ended without a reply (the
    client cancelled it), after its task is over. Must not raise."""

    async def context_for(
        self,
        request_id: RequestId,
        name: str,
        arguments: dict[str, Any],
        params: dict[str, Any],
        version: str,
    ) -> Any:
        """What `ctx.context` holds for a request that is not a tool call (a prompt, a
        resource read): the server's context, or its factory's answer, as for a call;
        `CallInfo.tool_name` is then the prompt's name or the resource's URI.

        Raises:
            Exception: Whatever the context factory raises.
        """
        contexts = self._contexts
        if contexts.factory is None:
            return contexts.value
        meta = params.get("_meta")
        return await contexts.make(
            str(request_id),
            name,
            arguments,
            meta if isinstance(meta, dict) else None,
            version,
            self.client_info,
            self.identity,
        )

    def is_duplicate(self, request_id: RequestId) -> bool:
        """Whether a request with this id is still in flight (then it is logged, and the
        new one must be ignored)."""
        if request_id in self._in_flight:
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
        self,
        request_id: RequestId,
        call: CallInFlight,
        coro: Coroutine[Any, Any, None],
    ) -> None:
        """Put `call` in flight and run `coro` (which replies and takes it out of the table
        with `settle`) as its task."""
        self._in_flight[request_id] = call
        call.size = self.backlog.call_started()
        if self.loop is None:  # other anyio backends: a cancel scope in the task group
            assert self._task_group is not None
            call.scope = anyio.CancelScope()
            self._task_group.start_soon(self._run_in_scope, request_id, call, coro)
            return
        call.task = self.loop.create_task(coro)
        self._call_tasks.add(call.task)
        call.task.add_done_callback(functools.partial(self._task_done, request_id, call))

    async def _run_in_scope(
        self, request_id: RequestId, call: CallInFlight, coro: Coroutine[Any, Any, None]
    ) -> None:
        assert call.scope is not None
        await in_scope(call.scope, coro)
        if call.abandoned and self.unanswered is not None:
            self.unanswered(request_id)

    def settle(self, request_id: RequestId, call: CallInFlight) -> None:
        """Take `call` out of the in-flight table (its reply comes next, if any)."""
        call.reporter.closed = True
        if self._in_flight.get(request_id) is call:
            del self._in_flight[request_id]
            self.backlog.call_ended(call.size)

    async def _answer(
        self,
        request_id: RequestId,
        call: CallInFlight,
        work: Callable[[], Awaitable[dict[str, Any]]],
    ) -> None:
        try:
            reply = result_message(request_id, await work())
        except ProtocolError as error:
            text = error.message_for(self.error_details)
            reply = error_message(request_id, error.code, text, error.data)
        except Exception:
            logger.exception("request %r failed", request_id)
            reply = error_message(request_id, INTERNAL_ERROR, "Internal error")
        finally:
            self.settle(request_id, call)
        if not call.abandoned:  # cancelled, or answered by its input round
            await self.send(reply, request_id)

    def _task_done(
        self, request_id: RequestId, call: CallInFlight, task: asyncio.Task[None]
    ) -> None:
        self._call_tasks.discard(task)
        if self._in_flight.get(request_id) is call:  # cancelled before it ever started
            del self._in_flight[request_id]
            self.backlog.call_ended(call.size)
        if not task.cancelled() and task.exception() is not None:  # a bug: requests reply
            logger.error("a request's task failed", exc_info=task.exception())
        if call.abandoned and self.unanswered is not None:
            self.unanswered(request_id)
