"""The tools side of a session: `tools/list`, and each `tools/call` as a task of its own.

A base class of `ServerSession` (the session's state stays in one object; this file holds
what concerns calls). A call is accepted (known, enabled, allowed to this caller), gets its
reporter and asker, runs as a tracked task (`session_requests.py`) and replies when it ends;
a cancelled call ends without a reply. What one call does from its params to its result is
`calls.run_call`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from . import eras, handlers
from .asking import asker_for
from .calls import CallInFlight, checked_tool_name, run_call
from .identity import FORBIDDEN, scope_refusal
from .jsonrpc import (
    INVALID_PARAMS,
    ProtocolError,
    RequestId,
    error_message,
    result_message,
    result_message_raw,
)
from .registry import is_enabled
from .reporter import Reporter
from .session_requests import TrackedRequests

if TYPE_CHECKING:
    import anyio

    from ..tools.threads import SyncBudget
    from .app import ServedApp
    from .call_context import ContextSource
    from .identity import Identity
    from .registry import RegisteredTool

__all__ = ["ToolCalls"]

logger = logging.getLogger("toolwire.protocol")

Params = dict[str, Any] | None


class ToolCalls(TrackedRequests):
    """The `tools/list` and `tools/call` handlers of `ServerSession`, and its calls in flight."""

    # The session's state these handlers use (set by ServerSession.__init__/__aenter__).
    server: ServedApp
    identity: Identity | None
    client_info: dict[str, Any] | None
    _contexts: ContextSource
    _limiter: SyncBudget | anyio.CapacityLimiter | None

    async def _list_tools(
        self, request_id: RequestId, params: Params, version: str, _level: str | None
    ) -> None:
        cursor = params.get("cursor") if params else None
        if cursor is not None and not isinstance(cursor, str):
            raise eras.invalid_params("tools/list: 'cursor' must be a string")
        payload = await handlers.list_tools_payload(
            self.server, self.server.tool_registry, version, params
        )
        await self.send(result_message_raw(request_id, payload), request_id)
        self.server.tools_listed()  # the client knows the tools: calls come next

    async def _start_call(
        self, request_id: RequestId, params: Params, version: str, log_level: str | None
    ) -> None:
        if self.is_duplicate(request_id):
            return
        params = params or {}
        entry = self.server.tool_registry.get(checked_tool_name(params))
        # A callable is_enabled is asked (it may be async); a plain flag needs no await.
        if entry is None or not (
            await is_enabled(entry) if entry.dynamic else entry.tool.is_enabled
        ):
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {params['name']}")
        if entry.scopes and self.identity is not None:
            missing = self.identity.missing_scopes(entry.scopes)
            if missing:
                raise ProtocolError(
                    FORBIDDEN,
                    scope_refusal(entry.name, missing),
                    {"requiredScopes": sorted(entry.scopes), "missingScopes": missing},
                )
        meta = params.get("_meta")
        token = meta.get("progressToken") if meta else None
        session: Any = self  # a ServerSession, the only class built on this one
        asker = asker_for(session, request_id, version, params, entry.name)
        call = CallInFlight(Reporter(self.send, token, log_level, request_id, asker))
        asker.attach(session, request_id, call)
        coro = self._run_call(request_id, entry, params, version, call, self.identity)
        self.launch(request_id, call, coro)

    async def _run_call(
        self,
        request_id: RequestId,
        entry: RegisteredTool,
        params: dict[str, Any],
        version: str,
        call: CallInFlight,
        identity: Identity | None,
    ) -> None:
        """Run the call and reply; a cancelled call ends by its exception, without a reply.
        `identity` is the caller's as the call was accepted (a later request of the same
        caller may bring another token)."""
        refusal: ProtocolError | None = None
        result: dict[str, Any] = {}
        try:
            result = await run_call(
                request_id,
                entry,
                params,
                version,
                call.reporter,
                self._contexts,
                self.client_info,
                self._limiter,
                identity,
            )
        except ProtocolError as error:  # the call itself is refused (see calls.py)
            refusal = error
        finally:
            self.settle(request_id, call)
        if call.abandoned:  # the tool outlived its cancellation: the call is answered
            return
        if refusal is not None:
            reply = error_message(request_id, refusal.code, refusal.message, refusal.data)
            await self.send(reply, request_id)
            return
        if version in eras.MODERN_VERSIONS:
            handlers.modern(result, self.server.server_info)
        await self.send(result_message(request_id, result), request_id)
