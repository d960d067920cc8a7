"""Requests from the server to its client during a call (handshake era): send, await, match. Ids are
strings `"tw-<n>"` counted per session (`id_prefix` differs per process when several serve one
session). Every wait is bounded by its timeout, the call and the session; a request given up is
withdrawn with `notifications/cancelled`; an error response becomes `ClientResponseError`; a
response nobody waits for is dropped."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import anyio

from ...errors import ClientRequestError, ClientResponseError, ClientTimeoutError
from ..wire.jsonrpc import FrameKind, RequestId, RoutedSend, encode_value, notification

__all__ = ["Outbound"]

logger = logging.getLogger("toolwire.protocol")

_WITHDRAW_SECONDS = 1.0  # how long a cancelled call may spend telling the client


@dataclass(eq=False, slots=True)
class _Waiting:
    """One request sent, its answer not yet in."""

    method: str
    answered: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: ClientRequestError | None = None


class Outbound:
    """A session's requests to its client and the table of those awaiting an answer."""

    def __init__(self, send: RoutedSend) -> None:
        self._send = send
        self._count = 0
        self._waiting: dict[str, _Waiting] = {}
        self.closed = False
        self.id_prefix = "tw-"

    @property
    def pending(self) -> int:
        """How many requests await their answer."""
        return len(self._waiting)

    async def request(
        self, method: str, params: dict[str, Any], call_id: RequestId, timeout: float | None
    ) -> Any:
        """Send one request on behalf of the call `call_id`; return the client's result (a
        `ClientResponseError` for its error, `ClientTimeoutError` past `timeout` seconds,
        `ClientRequestError` when the session closes first)."""
        if self.closed:
            raise ClientRequestError(method, f"Cannot send {method!r}: the session is closed.")
        self._count += 1
        message_id = f"{self.id_prefix}{self._count}"
        waiting = _Waiting(method)
        self._waiting[message_id] = waiting
        frame = encode_value(
            {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
        )
        sent = timed_out = False
        try:
            await self._send(frame, FrameKind.QUESTION, call_id)
            sent = True
            with anyio.move_on_after(timeout):
                await waiting.answered.wait()
            timed_out = not waiting.answered.is_set()
        finally:
            self._waiting.pop(message_id, None)
            if sent and not waiting.answered.is_set() and not self.closed:
                reason = "timed out" if timed_out else "the tool call ended"
                await self._withdraw(message_id, call_id, reason)
        if waiting.error is not None:
            raise waiting.error
        if timed_out:
            raise ClientTimeoutError(
                method, f"The client did not answer {method!r} within {timeout:g} seconds."
            )
        return waiting.result

    async def _withdraw(self, message_id: str, call_id: RequestId, reason: str) -> None:
        """Tell the client a request is no longer wanted (shielded: the call may be cancelled)."""
        frame = notification("notifications/cancelled", {"requestId": message_id, "reason": reason})
        with anyio.CancelScope(shield=True), anyio.move_on_after(_WITHDRAW_SECONDS):
            try:
                await self._send(frame, FrameKind.NOTICE, call_id)
            except Exception:  # the transport is going away: nothing to withdraw from
                logger.debug("could not withdraw request %s", message_id, exc_info=True)

    def awaits(self, message_id: Any) -> bool:
        """Whether a request with this id still waits for its answer here."""
        return isinstance(message_id, str) and message_id in self._waiting

    def resolve(self, message_id: Any, result: Any, error: Any) -> None:
        """Hand a response from the client to the request awaiting it, if any."""
        waiting = self._waiting.pop(message_id, None) if isinstance(message_id, str) else None
        if waiting is None:
            logger.debug("response to unknown or abandoned request %r dropped", message_id)
            return
        if error is not None:
            waiting.error = _client_error(waiting.method, error)
        elif not isinstance(result, dict):
            waiting.error = ClientResponseError(
                waiting.method, f"The client answered {waiting.method!r} with a non-object result."
            )
        else:
            waiting.result = result
        waiting.answered.set()

    def close(self) -> None:
        """Fail every pending request (the session is ending) and refuse new ones."""
        self.closed = True
        waiting, self._waiting = self._waiting, {}
        for item in waiting.values():
            item.error = ClientRequestError(
                item.method, f"The session closed before the client answered {item.method!r}."
            )
            item.answered.set()


def _client_error(method: str, error: Any) -> ClientResponseError:
    if not isinstance(error, dict):
        return ClientResponseError(method, f"The client answered {method!r} with a bad error.")
    code = error.get("code")
    text = error.get("message")
    return ClientResponseError(
        method,
        f"The client answered {method!r} with error {code}: {text}",
        code if isinstance(code, int) and not isinstance(code, bool) else None,
        error.get("data"),
    )
