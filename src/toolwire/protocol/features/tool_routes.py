"""`tools/list` and `tools/call` for both eras, as route-table entries.

A call is accepted here (a known, enabled tool this caller has the scopes for; else -32602
"Unknown tool: <name>" or the scope refusal), gets its reporter and asker, and runs as a
request in flight of the session (`requests_in_flight.py`), which replies when it ends; a
cancelled call ends without a reply. What one call does from its params to its result is
`calls.run_call`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..auth.identity import FORBIDDEN, scope_refusal
from ..session import handlers
from ..session.asking import asker_for
from ..session.methods import Route
from ..session.reporter import Reporter
from ..wire import eras
from ..wire.jsonrpc import (
    INVALID_PARAMS,
    FrameKind,
    ProtocolError,
    RequestId,
    error_message,
    result_message,
    result_message_raw,
)
from .calls import CallInFlight, checked_tool_name, run_call
from .registry import is_enabled

if TYPE_CHECKING:
    from ..auth.identity import Identity
    from ..session.methods import Session
    from .registry import RegisteredTool

__all__ = ["TOOL_ROUTES_HANDSHAKE", "TOOL_ROUTES_MODERN", "call_tool", "list_tools"]

Params = dict[str, Any] | None


async def list_tools(
    session: Session, request_id: RequestId, params: Params, version: str, *_: Any
) -> None:
    """`tools/list`: every enabled tool, one page."""
    cursor = params.get("cursor") if params else None
    if cursor is not None and not isinstance(cursor, str):
        raise eras.invalid_params("tools/list: 'cursor' must be a string")
    server = session.server
    payload = await handlers.list_tools_payload(server, server.tool_registry, version, params)
    await session.send(result_message_raw(request_id, payload), FrameKind.REPLY, request_id)
    server.tools_listed()  # the client knows the tools: calls come next


async def call_tool(
    session: Session, request_id: RequestId, params: Params, version: str, log_level: str | None
) -> None:
    """`tools/call`: checked here, then run and answered from a request in flight."""
    requests = session.requests
    if requests.is_duplicate(request_id):
        return
    params = params or {}
    entry = session.server.tool_registry.get(checked_tool_name(params))
    # A callable is_enabled is asked (it may be async); a plain flag needs no await.
    if entry is None or not (await is_enabled(entry) if entry.dynamic else entry.tool.is_enabled):
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {params['name']}")
    identity = session.identity
    if entry.scopes and identity is not None:
        missing = identity.missing_scopes(entry.scopes)
        if missing:
            raise ProtocolError(
                FORBIDDEN,
                scope_refusal(entry.name, missing),
                {"requiredScopes": sorted(entry.scopes), "missingScopes": missing},
            )
    meta = params.get("_meta")
    token = meta.get("progressToken") if meta else None
    asker = asker_for(session, request_id, version, params, entry.name)
    call = CallInFlight(
        Reporter(session.send, token, log_level, request_id, asker, session.session_id)
    )
    asker.attach(session, request_id, call)
    requests.launch(
        request_id, call, _run(session, request_id, entry, params, version, call, identity)
    )


async def _run(
    session: Session,
    request_id: RequestId,
    entry: RegisteredTool,
    params: dict[str, Any],
    version: str,
    call: CallInFlight,
    identity: Identity | None,
) -> None:
    """Run the call and reply; a cancelled call ends by its exception, without a reply.
    `identity` is the caller's as the call was accepted (a later request of the same caller
    may bring another token)."""
    refusal: ProtocolError | None = None
    result: dict[str, Any] = {}
    try:
        result = await run_call(
            request_id,
            entry,
            params,
            version,
            call.reporter,
            session.contexts,
            session.client_info,
            session.sync_limiter,
            identity,
        )
    except ProtocolError as error:  # the call itself is refused (see calls.py)
        refusal = error
    finally:
        session.requests.settle(request_id, call)
    if call.abandoned:  # the tool outlived its cancellation: the call is answered
        return
    if refusal is not None:
        reply = error_message(request_id, refusal.code, refusal.message, refusal.data)
        await session.send(reply, FrameKind.REPLY, request_id)
        return
    if version in eras.MODERN_VERSIONS:
        handlers.modern(result, session.server.server_info)
    await session.send(result_message(request_id, result), FrameKind.REPLY, request_id)


TOOL_ROUTES_HANDSHAKE: dict[str, Route] = {
    "tools/list": Route(list_tools, {"tools": {"listChanged": True}}),
    "tools/call": Route(call_tool),
}
TOOL_ROUTES_MODERN: dict[str, Route] = {
    "tools/list": Route(list_tools, {"tools": {}}),
    # A call's log messages flow at the level its envelope names: no setLevel method.
    "tools/call": Route(call_tool, {"logging": {}}),
}
