"""What a tool asks its client, shaped and checked on both ends, in either era. A question is
checked before anything is sent (a bad form or message is the author's `UserError`; an undeclared
client capability a `ClientCapabilityError`), then goes out as a request during the call (handshake
era) or in an input-required result (2026-07-28). An answer that does not fit is a
`ClientResponseError`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ...context import ElicitResult, SampleResult
from ...errors import (
    ClientCapabilityError,
    ClientResponseError,
    NoBackChannelError,
    UserError,
)
from ...schema.elicitation import answer_problems, elicitation_schema, is_model_class
from ...tools.invoke import validation_problems
from ..wire import eras
from ..wire.jsonrpc import compact_json
from .input_required import InputRound, RoundCall, RoundSession, start_round

if TYPE_CHECKING:
    from ..auth.identity import Identity
    from ..wire.jsonrpc import RequestId
    from .outbound import Outbound

__all__ = ["CLIENT_CAPABILITY", "Asker", "AskingSession"]

CLIENT_CAPABILITY = {  # what the client must declare for each question
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
_ACTIONS = ("accept", "decline", "cancel")


class AskingSession(RoundSession, Protocol):
    """What asking needs from the session serving the call."""

    era: eras.Era | None
    back_channel: bool
    outbound: Outbound
    client_capabilities: dict[str, Any] | None
    identity: Identity | None
    session_id: str | None
    client_info: dict[str, Any] | None


class Asker:
    """The questions one request may put to its client, with the answers a modern retry
    brings (-32602 when they are malformed): there a round of its own ends `call` when its
    function waits on a question."""

    __slots__ = ("_call_id", "_capabilities", "_round", "_session", "_version")

    def __init__(
        self,
        session: AskingSession,
        call_id: RequestId,
        version: str,
        params: dict[str, Any],
        name: str,
        method: str,
        call: RoundCall,
    ) -> None:
        self._session = session
        self._call_id = call_id
        self._version = version
        self._round: InputRound | None = None
        if session.era != "modern":
            self._capabilities = session.client_capabilities or {}
            return
        identity = session.identity
        principal = None if identity is None else compact_json(list(identity.principal))
        self._round = start_round(params, name, principal, method)
        self._round.attach(session, call_id, call)
        # The envelope was checked: its capabilities are an object.
        self._capabilities = params["_meta"][eras.META_CAPABILITIES]

    async def _ask(
        self, method: str, params: dict[str, Any], timeout: float | None, key: str | None
    ) -> dict[str, Any]:
        if self._round is None and not self._session.back_channel:
            # First: without a channel (stateless HTTP has no initialize either) the
            # capability is moot, and what to change is the serving mode.
            raise NoBackChannelError(
                method,
                f"Cannot send {method!r}: this session has no channel for requests to the "
                "client (HTTP in JSON-response or stateless mode). Serve with SSE responses "
                "and sessions (json_response=False, stateless=False), or over stdio.",
            )
        capability = CLIENT_CAPABILITY[method]
        declared = self._capabilities.get(capability)
        if not isinstance(declared, Mapping):
            raise ClientCapabilityError(
                method,
                f"Cannot send {method!r}: the client did not declare the {capability!r} "
                "capability.",
            )
        if capability == "elicitation" and declared and "form" not in declared:
            # From 2025-11-25 a client lists its modes; an empty object still means forms.
            raise ClientCapabilityError(
                method,
                f"Cannot send {method!r}: the client's 'elicitation' capability does not "
                "include form mode.",
            )
        if self._round is not None:
            return await self._round.ask(method, params, self._round.key_for(capability, key))
        return await self._session.outbound.request(method, params, self._call_id, timeout)  # type: ignore[no-any-return]

    async def elicit(
        self, message: str, schema: Any, timeout: float | None, key: str | None
    ) -> ElicitResult:
        """See `ToolContext.elicit`."""
        if not isinstance(message, str):
            raise UserError(f"elicit: message must be a string, not {type(message).__name__}")
        form = elicitation_schema(schema)
        params: dict[str, Any] = {"message": message, "requestedSchema": form}
        if self._round is not None or self._version >= "2025-11-25":
            params = {"mode": "form", **params}
        raw = await self._ask("elicitation/create", params, timeout, key)
        return _elicit_result(raw, form, schema if is_model_class(schema) else None)

    async def sample(
        self, messages: Any, options: dict[str, Any], timeout: float | None, key: str | None
    ) -> SampleResult:
        """See `ToolContext.sample`."""
        limit = options.get("maxTokens")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise UserError(f"sample: max_tokens must be a positive integer, not {limit!r}")
        params = {"messages": _messages(messages), **options}
        raw = await self._ask("sampling/createMessage", params, timeout, key)
        return _sample_result(raw)

    async def list_roots(self, timeout: float | None, key: str | None) -> list[dict[str, Any]]:
        """See `ToolContext.list_roots`."""
        raw = await self._ask("roots/list", {}, timeout, key)
        roots = raw.get("roots")
        if not isinstance(roots, list) or not all(
            isinstance(root, dict) and isinstance(root.get("uri"), str) for root in roots
        ):
            raise ClientResponseError(
                "roots/list", "The client's roots/list result lacks a list of roots with 'uri'."
            )
        return roots


def _messages(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [_user_text(value)]
    if not isinstance(value, Sequence) or not value:
        raise UserError("sample: pass a prompt string or a non-empty list of messages")
    messages = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            messages.append(_user_text(item))
            continue
        if (
            not isinstance(item, Mapping)
            or item.get("role") not in ("user", "assistant")
            or not isinstance(item.get("content"), Mapping | list)
        ):
            raise UserError(
                f"sample: message {index} must be a string or a dict with 'role' (\"user\" or "
                "\"assistant\") and 'content' (an MCP content block)"
            )
        messages.append(dict(item))
    return messages


def _user_text(text: str) -> dict[str, Any]:
    return {"role": "user", "content": {"type": "text", "text": text}}


def _elicit_result(raw: dict[str, Any], form: dict[str, Any], model: Any) -> ElicitResult:
    method = "elicitation/create"
    action = raw.get("action")
    if action not in _ACTIONS:
        raise ClientResponseError(
            method, f"The client's elicitation result has an invalid action: {action!r}."
        )
    if action != "accept":
        return ElicitResult(action, None, raw)
    content = raw.get("content")
    content = {} if content is None else content
    problems = answer_problems(content, form)
    if problems:
        raise ClientResponseError(
            method, "The client's elicitation answer does not fit the form: " + "; ".join(problems)
        )
    if model is not None:
        from pydantic import ValidationError

        try:
            content = model.model_validate(content)
        except ValidationError as error:
            details = "; ".join(validation_problems(error))
            raise ClientResponseError(
                method, f"The client's elicitation answer does not fit {model.__name__}: {details}"
            ) from None
    return ElicitResult("accept", content, raw)


def _sample_result(raw: dict[str, Any]) -> SampleResult:
    content = raw.get("content")
    model = raw.get("model")
    role = raw.get("role")
    blocks: list[Any] = content if isinstance(content, list) else [content]
    if (
        not isinstance(model, str)
        or not isinstance(role, str)
        or not all(isinstance(block, dict) for block in blocks)
    ):
        raise ClientResponseError(
            "sampling/createMessage",
            "The client's sampling result lacks 'role', 'model' or a content block.",
        )
    text = "".join(
        block["text"]
        for block in blocks
        if block.get("type") == "text" and isinstance(block.get("text"), str)
    )
    stop = raw.get("stopReason")
    return SampleResult(text, model, role, stop if isinstance(stop, str) else None, raw)
