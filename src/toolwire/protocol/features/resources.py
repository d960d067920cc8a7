"""The resource methods, as route-table entries for each era (merged in by `session.py`). An unknown
URI is `not_found` (-32002 in the handshake era, -32602 in 2026-07-28), bad template values or
params -32602 naming the field, a failing resource function -32603 "Error reading resource <uri>"; a
read runs as a task the session tracks. docs/decisions.md (resources.py) gives the rest."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ...context import ToolContext
from ...tools.invoke import as_tool_failure
from ...tools.log_text import log_with_trace
from ...tools.threads import run_sync_within
from ..session.methods import Params, Route, Session, send_page
from ..session.requests_in_flight import start_call
from ..session.subscriptions import MAX_URI_LENGTH
from ..wire import eras
from ..wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    FrameKind,
    ProtocolError,
    result_message,
)
from .resource_reading import NOT_FOUND, InvalidResourceParams

if TYPE_CHECKING:
    from ..session.app import ServedApp
    from ..session.requests_in_flight import CallInFlight
    from ..wire.jsonrpc import RequestId
    from .resource_registry import FixedResource

__all__ = [
    "MAX_SUBSCRIPTIONS",
    "RESOURCE_NOT_FOUND",
    "RESOURCE_ROUTES_HANDSHAKE",
    "RESOURCE_ROUTES_MODERN",
    "not_found",
    "read_contents",
]

logger = logging.getLogger("toolwire.protocol")

RESOURCE_NOT_FOUND = -32002  # the handshake era's code; 2026-07-28 uses -32602
MAX_SUBSCRIPTIONS = 1024


def not_found(uri: str, version: str | None) -> ProtocolError:
    """The resource-not-found error for `version`'s era."""
    code = INVALID_PARAMS if version in eras.MODERN_VERSIONS else RESOURCE_NOT_FOUND
    return ProtocolError(code, f"Resource not found: {uri}", {"uri": uri})


async def read_contents(
    server: ServedApp,
    uri: str,
    version: str | None,
    context: Callable[[], Awaitable[ToolContext[Any]]] | None = None,
) -> list[dict[str, Any]]:
    """The `contents` of the resource at `uri`, as `resources/read` answers them, or a
    ProtocolError (not found, invalid values, the reader failed); `context` makes the
    `ToolContext` of a function that takes one, raising what the context factory raises."""
    found = server.resource_registry.find(uri)
    if found is None:
        raise not_found(uri, version)
    reader, values = found
    ctx: ToolContext[Any] | None = None
    if reader.takes_context:
        if context is None:  # read by the application itself, outside any request
            ctx = ToolContext(None, tool_name=uri, tool_call_id="", tool_arguments="{}")
        else:
            ctx = await context()
    try:
        contents = await reader.read(uri, values, server.sync_limiter, ctx)
    except InvalidResourceParams as invalid:
        raise ProtocolError(INVALID_PARAMS, str(invalid), {"uri": uri}) from None
    except (Exception, asyncio.CancelledError) as error:
        if as_tool_failure(error, in_thread=False) is None:
            raise  # the read itself is being cancelled
        log_with_trace(logger, logging.ERROR, "reading resource %r failed", uri, error=error)
        raise ProtocolError(
            INTERNAL_ERROR, f"Error reading resource {uri}", {"uri": uri}, cause=error
        ) from None
    if contents is NOT_FOUND:
        raise not_found(uri, version)
    return contents


def log_failure(error: BaseException, subject: str) -> None:
    """Log `error` out of an author's function (`subject`: "prompt 'x'") as its failure, or
    raise it again when it is the cancellation of the request: a `CancelledError` the function
    raised of its own accord is a failure, answered as one, or its client would wait for ever."""
    if as_tool_failure(error, in_thread=False) is None:
        raise error
    if isinstance(error, asyncio.CancelledError):
        logger.error("%s raised CancelledError without being cancelled", subject)
    else:
        log_with_trace(logger, logging.ERROR, "%s failed", subject, error=error)


async def list_resources(
    session: Session, request_id: RequestId, params: Params, version: str, *_: Any
) -> None:
    """`resources/list`: fixed resources, then those the templates list, one page."""
    registry = session.server.resource_registry
    entries: list[FixedResource] = registry.listings()
    listers = [entry.lister for entry in registry.templates.values() if entry.lister is not None]
    if listers:
        gather = lambda: [entry for lister in listers for entry in lister()]  # noqa: E731
        entries += await run_sync_within(session.server.sync_limiter, gather, (), {})
    await send_page(session, request_id, params, version, "resources/list", "resources", entries)


async def list_templates(
    session: Session, request_id: RequestId, params: Params, version: str, *_: Any
) -> None:
    """`resources/templates/list`: one page of the templates."""
    entries = list(session.server.resource_registry.templates.values())
    method = "resources/templates/list"
    await send_page(session, request_id, params, version, method, "resourceTemplates", entries)


async def read(
    session: Session,
    request_id: RequestId,
    params: Params,
    version: str,
    log_level: str | None = None,
) -> None:
    """`resources/read`: checked here, then read and answered from a tracked task."""
    uri = _uri(params, "resources/read")
    asks = uri if session.era != "modern" else None  # 2026-07-28 has no input round for a read
    call = start_call(session, request_id, params or {}, version, log_level, "resources/read", asks)
    session.requests.answer_in_task(call, functools.partial(_read, session, uri, call))


async def _read(session: Session, uri: str, call: CallInFlight) -> dict[str, Any]:
    context = functools.partial(session.contexts.tool_context, call, uri, {})
    contents = await read_contents(session.server, uri, call.version, context)
    result: dict[str, Any] = {"contents": contents}
    eras.stamp_for(call.version, result, session.server_info, cacheable=True)
    return result


async def subscribe(
    session: Session, request_id: RequestId, params: Params, version: str, *_: Any
) -> None:
    """`resources/subscribe` (handshake era): follow one URI's updates."""
    uri = _uri(params, "resources/subscribe")
    if len(uri) > MAX_URI_LENGTH:  # each one is kept (and stored with an HTTP session)
        raise eras.invalid_params(
            f"resources/subscribe: 'uri' is {len(uri)} characters long; a URI of at most "
            f"{MAX_URI_LENGTH} can be followed"
        )
    if session.server.resource_registry.find(uri) is None:
        raise not_found(uri, version)
    subscribed = session.resource_subscriptions
    if uri not in subscribed and len(subscribed) >= MAX_SUBSCRIPTIONS:
        raise ProtocolError(INTERNAL_ERROR, "Subscription limit reached")
    subscribed.add(uri)
    await session.send(result_message(request_id, {}), FrameKind.REPLY, request_id)


async def unsubscribe(session: Session, request_id: RequestId, params: Params, *_: Any) -> None:
    """`resources/unsubscribe` (handshake era)."""
    session.resource_subscriptions.discard(_uri(params, "resources/unsubscribe"))
    await session.send(result_message(request_id, {}), FrameKind.REPLY, request_id)


def _uri(params: Params, method: str) -> str:
    uri = params.get("uri") if params else None
    if not isinstance(uri, str):
        raise eras.invalid_params(f"{method}: 'uri' must be a string")
    return uri


RESOURCE_ROUTES_HANDSHAKE: dict[str, Route] = {
    "resources/list": Route(list_resources, {"resources": {"listChanged": True}}),
    "resources/templates/list": Route(list_templates),
    "resources/read": Route(read),
    "resources/subscribe": Route(subscribe, {"resources": {"subscribe": True}}),
    "resources/unsubscribe": Route(unsubscribe),
}
RESOURCE_ROUTES_MODERN: dict[str, Route] = {
    # Changes and updates travel on listen streams, which honor `resourcesListChanged` and
    # `resourceSubscriptions` (subscriptions.py): the capability comes with these methods.
    "resources/list": Route(list_resources, {"resources": {"listChanged": True}}),
    "resources/templates/list": Route(list_templates),
    "resources/read": Route(read, {"resources": {"subscribe": True}}),
}
