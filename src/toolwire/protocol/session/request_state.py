"""The `requestState` of a 2026-07-28 input-required result: sealed by the server, echoed by the
client, trusted only once its seal checks out. A state carries the answers a call has used and what
binds it to that call (method, tool, arguments digest, caller, expiry) as `base64url(JSON) "."
base64url(HMAC-SHA256)`. The key is random per process unless `TOOLWIRE_REQUEST_STATE_KEY` is set
(replicas must share it). A state failing any check is -32602 "Invalid or expired requestState" with
the reason in `data`."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from ..wire.jsonrpc import INVALID_PARAMS, ProtocolError, compact_json

__all__ = ["MAX_STATE_CHARS", "StateBinding", "open_state", "seal_state"]

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
