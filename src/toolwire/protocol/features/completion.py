"""`completion/complete`: suggestions for a prompt argument or a resource-template parameter.
Suggestions come from the argument's declared completer, else the server's `@server.completion`
handler, else none; at most 100 go out, `total` and `hasMore` saying what was cut. A malformed
request or unknown reference is -32602 naming it, a failing completer -32603."""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import Any

from ..session.methods import Params, Route, Session
from ..session.requests_in_flight import start_call
from ..wire import eras
from ..wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ProtocolError,
    RequestId,
)
from .completers import MAX_VALUES, Completer, CompleterError, ask_completer
from .resources import log_failure

__all__ = ["COMPLETION_ROUTES", "complete"]

logger = logging.getLogger("toolwire.protocol")


_invalid = partial(ProtocolError, INVALID_PARAMS)  # -32602 with the given message


def _parse(params: Params) -> tuple[dict[str, Any], str, str, dict[str, str]]:
    """(ref, argument name, typed value, context arguments), checked."""
    params = params or {}
    ref = params.get("ref")
    if not isinstance(ref, dict) or ref.get("type") not in ("ref/prompt", "ref/resource"):
        raise _invalid(
            "completion/complete: 'ref' must be {'type': 'ref/prompt', 'name': ...} or "
            "{'type': 'ref/resource', 'uri': ...}"
        )
    key = "name" if ref["type"] == "ref/prompt" else "uri"
    if not isinstance(ref.get(key), str):
        raise _invalid(f"completion/complete: {ref['type']} needs a string {key!r}")
    argument = params.get("argument")
    if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
        raise _invalid("completion/complete: 'argument' must be an object with a string 'name'")
    value = argument.get("value", "")
    if not isinstance(value, str):
        raise _invalid("completion/complete: 'argument.value' must be a string")
    context = params.get("context")
    settled: Any = {}
    if context is not None:
        if not isinstance(context, dict):
            raise _invalid("completion/complete: 'context' must be an object")
        settled = context.get("arguments") or {}
        if not isinstance(settled, dict) or not all(
            isinstance(item, str) for item in settled.values()
        ):
            raise _invalid("completion/complete: 'context.arguments' must be an object of strings")
    return ref, argument["name"], value, dict(settled)


def _completer(server: Any, ref: dict[str, Any], argument: str) -> tuple[Completer | None, str]:
    """The completer declared for `argument` of what `ref` names (or None), and its label."""
    if ref["type"] == "ref/prompt":
        name = ref["name"]
        entry = server.prompt_registry.get(name)
        if entry is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown prompt: {name}", {"name": name})
        owner, kind, names = f"Prompt {name!r}", "argument", entry.argument_names
        what = f"argument {argument!r} of prompt {name!r}"
    else:
        uri = ref["uri"]
        entry = server.resource_registry.template_for(uri)
        if entry is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown resource template: {uri}", {"uri": uri})
        owner, kind, names = f"Resource template {uri!r}", "parameter", entry.template.variables
        what = f"parameter {argument!r} of resource template {uri!r}"
    if argument not in names:
        listed = ", ".join(names) or "none"
        raise _invalid(f"{owner} has no {kind} {argument!r} (its {kind}s: {listed})")
    return entry.completers.get(argument), what


async def complete(
    session: Session, request_id: RequestId, params: Params, version: str, log_level: str | None
) -> None:
    """`completion/complete`: checked here, then the suggestions for one argument answered
    from a tracked task (a slow completer holds nothing behind it and can be cancelled)."""
    ref, argument, value, settled = _parse(params)
    completer, what = _completer(session.server, ref, argument)
    call = start_call(session, request_id, params or {}, version, log_level, "completion/complete")
    if completer is None:  # the server's handler, if any, gets the reference and the argument
        handler = getattr(session.server, "completion_handler", None)
        completer = partial(handler, dict(ref), argument) if handler is not None else ()  # none
    work = partial(_answer, session, completer, value, settled, what, version)
    session.requests.answer_in_task(call, work)


async def _answer(
    session: Session,
    completer: Completer,
    value: str,
    settled: dict[str, str],
    what: str,
    version: str,
) -> dict[str, Any]:
    try:
        values = await ask_completer(completer, value, settled, what, session.sync_limiter)
    except CompleterError as error:
        logger.error("%s", error)
    except (Exception, asyncio.CancelledError) as error:
        log_failure(error, f"completion for {what}")
    else:
        cut = len(values) > MAX_VALUES
        completion = {"values": values[:MAX_VALUES], "total": len(values), "hasMore": cut}
        result: dict[str, Any] = {"completion": completion}
        return eras.stamp_for(version, result, session.server_info)
    raise ProtocolError(INTERNAL_ERROR, f"Completion failed for {what}")


COMPLETION_ROUTES: dict[str, Route] = {"completion/complete": Route(complete, {"completions": {}})}
