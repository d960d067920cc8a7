"""The tool methods, `tools/list` and `tools/call`, as route-table entries for each era. A call is
accepted here (a known, enabled tool this caller has the scopes for, else -32602 "Unknown tool:
<name>" or the scope refusal), then runs as a request in flight of the session: arguments in (a
`null` for a parameter with a non-null default that refuses null means "use the default"), the
context from the session's context source, the tool under its timeout, and out as a
`CallToolResult`. docs/decisions.md (tool calls) gives each failure's answer."""

from __future__ import annotations

import inspect
import json
import logging
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio

from ...context import RunContextWrapper, ToolContext
from ...errors import ClientCapabilityError, ModelBehaviorError, ToolTimeoutError
from ...schema.refs import lookup_local_ref
from ...tools.failure import log_timeout
from ...tools.invoke import ToolOutcome, invoke_tool, validation_problems
from ...tools.log_text import log_with_trace
from ...tools.threads import SyncToolRefused, worker_wait
from ..auth.identity import FORBIDDEN, scope_refusal
from ..session.asking import CLIENT_CAPABILITY
from ..session.methods import Params, Route, Session, send_page
from ..session.requests_in_flight import CallInFlight, start_call
from ..wire import eras
from ..wire.content import call_result, error_result
from ..wire.jsonrpc import (
    INVALID_PARAMS,
    ProtocolError,
    RequestId,
)

if TYPE_CHECKING:
    from ...tools.threads import SyncBudget
    from .registry import RegisteredTool

logger = logging.getLogger("toolwire.protocol")

__all__ = ["TOOL_ROUTES_HANDSHAKE", "TOOL_ROUTES_MODERN", "call_tool", "list_tools"]


async def list_tools(
    session: Session, request_id: RequestId, params: Params, version: str, *_: Any
) -> None:
    """`tools/list`: every enabled tool, one page (encoded once per page and version while
    no tool is enabled by a callable)."""
    server = session.server
    registry = server.tool_registry

    async def enabled() -> list[RegisteredTool]:
        return [entry for entry in registry.entries() if await is_enabled(entry)]

    cache = None if registry.dynamic else registry.page_cache
    await send_page(session, request_id, params, version, "tools/list", "tools", enabled, cache)
    try:
        server.tools_listed()  # the client knows the tools: calls come next
    except Exception as error:  # the listing is answered: an error now would be a second reply
        log_with_trace(logger, logging.WARNING, "warming up for calls failed", error=error)


async def call_tool(
    session: Session, request_id: RequestId, params: Params, version: str, log_level: str | None
) -> None:
    """`tools/call`: checked here, then run and answered from a request in flight."""
    params = params or {}
    name = params.get("name")
    if not isinstance(name, str):
        raise eras.invalid_params("tools/call: 'name' must be a string")
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise eras.invalid_params("tools/call: 'arguments' must be an object")
    entry = session.tools.get(name)
    if entry is None or not await is_enabled(entry):
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
    call = start_call(session, request_id, params, version, log_level, "tools/call", name)
    work = partial(_result, session, entry, arguments, call)
    session.requests.answer_in_task(call, work)


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
    session: Session, entry: RegisteredTool, sent: dict[str, Any] | None, call: CallInFlight
) -> dict[str, Any]:
    """An accepted call's whole result, from the arguments as `sent`."""
    arguments = call_arguments(entry.tool.params_json_schema, sent)
    try:
        ctx = await session.contexts.tool_context(call, entry.name, arguments)
    except Exception as error:
        log_with_trace(
            logger,
            logging.ERROR,
            "the context factory failed for a call of tool %r",
            entry.name,
            error=error,
        )
        result = error_result("Internal error")
    else:
        result = await _run(entry, ctx, arguments, session.sync_limiter, call.version)
    eras.stamp_for(call.version, result, session.server_info)
    return result


async def _run(
    entry: RegisteredTool,
    ctx: ToolContext[Any],
    arguments: dict[str, Any],
    limiter: SyncBudget | anyio.CapacityLimiter | None,
    version: str,
) -> dict[str, Any]:
    """Run the tool under its timeout; its result without the era's fields."""
    name = entry.name
    args_json = ctx.tool_arguments
    try:
        outcome: ToolOutcome | None = None
        if entry.timeout is None:
            outcome = await invoke_tool(entry.tool, ctx, args_json, arguments, limiter)
        else:
            waits: list[int] = []
            token = worker_wait.set(waits)
            try:
                with anyio.move_on_after(entry.timeout):
                    outcome = await invoke_tool(entry.tool, ctx, args_json, arguments, limiter)
            finally:
                worker_wait.reset(token)
            if outcome is None:
                return await _timed_out(entry, ctx, entry.timeout, waits)
        error = outcome.error
        if error is None:
            return call_result(entry, outcome.output, version)
        if isinstance(error, ClientCapabilityError) and version in eras.MODERN_VERSIONS:
            needed = CLIENT_CAPABILITY.get(error.method, error.method)
            data: dict[str, Any] = {"requiredCapabilities": {needed: {}}}
            raise ProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, error.message, data)
        if isinstance(error, SyncToolRefused):
            return error_result(f"Tool '{name}' refused the call: {error}.")
        text = _argument_problem(entry, error, args_json)
        return error_result(text if text is not None else str(outcome.output))
    except ProtocolError:
        raise
    except Exception as error:
        log_with_trace(
            logger, logging.ERROR, "tool %r failed outside its failure handling", name, error=error
        )
        return error_result("Internal error")


async def _timed_out(
    entry: RegisteredTool, ctx: ToolContext[Any], seconds: float, waits: list[int]
) -> dict[str, Any]:
    """The timeout's text: the tool's own, else the SDK's (saying so if it never got a thread)."""
    waited_for = waits[0] if waits else None
    log_timeout(entry.name, seconds, ctx.tool_arguments, waited_for)
    error = ToolTimeoutError(entry.name, seconds)
    text = str(error)  # the SDK's default text
    if waited_for is not None:
        text += (
            f" It never started: all {waited_for} worker threads for sync tools were busy"
            " the whole time."
        )
    phrase = entry.tool.timeout_error_function
    if phrase is not None:
        try:
            custom = phrase(ctx, error)
            if inspect.isawaitable(custom):
                custom = await custom
            text = str(custom)
        except Exception as error:
            log_with_trace(
                logger,
                logging.ERROR,
                "the timeout_error_function of tool %r failed",
                entry.name,
                error=error,
            )
    return error_result(text)


async def is_enabled(entry: RegisteredTool) -> bool:
    """Whether a tool is listed and callable now."""
    flag = entry.tool.is_enabled
    if isinstance(flag, bool):
        return flag
    try:
        answer = flag(RunContextWrapper(None), None)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception:
        return False
    return bool(answer)


_MAX_DEPTH = 8
_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def call_arguments(schema: dict[str, Any], arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments the tool validates: null-for-default dropped, {} when none were sent."""
    if not arguments:
        return {}
    properties = schema.get("properties")
    if None not in arguments.values() or not isinstance(properties, dict):
        return arguments
    return {
        key: value
        for key, value in arguments.items()
        if value is not None
        or not isinstance(prop := properties.get(key), dict)
        or prop.get("default") is None
        or _accepts(None, prop, schema)
    }


def _resolve(prop: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """The schema `prop` stands for: its `$ref` target, or None when that is not a schema."""
    if "$ref" not in prop:
        return prop
    target = lookup_local_ref(root, prop["$ref"])
    return target if isinstance(target, dict) else None


def _accepts(value: Any, prop: Any, root: dict[str, Any], depth: int = 0) -> bool:
    """Whether `value` fits `prop` at the top level; unknown or too-deep constructs accept (this
    only names likely culprits)."""
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
    kinds = _JSON_TYPES.get(name)
    if kinds is None:
        return True
    if isinstance(value, bool) and name != "boolean":
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, kinds)


def _json_type(value: Any) -> str:
    return next((name for name in _JSON_TYPES if _is_type(value, name)), type(value).__name__)


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
