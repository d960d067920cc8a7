"""`prompts/list` and `prompts/get`, in both eras, as route-table entries.

`PROMPT_ROUTES_HANDSHAKE` and `PROMPT_ROUTES_MODERN` are merged into the session's tables;
serving them advertises `prompts` with `listChanged: true` (the handshake era's server
announces changes itself; in 2026-07-28 they travel on `subscriptions/listen` streams that
asked for `promptsListChanged`).

Decisions:

- `prompts/list` pages hold 100 prompts, with the same opaque cursors as `tools/list`; a
  modern result carries the cache hints `ttlMs: 0`, `cacheScope: "private"` (SEP-2549).
- `prompts/get` for a name the server does not publish is -32602 "Unknown prompt: <name>"
  (data: the name), as the spec asks for an invalid prompt name; bad arguments are -32602
  naming them (prompt_registry.py).
- A prompt that raises, or returns something that is not a prompt, is -32603 "Error
  rendering prompt '<name>'", the exception logged on `toolwire.protocol`: the client's
  request was valid, and the traceback is for the author, not for the client. A question
  to the client that failed (`ClientRequestError`: a capability the client did not
  declare, no back channel, no answer) adds toolwire's own message, which concerns the
  client.
- A prompt whose function takes a `ToolContext` runs in a task of its own (its questions'
  answers come back through the session, which must keep reading); the others are
  answered inline. A sync prompt function runs in a worker thread.
- In 2026-07-28 a prompt that asks (`ctx.elicit`) without the answer at hand ends the
  request with an input-required result, exactly as a tool call does (input_required.py);
  the retry brings `inputResponses` and the prompt renders from the start.
"""

from __future__ import annotations

import functools
import inspect
import logging
from typing import TYPE_CHECKING, Any

import anyio

from ..errors import ClientRequestError
from . import eras, handlers
from .asking import asker_for
from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ProtocolError,
    RequestId,
    compact_json,
    error_message,
    result_message,
)
from .methods import Route
from .prompt_messages import PromptResultError, render_messages
from .reporter import Reporter

if TYPE_CHECKING:
    from .prompt_registry import PromptRegistry, RegisteredPrompt

__all__ = ["PROMPTS_LIST_CHANGED", "PROMPT_ROUTES_HANDSHAKE", "PROMPT_ROUTES_MODERN"]

logger = logging.getLogger("toolwire.protocol")

PROMPTS_LIST_CHANGED = "notifications/prompts/list_changed"
_CACHE_HINTS = {"ttlMs": 0, "cacheScope": "private"}

Params = dict[str, Any] | None


def _registry(session: Any) -> PromptRegistry:
    registry: PromptRegistry = session.server.prompt_registry
    return registry


async def _list_prompts(
    session: Any, request_id: RequestId, params: Params, version: str, _level: str | None
) -> None:
    cursor = params.get("cursor") if params else None
    offset = 0 if cursor is None else handlers.decode_cursor(cursor)
    prompts = _registry(session).entries()
    if offset > len(prompts) or (offset and offset == len(prompts)):
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})
    page = prompts[offset : offset + handlers.PAGE_SIZE]
    result: dict[str, Any] = {"prompts": [entry.listing(version) for entry in page]}
    if offset + handlers.PAGE_SIZE < len(prompts):
        result["nextCursor"] = handlers.encode_cursor(offset + handlers.PAGE_SIZE)
    if version in eras.MODERN_VERSIONS:
        result.update(_CACHE_HINTS)
        handlers.modern(result, session.server.server_info)
    await session.send(result_message(request_id, result), request_id)


def _lookup(session: Any, params: Params) -> RegisteredPrompt:
    name = params.get("name") if params else None
    if not isinstance(name, str):
        raise eras.invalid_params("prompts/get: 'name' must be a string")
    entry = _registry(session).get(name)
    if entry is None:
        raise ProtocolError(INVALID_PARAMS, f"Unknown prompt: {name}", {"name": name})
    return entry


async def _get_prompt(
    session: Any, request_id: RequestId, params: Params, version: str, log_level: str | None
) -> None:
    entry = _lookup(session, params)
    params = params or {}
    args, kwargs = entry.bind(params.get("arguments"))
    if not entry.schema.takes_context:
        messages = await _render(entry, args, kwargs, version)
        await _reply(session, request_id, entry, messages, version)
        return
    run = _PromptRun(session, request_id, entry, params, version, log_level)
    # Checked before the task starts, so that a malformed retry is refused right away.
    run.prepare()
    session.start_soon(functools.partial(run.run, args, kwargs))


async def _render(
    entry: RegisteredPrompt, args: list[Any], kwargs: dict[str, Any], version: str
) -> list[dict[str, Any]]:
    try:
        if inspect.iscoroutinefunction(entry.func):
            value = await entry.func(*args, **kwargs)
        else:
            value = await anyio.to_thread.run_sync(functools.partial(entry.func, *args, **kwargs))
            if inspect.isawaitable(value):
                value = await value
        return render_messages(value, version, entry.name)
    except PromptResultError as error:
        logger.error("%s", error)
    except ProtocolError:
        raise
    except ClientRequestError as error:
        # toolwire's own words about the exchange with the client (a capability it lacks,
        # no back channel, no answer): they concern the client, and hold nothing private.
        raise ProtocolError(
            INTERNAL_ERROR, f"Error rendering prompt {entry.name!r}: {error}"
        ) from None
    except Exception:
        logger.exception("prompt %r failed", entry.name)
    raise ProtocolError(INTERNAL_ERROR, f"Error rendering prompt {entry.name!r}")


async def _reply(
    session: Any,
    request_id: RequestId,
    entry: RegisteredPrompt,
    messages: list[dict[str, Any]],
    version: str,
) -> None:
    result: dict[str, Any] = {}
    if entry.description:
        result["description"] = entry.description
    result["messages"] = messages
    if version in eras.MODERN_VERSIONS:
        handlers.modern(result, session.server.server_info)
    await session.send(result_message(request_id, result), request_id)


class _PromptRun:
    """One `prompts/get` of a prompt taking a context: its task, and the input round that
    may end it early (the `RoundCall` of input_required.py)."""

    def __init__(
        self,
        session: Any,
        request_id: RequestId,
        entry: RegisteredPrompt,
        params: dict[str, Any],
        version: str,
        log_level: str | None,
    ) -> None:
        self.session = session
        self.request_id = request_id
        self.entry = entry
        self.params = params
        self.version = version
        self.log_level = log_level
        self.abandoned = False  # the round answered the request
        self._scope = anyio.CancelScope()
        self._context: Any = None

    def cancel(self) -> None:
        """End the render: the round has answered (input required)."""
        self.abandoned = True
        self._scope.cancel()

    def prepare(self) -> None:
        """Build the context (and, in 2026-07-28, the input round from the request)."""
        from ..context import ToolContext

        asker = asker_for(
            self.session,
            self.request_id,
            self.version,
            self.params,
            self.entry.name,
            method="prompts/get",
        )
        asker.attach(self.session, self.request_id, self)
        meta = self.params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        reporter = Reporter(self.session.send, token, self.log_level, self.request_id, asker)
        self._context = ToolContext(
            None,
            tool_name=self.entry.name,
            tool_call_id=str(self.request_id),
            tool_arguments=compact_json(self.params.get("arguments") or {}),
            reporter=reporter,
        )

    async def run(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        """Render and reply; an ended round has replied already."""
        failure: ProtocolError | None = None
        messages: list[dict[str, Any]] = []
        with self._scope:
            try:
                messages = await _render(self.entry, [self._context, *args], kwargs, self.version)
            except ProtocolError as error:
                failure = error
        if self.abandoned:
            return
        if failure is not None:
            reply = error_message(self.request_id, failure.code, failure.message, failure.data)
            await self.session.send(reply, self.request_id)
            return
        await _reply(self.session, self.request_id, self.entry, messages, self.version)


PROMPT_ROUTES_HANDSHAKE: dict[str, Route] = {
    "prompts/list": Route(_list_prompts, {"prompts": {"listChanged": True}}),
    "prompts/get": Route(_get_prompt),
}
PROMPT_ROUTES_MODERN: dict[str, Route] = {
    # Changes travel on listen streams, which honor `promptsListChanged` (subscriptions.py).
    "prompts/list": Route(_list_prompts, {"prompts": {"listChanged": True}}),
    "prompts/get": Route(_get_prompt),
}
