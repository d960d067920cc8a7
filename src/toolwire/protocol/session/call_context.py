"""What a served tool finds in `ctx.context`: one value shared by every call, or a factory's answer.
A factory runs once per call with a `CallInfo`; a sync one runs on the event loop and must be quick,
and what it returns is awaited when awaitable."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ...context import ToolContext
from ..wire.eras import META_CLIENT_INFO
from ..wire.jsonrpc import compact_json

if TYPE_CHECKING:
    from ..auth.identity import Identity
    from .requests_in_flight import CallInFlight

__all__ = ["NO_CONTEXT", "CallInfo", "ContextSource"]


@dataclass(eq=False, kw_only=True, slots=True)
class CallInfo:
    """What is known about a `tools/call` when its context is made (see `Server`'s
    `context_factory`). Read-only by convention; fields may be added, none removed.

    Attributes:
        tool_name: Which tool the call is for.
        call_id: The JSON-RPC id of the request, as a string (the tool's `ctx.tool_call_id`).
        arguments: The arguments as sent, not yet validated, defaults not applied (a null
            sent for a defaulted parameter is dropped), read-only.
        meta: The request's `_meta` object, when it has one.
        protocol_version: The protocol version this call is served under.
        client_info: The client's `clientInfo` (name, version), when it sent one.
        state: What the server's lifespan yielded (None without a lifespan).
        identity: The `toolwire.Identity` of an HTTP caller under `Server(auth=...)`; else
            None.
        session_id: The MCP session the call comes in, an opaque string (docs/server.md,
            "MCP sessions and their end"); None for session-less requests.
    """

    # Declared in alphabetical order, which is the order `repr` shows them in.
    arguments: Mapping[str, Any]
    call_id: str
    client_info: Mapping[str, Any] | None
    identity: Identity | None = None
    meta: Mapping[str, Any] | None
    protocol_version: str
    session_id: str | None = None
    state: Any
    tool_name: str


@dataclass(eq=False, frozen=True, kw_only=True, slots=True)
class ContextSource:
    """Where the calls of one serving get their context: `factory(CallInfo)` for each call,
    else the one `value`; `state` is what the lifespan yielded (`CallInfo.state`)."""

    value: Any = None
    factory: Callable[[CallInfo], Any] | None = None
    state: Any = None

    async def tool_context(
        self, call: CallInFlight, name: str, arguments: dict[str, Any]
    ) -> ToolContext[Any]:
        """The `ToolContext` of one request running the author's code (`name`: the tool,
        prompt or resource URI), its context the factory's answer (awaited if need be), else
        `value`; raises what the factory raises."""
        context = self.value
        factory = self.factory
        call_id = str(call.request_id)
        if factory is not None:
            meta = call.meta if isinstance(call.meta, Mapping) else None
            client_info = call.client_info
            if client_info is None and meta is not None:
                sent = meta.get(META_CLIENT_INFO)
                client_info = sent if isinstance(sent, Mapping) else None
            context = factory(
                CallInfo(
                    tool_name=name,
                    call_id=call_id,
                    arguments=MappingProxyType(arguments),
                    meta=meta,
                    protocol_version=call.version,
                    client_info=client_info,
                    state=self.state,
                    identity=call.identity,
                    session_id=call.session_id,
                )
            )
            if inspect.isawaitable(context):
                context = await context
        return ToolContext(
            context,
            tool_name=name,
            tool_call_id=call_id,
            tool_arguments=compact_json(arguments),
            reporter=call,
        )


NO_CONTEXT = ContextSource()
