"""The tool methods, `tools/list` and `tools/call`, as route-table entries for each era.

A call is accepted here (a known, enabled tool this caller has the scopes for; else -32602
"Unknown tool: <name>" or the scope refusal) and runs as a request in flight of the session,
which replies when it ends; a cancelled call ends without a reply. A call goes from its
params to its `CallToolResult`: arguments in (a `null` for a parameter with a non-null default
that does not accept null means "use the default"), the call's context from the session's
context source, the tool under its server-side timeout. A failure is an `isError`
result with the tool's failure text, naming the invalid parameters (never their values) when
the arguments are wrong and the default failure function is in use; a timeout answers `Tool 'x'
timed out after N seconds.`; a context factory that raises answers "Internal error" and the
tool does not run. In 2026-07-28 a missing client capability the tool let through is the
JSON-RPC error -32021. A call's questions to its client (`asking.py`) are set up only when it
asks, or when a 2026-07-28 retry brings answers to check.
"""

from __future__ import annotations

import json
import logging
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio

from ...context import ToolContext
from ...errors import ClientCapabilityError, ModelBehaviorError
from ...schema.refs import lookup_local_ref
from ...tools.failure import log_timeout
from ...tools.invoke import ToolOutcome, invoke_tool, validation_problems
from ...tools.threads import SyncToolRefused, worker_wait
from ..auth.identity import FORBIDDEN, scope_refusal
from ..session.asking import CLIENT_CAPABILITY, asker_for
from ..session.methods import PAGE_SIZE, Route, decode_cursor, encode_cursor
from ..session.requests_in_flight import CallInFlight
from ..wire import eras
from ..wire.content import call_result, error_result
from ..wire.jsonrpc import (
    INVALID_PARAMS,
    FrameKind,
    ProtocolError,
    RequestId,
    compact_json,
    encode_value,
    error_message,
    result_message,
    result_message_raw,
)
from .registry import is_enabled

if TYPE_CHECKING:
    from ..auth.identity import Identity
    from ..session.methods import Session
    from .registry import RegisteredTool

logger = logging.getLogger("toolwire.protocol")

__all__ = ["TOOL_ROUTES_HANDSHAKE", "TOOL_ROUTES_MODERN", "call_tool", "list_tools"]

Params = dict[str, Any] | None


async def list_tools(
    session: Session, request_id: RequestId, params: Params, version: str, *_: Any
) -> None:
    """`tools/list`: every enabled tool, one page (encoded once per page and version while
    no tool is enabled by a callable)."""
    cursor = params.get("cursor") if params else None
    if cursor is not None and not isinstance(cursor, str):
        raise eras.invalid_params("tools/list: 'cursor' must be a string")
    server = session.server
    registry = server.tool_registry
    offset = 0 if cursor is None else decode_cursor(cursor)
    payload = None if registry.dynamic else registry.page_cache.get((version, offset))
    if payload is None:
        if registry.dynamic:
            tools = [entry for entry in registry.entries() if await is_enabled(entry)]
        else:
            tools = [entry for entry in registry.entries() if entry.tool.is_enabled]
        if offset > len(tools) or (offset and offset == len(tools)):
            raise ProtocolError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})
        end = offset + PAGE_SIZE
        result: dict[str, Any] = {"tools": [entry.listing(version) for entry in tools[offset:end]]}
        if end < len(tools):
            result["nextCursor"] = encode_cursor(end)
        if version in MODERN:
            eras.stamp(result, session.server_info, cacheable=True)
        payload = encode_value(result)
        if not registry.dynamic:
            registry.page_cache[(version, offset)] = payload
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
    name = checked_tool_name(params)
    entry = session.tools.get(name)
    if entry is None:
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
    # A callable is_enabled is asked (it may be async); a plain flag needs no await.
    enabled = entry.tool.is_enabled
    if not (enabled if isinstance(enabled, bool) else await is_enabled(entry)):
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
    identity = session.identity
    if entry.scopes and identity is not None:
        missing = identity.missing_scopes(entry.scopes)
        if missing:
            raise ProtocolError(
                FORBIDDEN,
                scope_refusal(name, missing),
                {"requiredScopes": sorted(entry.scopes), "missingScopes": missing},
            )
    token = eras.progress_token(params, "tools/call")
    call = CallInFlight(session.send, token, log_level, request_id, None, session.session_id)
    # Most calls never ask: their asker is made at the first question.
    call.make_asker = partial(asker_for, session, request_id, version, params, name, call=call)
    if session.era == "modern" and ("requestState" in params or "inputResponses" in params):
        call.asker = call.make_asker()  # a retry's answers are checked up front (-32602)
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
    try:
        result = await _result(session, request_id, entry, params, version, call, identity)
        if version in MODERN:
            eras.stamp(result, session.server_info)
        reply = result_message(request_id, result)
    except ProtocolError as refusal:  # the call itself is refused (-32021)
        reply = error_message(request_id, refusal.code, refusal.message, refusal.data)
    finally:
        session.requests.settle(request_id, call)
    if not call.abandoned:  # cancelled, or answered by its input round
        await session.send(reply, FrameKind.REPLY, request_id)


TOOL_ROUTES_HANDSHAKE: dict[str, Route] = {
    "tools/list": Route(list_tools, {"tools": {"listChanged": True}}),
    "tools/call": Route(call_tool),
}
TOOL_ROUTES_MODERN: dict[str, Route] = {
    "tools/list": Route(list_tools, {"tools": {}}),
    # A call's log messages flow at the level its envelope names: no setLevel method.
    "tools/call": Route(call_tool, {"logging": {}}),
}


_INVALID_JSON_PREFIX = "Invalid JSON input for tool"
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021


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
    if isinstance(cause, ValidationError):
        problems = validation_problems(cause)
    else:  # the details were redacted (dont_log_tool_data): find them from the schema
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        problems = argument_problems(entry.tool.params_json_schema, parsed)
    if not problems:
        return f"Invalid arguments for tool '{entry.name}'."
    return f"Invalid arguments for tool '{entry.name}': " + "; ".join(problems)


async def _result(
    session: Session,
    request_id: RequestId,
    entry: RegisteredTool,
    params: dict[str, Any],
    version: str,
    call: CallInFlight,
    identity: Identity | None,
) -> dict[str, Any]:
    """An accepted call from its params to its result (without the era's fields), under the
    tool's server-side timeout; a bug below becomes "Internal error"."""
    tool = entry.tool
    name = tool.name
    arguments = call_arguments(tool.params_json_schema, params.get("arguments"))
    args_json = compact_json(arguments)
    call_id = str(request_id)
    contexts = session.contexts
    limiter = session.sync_limiter
    ctx: ToolContext[Any] = ToolContext(
        contexts.value,
        tool_name=name,
        tool_call_id=call_id,
        tool_arguments=args_json,
        reporter=call,
    )
    if contexts.factory is not None:
        try:
            ctx.context = await contexts.make(
                call_id,
                name,
                arguments,
                params.get("_meta"),
                version,
                session.client_info,
                identity,
                call.session_id,
            )
        except Exception:
            logger.exception("the context factory failed for a call of tool %r", name)
            return error_result("Internal error")
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
                return error_result(f"Tool '{name}' refused the call: {outcome.error}.")
            text = _argument_problem(entry, outcome.error, args_json)
            return error_result(text if text is not None else str(outcome.output))
        return call_result(entry, outcome.output, version)
    except ProtocolError:
        raise
    except Exception:
        logger.exception("tool %r failed outside its failure handling", name)
        return error_result("Internal error")


MODERN = frozenset(eras.MODERN_VERSIONS)


def _undeclared(error: ClientCapabilityError) -> ProtocolError:
    """The -32021 error answering a call that needed a capability the client lacks."""
    needed = CLIENT_CAPABILITY.get(error.method, error.method)
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
    return name


_MAX_DEPTH = 8
_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def call_arguments(schema: dict[str, Any], arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments the tool validates: null-for-default dropped, {} when none were sent."""
    if not arguments:
        return {}
    if None in arguments.values():
        return _drop_null_defaults(arguments, schema)
    return arguments


def _drop_null_defaults(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return arguments
    cleaned = dict(arguments)
    for key, value in arguments.items():
        prop = properties.get(key)
        if (
            value is None
            and isinstance(prop, dict)
            and prop.get("default") is not None
            and not _accepts(None, prop, schema)
        ):
            del cleaned[key]
    return cleaned


def _resolve(prop: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """The schema `prop` stands for: its `$ref` target, or None when that is not a schema."""
    if "$ref" not in prop:
        return prop
    target = lookup_local_ref(root, prop["$ref"])
    return target if isinstance(target, dict) else None


def _accepts(value: Any, prop: Any, root: dict[str, Any], depth: int = 0) -> bool:
    """Whether `value` fits `prop` at the top level (types, enum, const, anyOf/oneOf, $ref).

    Unknown or too-deep constructs count as accepting: this only names likely culprits.
    """
    if not isinstance(prop, dict) or depth > _MAX_DEPTH:
        return True
    resolved = _resolve(prop, root)
    if resolved is None or resolved is not prop:
        return resolved is None or _accepts(value, resolved, root, depth + 1)
    if "const" in prop and prop["const"] != value:
        return False
    if isinstance(prop.get("enum"), list) and value not in prop["enum"]:
        return False
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list) and options:
        return any(_accepts(value, option, root, depth + 1) for option in options)
    typ = prop.get("type")
    if typ is None:
        return True
    return any(_is_type(value, name) for name in (typ if isinstance(typ, list) else [typ]))


def _is_type(value: Any, name: Any) -> bool:
    if name == "null":
        return value is None
    kinds = _JSON_TYPES.get(name)
    if kinds is None:
        return True
    if isinstance(value, bool) and name != "boolean":
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, kinds)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for name in ("boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return type(value).__name__


def _expected(prop: Any, root: dict[str, Any]) -> str:
    if not isinstance(prop, dict):
        return "another value"
    resolved = _resolve(prop, root) or prop
    if "enum" in resolved:
        return "one of " + ", ".join(json.dumps(v) for v in resolved["enum"])
    if "const" in resolved:
        return json.dumps(resolved["const"])
    options = resolved.get("anyOf") or resolved.get("oneOf")
    if isinstance(options, list) and options:
        return " or ".join(_expected(option, root) for option in options)
    typ = resolved.get("type")
    if isinstance(typ, list):
        return " or ".join(str(t) for t in typ)
    return str(typ) if typ else "another value"


def argument_problems(schema: dict[str, Any], arguments: Any) -> list[str]:
    """Readable problems with `arguments` against an object input schema, one per parameter."""
    if not isinstance(arguments, dict):
        return [f"arguments: expected object, got {_json_type(arguments)}"]
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    problems = []
    for name in schema.get("required") or ():
        prop = properties.get(name)
        # Strict schemas list every parameter as required; ones with a default (or nullable
        # ones, whose None default strict mode drops) may still be left out.
        optional = isinstance(prop, dict) and ("default" in prop or _accepts(None, prop, schema))
        if name not in arguments and not optional:
            problems.append(f"{name}: missing required parameter")
    for name, value in arguments.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                problems.append(f"{name}: unexpected parameter")
            continue
        if not _accepts(value, properties[name], schema):
            expected = _expected(properties[name], schema)
            problems.append(f"{name}: expected {expected}, got {_json_type(value)}")
    return problems
