"""`prompts/list` and `prompts/get` for both eras, as route-table entries. An unknown name is -32602
"Unknown prompt: <name>", bad arguments -32602 naming them, and a prompt (or context factory) that
raises or returns no prompt -32603 "Error rendering prompt '<name>'" with its traceback logged, not
sent. docs/decisions.md (prompts.py) gives the rest."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any

from ...errors import ClientRequestError
from ...tools.log_text import log_with_trace
from ...tools.threads import call_sync_or_async
from ..session.methods import Params, Route, Session, send_page
from ..session.requests_in_flight import start_call
from ..wire import eras
from ..wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, ProtocolError, RequestId
from .prompt_messages import PromptResultError, render_messages
from .resources import log_failure

if TYPE_CHECKING:
    from ..session.requests_in_flight import CallInFlight
    from .prompt_registry import RegisteredPrompt

__all__ = ["PROMPT_ROUTES", "get_prompt", "list_prompts"]

logger = logging.getLogger("toolwire.protocol")


async def list_prompts(
    session: Session, request_id: RequestId, params: Params, version: str, _level: str | None
) -> None:
    """`prompts/list`: one page of the prompts."""
    entries = session.server.prompt_registry.entries()
    await send_page(session, request_id, params, version, "prompts/list", "prompts", entries)


async def get_prompt(
    session: Session, request_id: RequestId, params: Params, version: str, log_level: str | None
) -> None:
    """`prompts/get`: checked here, then rendered and answered from a request in flight."""
    params = params or {}
    name = params.get("name")
    if not isinstance(name, str):
        raise eras.invalid_params("prompts/get: 'name' must be a string")
    entry = session.server.prompt_registry.get(name)
    if entry is None:
        raise ProtocolError(INVALID_PARAMS, f"Unknown prompt: {name}", {"name": name})
    args, kwargs = entry.bind(params.get("arguments"))
    asks = entry.name if entry.schema.takes_context else None
    call = start_call(session, request_id, params, version, log_level, "prompts/get", asks)
    work = functools.partial(_rendered, session, entry, params, args, kwargs, call)
    session.requests.answer_in_task(call, work)


async def _rendered(
    session: Session,
    entry: RegisteredPrompt,
    params: dict[str, Any],
    args: list[Any],
    kwargs: dict[str, Any],
    call: CallInFlight,
) -> dict[str, Any]:
    """The `prompts/get` result (era fields included)."""
    version = call.version
    try:
        if entry.schema.takes_context:
            arguments = params.get("arguments") or {}
            args = [await session.contexts.tool_context(call, entry.name, arguments), *args]
    except Exception as error:
        log_with_trace(
            logger,
            logging.ERROR,
            "the context factory failed for prompt %r",
            entry.name,
            error=error,
        )
        raise ProtocolError(
            INTERNAL_ERROR, f"Error rendering prompt {entry.name!r}", cause=error
        ) from None
    try:
        value = await call_sync_or_async(session.server.sync_limiter, entry.func, args, kwargs)
        messages = render_messages(value, version, entry.name)
    except PromptResultError as error:
        logger.error("%s", error)
        failure: BaseException = error
    except ProtocolError:
        raise
    except ClientRequestError as error:
        # toolwire's own words about the exchange with the client (a capability it lacks,
        # no back channel, no answer): they concern the client, and hold nothing private.
        raise ProtocolError(
            INTERNAL_ERROR, f"Error rendering prompt {entry.name!r}: {error}"
        ) from None
    except (Exception, asyncio.CancelledError) as error:
        log_failure(error, f"prompt {entry.name!r}")
        failure = error
    else:
        result: dict[str, Any] = {}
        if entry.description:
            result["description"] = entry.description
        result["messages"] = messages
        eras.stamp_for(version, result, session.server_info)
        return result
    raise ProtocolError(INTERNAL_ERROR, f"Error rendering prompt {entry.name!r}", cause=failure)


# Both eras: in 2026-07-28 changes travel on listen streams, which honor `promptsListChanged`.
PROMPT_ROUTES: dict[str, Route] = {
    "prompts/list": Route(list_prompts, {"prompts": {"listChanged": True}}),
    "prompts/get": Route(get_prompt),
}
