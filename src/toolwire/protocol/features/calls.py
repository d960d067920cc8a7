"""Running one `tools/call`: arguments in, a `CallToolResult` dict out.

`run_call` validates the arguments, takes the call's context from the session's context source
and runs the tool under its server-side timeout. A failure is an `isError` result with the
tool's failure text (naming the invalid parameters, never their values, when the arguments are
wrong and the default failure function is in use); a timeout answers `Tool 'x' timed out after
N seconds.`; a context factory that raises answers "Internal error" and the tool does not run.
In 2026-07-28 a missing client capability the tool let through is the JSON-RPC error -32021.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import anyio

from ...context import ToolContext
from ...errors import ClientCapabilityError, ModelBehaviorError
from ...tools.call_log import log_timeout
from ...tools.invoke import ToolOutcome, invoke_tool
from ...tools.threads import SyncToolRefused, worker_wait
from ..session.call_context import NO_CONTEXT, ContextSource
from ..wire import eras
from ..wire.content import call_result, error_result
from ..wire.jsonrpc import ProtocolError, compact_json, valid_id
from .arguments import argument_problems, call_arguments

if TYPE_CHECKING:
    from ...tools.threads import SyncBudget
    from ..auth.identity import Identity
    from ..session.reporter import Reporter
    from ..wire.jsonrpc import RequestId
    from .registry import RegisteredTool

logger = logging.getLogger("toolwire.protocol")

__all__ = ["CallInFlight", "checked_tool_name", "in_scope", "run_call"]

_INVALID_JSON_PREFIX = "Invalid JSON input for tool"
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
# The client capability each request to the client needs.
_NEEDS = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


def _argument_problem(entry: RegisteredTool, error: BaseException, arguments: Any) -> str | None:
    """The parameter-naming text for an argument validation failure, else None."""
    if not isinstance(error, ModelBehaviorError) or not error.message.startswith(
        _INVALID_JSON_PREFIX
    ):
        return None
    if not entry.tool._use_default_failure_error_function:
        return None  # the tool chose its own failure text
    from pydantic import ValidationError

    cause = error.__cause__
    problems = []
    if isinstance(cause, ValidationError):
        for item in cause.errors(include_url=False, include_input=False, include_context=False):
            where = ".".join(str(part) for part in item["loc"]) or "arguments"
            problems.append(f"{where}: {item['msg']}")
    else:  # the details were redacted (dont_log_tool_data): find them from the schema
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        problems = argument_problems(entry.tool.params_json_schema, parsed)
    if not problems:
        return f"Invalid arguments for tool '{entry.name}'."
    return f"Invalid arguments for tool '{entry.name}': " + "; ".join(problems)


async def run_call(
    request_id: RequestId,
    entry: RegisteredTool,
    params: dict[str, Any],
    version: str,
    reporter: Reporter,
    contexts: ContextSource = NO_CONTEXT,
    client_info: dict[str, Any] | None = None,
    limiter: SyncBudget | anyio.CapacityLimiter | None = None,
    identity: Identity | None = None,
) -> dict[str, Any]:
    """One `tools/call` from its params to its result (unversioned), honouring the tool's
    server-side timeout; a bug below becomes "Internal error".

    Args:
        request_id: The JSON-RPC id of the request.
        entry: The tool called.
        params: The request's params.
        version: The protocol version the call is served under.
        reporter: Where the tool's progress and log messages go.
        contexts: Where `ctx.context` comes from.
        client_info: The `clientInfo` of the connection's `initialize`, if any.
        limiter: The server's bound on sync tools' worker threads, passed along explicitly:
            the task running a call need not share the session's context.
        identity: Who calls (HTTP with authentication), for the context factory.
    """
    tool = entry.tool
    arguments = call_arguments(tool.params_json_schema, params.get("arguments"))
    args_json = compact_json(arguments)
    call_id = str(request_id)
    ctx: ToolContext[Any] = ToolContext(
        contexts.value,
        tool_name=entry.name,
        tool_call_id=call_id,
        tool_arguments=args_json,
        reporter=reporter,
    )
    if contexts.factory is not None:
        try:
            ctx.context = await contexts.make(
                call_id,
                entry.name,
                arguments,
                params.get("_meta"),
                version,
                client_info,
                identity,
                reporter.session_id,
            )
        except Exception:
            logger.exception("the context factory failed for a call of tool %r", entry.name)
            return {"content": [{"type": "text", "text": "Internal error"}], "isError": True}
    try:
        outcome: ToolOutcome | None = None
        if entry.timeout is None:
            outcome = await invoke_tool(tool, ctx, args_json, arguments, limiter)
        else:
            waits: list[int] = []
            token = worker_wait.set(waits)
            try:
                with anyio.move_on_after(entry.timeout):
                    outcome = await invoke_tool(tool, ctx, args_json, arguments, limiter)
            finally:
                worker_wait.reset(token)
            if outcome is None:
                return _timed_out(entry, entry.timeout, args_json, waits)
        if outcome.error is not None:
            if isinstance(outcome.error, ClientCapabilityError) and version in MODERN:
                raise _undeclared(outcome.error)
            if isinstance(outcome.error, SyncToolRefused):
                return error_result(f"Tool '{entry.name}' refused the call: {outcome.error}.")
            text = _argument_problem(entry, outcome.error, args_json)
            return error_result(text if text is not None else str(outcome.output))
        return call_result(entry, outcome.output, version)
    except ProtocolError:
        raise
    except Exception:
        logger.exception("tool %r failed outside its failure handling", entry.name)
        return {"content": [{"type": "text", "text": "Internal error"}], "isError": True}


MODERN = frozenset(eras.MODERN_VERSIONS)


def _undeclared(error: ClientCapabilityError) -> ProtocolError:
    """The -32021 error answering a call that needed a capability the client lacks."""
    needed = _NEEDS.get(error.method, error.method)
    return ProtocolError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        error.message,
        {"requiredCapabilities": {needed: {}}},
    )


def _timed_out(
    entry: RegisteredTool, seconds: float, args_json: str, waits: list[int]
) -> dict[str, Any]:
    """The SDK's timeout text, and why when the call never got a worker thread."""
    waited_for = waits[0] if waits else None
    log_timeout(entry.name, seconds, args_json, waited_for)
    text = f"Tool '{entry.name}' timed out after {seconds:g} seconds."
    if waited_for is not None:
        text += (
            f" It never started: all {waited_for} worker threads for sync tools were busy"
            " the whole time."
        )
    return error_result(text)


class CallInFlight:
    """One `tools/call` in flight: an asyncio task (the cheap path), or a cancel scope in
    the session's task group on other event loops."""

    __slots__ = ("abandoned", "reporter", "scope", "size", "task")

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.abandoned = False  # cancelled: no reply may be sent for it any more
        self.task: asyncio.Task[None] | None = None
        self.scope: anyio.CancelScope | None = None
        self.size = 0  # its request's bytes, as the session's backlog counted them

    def cancel(self) -> None:
        """Stop the call; no reply will be sent for it."""
        self.abandoned = True
        self.reporter.closed = True
        if self.task is not None:
            self.task.cancel()
        elif self.scope is not None:
            self.scope.cancel()


def checked_tool_name(params: dict[str, Any]) -> str:
    """The tool a `tools/call` names, once its params have the types MCP gives them.

    Raises:
        ProtocolError: -32602 naming the param that is wrong.
    """
    name = params.get("name")
    if not isinstance(name, str):
        raise eras.invalid_params("tools/call: 'name' must be a string")
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise eras.invalid_params("tools/call: 'arguments' must be an object")
    meta = params.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        raise eras.invalid_params("tools/call: '_meta' must be an object")
    token = meta.get("progressToken") if meta else None
    if token is not None and not valid_id(token):
        raise eras.invalid_params("tools/call: 'progressToken' must be a string or integer")
    return name


async def in_scope(scope: anyio.CancelScope, call: Coroutine[Any, Any, None]) -> None:
    """Run a call inside its cancel scope (other anyio backends): a cancel ends the call
    here, as a cancelled task ends on asyncio."""
    with scope:
        await call
