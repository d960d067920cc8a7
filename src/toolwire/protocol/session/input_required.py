"""Asking the client in the 2026-07-28 era: input-required results, answered by a retry. When a tool
asks and its call did not bring the answer, the call ends with `resultType: "input_required"`, the
questions by key and a sealed `requestState`; the client retries with `inputResponses` and the
state, and the tool runs again, finding each answer at once. Answers for keys nobody asks for are
ignored, malformed ones are -32602. The state carries the answers a call has used and what binds it
to that call (method, tool, arguments digest, caller, expiry) as `base64url(JSON) "."
base64url(HMAC-SHA256)`, trusted only once its seal checks out; the key is random per process unless
`TOOLWIRE_REQUEST_STATE_KEY` is set (replicas must share it). A state failing any check is -32602
"Invalid or expired requestState" with the reason in `data`."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import os
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from ...errors import ClientRequestError, UserError
from ..wire import eras
from ..wire.jsonrpc import INVALID_PARAMS, FrameKind, ProtocolError, compact_json, result_message

if TYPE_CHECKING:
    from ..wire.jsonrpc import RequestId

__all__ = ["InputRound", "RoundCall", "RoundSession", "start_round"]

MAX_STATE_CHARS = 64 * 1024
STATE_TTL_SECONDS = 600.0
_VERSION = 1


@functools.cache
def _secret() -> bytes:
    configured = os.environ.get("TOOLWIRE_REQUEST_STATE_KEY")
    # Any text will do: hashing gives a full-length key whatever its form.
    return hashlib.sha256(configured.encode()).digest() if configured else os.urandom(32)


@dataclass(eq=False, slots=True)
class StateBinding:
    """What a state is issued for, and must be presented with."""

    method: str
    name: str
    arguments: Any
    principal: str | None
    _digest: str | None = field(default=None, init=False)

    @property
    def digest(self) -> str:
        """A digest of the arguments (made when first needed: most calls never ask)."""
        if self._digest is None:
            canonical = json.dumps(
                self.arguments, sort_keys=True, separators=(",", ":"), default=str
            )
            digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
            self._digest = digest[:32]
        return self._digest


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def seal_state(binding: StateBinding, answers: dict[str, Any]) -> str:
    """The sealed state for the next round of a call, carrying `answers`."""
    payload = {
        "v": _VERSION,
        "m": binding.method,
        "n": binding.name,
        "d": binding.digest,
        "p": binding.principal,
        "e": int(time.time() + STATE_TTL_SECONDS),
        "a": answers,
    }
    body = _b64(compact_json(payload).encode("utf-8", "surrogatepass"))
    tag = hmac.new(_secret(), body.encode("ascii"), hashlib.sha256).digest()
    return f"{body}.{_b64(tag)}"


def _refused(reason: str) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, "Invalid or expired requestState", {"reason": reason})


def open_state(state: Any, binding: StateBinding) -> dict[str, Any]:
    """The answers a state carries, once it is shown to be ours, intact, current and for
    this call (else -32602 naming why)."""
    if not isinstance(state, str):
        raise _refused("requestState must be a string")
    if len(state) > MAX_STATE_CHARS:
        raise _refused(f"requestState is longer than {MAX_STATE_CHARS} characters")
    body, dot, tag = state.partition(".")
    if not dot:
        raise _refused("not a state this server issued")
    try:
        expected = hmac.new(_secret(), body.encode("ascii"), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, _unb64(tag)):
            raise _refused("the state's seal does not match (altered, or issued elsewhere)")
        payload = json.loads(_unb64(body))
    except (UnicodeError, binascii.Error, ValueError):
        raise _refused("not a state this server issued") from None
    if not isinstance(payload, dict) or payload.get("v") != _VERSION:
        raise _refused("not a state this server issued")
    expiry = payload.get("e")
    if not isinstance(expiry, int) or expiry < time.time():
        raise _refused("the state has expired")
    if (payload.get("m"), payload.get("n"), payload.get("d")) != (
        binding.method,
        binding.name,
        binding.digest,
    ):
        raise _refused("the state was issued for another request")
    if payload.get("p") != binding.principal:
        raise _refused("the state was issued to another caller")
    answers = payload.get("a")
    if not isinstance(answers, dict):
        raise _refused("not a state this server issued")
    return answers


class RoundCall(Protocol):
    """The call a round belongs to (a `CallInFlight`)."""

    abandoned: bool

    def cancel(self) -> None: ...


class RoundSession(Protocol):
    """What ending a round needs from the session serving the call."""

    server_info: dict[str, Any]

    def start_soon(self, func: Callable[[], Coroutine[Any, Any, Any]]) -> None: ...

    async def send(
        self, frame: bytes, kind: FrameKind, request_id: RequestId | None = None
    ) -> None: ...


_QUIET_PASSES = 3  # loop passes without a new question before a round ends
_MAX_PASSES = 100  # bound on the wait for a tool that keeps asking


def start_round(
    params: dict[str, Any], name: str, principal: str | None, method: str = "tools/call"
) -> InputRound:
    """The round a modern request starts, with the answers it brings (-32602 when they are
    malformed or the state is refused)."""
    binding = StateBinding(method, name, params.get("arguments") or {}, principal)
    answers: dict[str, Any] = {}
    if "requestState" in params:
        answers.update(open_state(params["requestState"], binding))
    if "inputResponses" in params:
        responses = params["inputResponses"]
        if not isinstance(responses, dict):
            raise ProtocolError(
                INVALID_PARAMS, "Invalid params", f"{method}: 'inputResponses' must be an object"
            )
        for key, answer in responses.items():
            if not isinstance(answer, dict):
                raise ProtocolError(
                    INVALID_PARAMS,
                    "Invalid params",
                    f"{method}: inputResponses[{key!r}] must be an object (the client's "
                    "result for that input request)",
                )
        answers.update(responses)
    return InputRound(binding, answers)


class InputRound:
    """One run of a modern call: the answers at hand by key, and the questions still open."""

    def __init__(self, binding: StateBinding, answers: dict[str, Any]) -> None:
        self.binding = binding
        self.answers = answers
        self.used: dict[str, Any] = {}
        self.needed: dict[str, dict[str, Any]] = {}
        # Where the round ends (set by `attach`).
        self._session: RoundSession | None = None
        self._call_id: RequestId | None = None
        self._call: RoundCall | None = None
        self._count = 0
        self._failed: anyio.Event | None = None  # made by the first open question
        self._failure: ClientRequestError | None = None

    def attach(self, session: RoundSession, call_id: RequestId, call: RoundCall) -> None:
        """End the round for `call` on `session` once its tool waits on a question."""
        self._session, self._call_id, self._call = session, call_id, call

    async def _finish(self) -> None:
        session, call_id, call = self._session, self._call_id, self._call
        assert session is not None and call_id is not None and call is not None
        # Questions asked together go out together: wait until a few loop passes bring none.
        seen, quiet = -1, 0
        for _ in range(_MAX_PASSES):
            if len(self.needed) == seen:
                quiet += 1
                if quiet >= _QUIET_PASSES:
                    break
            else:
                seen, quiet = len(self.needed), 0
            await anyio.sleep(0)
        if call.abandoned:  # cancelled meanwhile: nothing to answer
            return
        result = self.result(session.server_info)
        if result is None:  # the tool got an error instead and goes on
            return
        call.cancel()
        await session.send(result_message(call_id, result), FrameKind.REPLY, call_id)

    def key_for(self, capability: str, key: str | None) -> str:
        """The key of the next question: the tool's own, or `<capability>-<n>`."""
        self._count += 1
        if key is None:
            return f"{capability}-{self._count}"
        if not isinstance(key, str) or not key:
            raise UserError(f"key must be a non-empty string, not {key!r}")
        return key

    async def ask(self, method: str, params: dict[str, Any], key: str) -> dict[str, Any]:
        """The answer to a question when the call brought it; else the round ends and the
        call is cancelled (or, when it cannot end, the question fails)."""
        answer = self.answers.get(key)
        if answer is not None:
            self.used[key] = answer
            return answer  # type: ignore[no-any-return]
        if key in self.needed:
            raise UserError(f"two input requests of one call use the key {key!r}")
        self.needed[key] = {"method": method, "params": params}
        if self._failed is None:
            self._failed = anyio.Event()
        if len(self.needed) == 1 and self._session is not None:
            self._session.start_soon(self._finish)
        await self._failed.wait()
        assert self._failure is not None
        raise self._failure

    def result(self, server_info: dict[str, Any]) -> dict[str, Any] | None:
        """The input-required result ending this round; None (the open questions failed)
        when the answers used so far are too large to carry in a state."""
        state = seal_state(self.binding, self.used)
        if len(state) > MAX_STATE_CHARS:
            method = next(iter(self.needed.values()))["method"]
            self._failure = ClientRequestError(
                method,
                f"The answers this call gathered ({len(state)} characters sealed) are too "
                f"large to carry to the next round (limit {MAX_STATE_CHARS}); ask for less.",
            )
            if self._failed is not None:
                self._failed.set()
            return None
        return {
            "resultType": "input_required",
            "inputRequests": dict(self.needed),
            "requestState": state,
            "_meta": {eras.META_SERVER_INFO: server_info},
        }
