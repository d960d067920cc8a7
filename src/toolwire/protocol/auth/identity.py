"""Who is calling: the identity an authenticated HTTP request carries to the protocol and tools. An
`Identity` never holds the bearer token. Its `principal` (subject and client id) is the caller a
session is bound to, so refreshing a token or gaining scopes keeps the session."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "FORBIDDEN",
    "UNAUTHORIZED",
    "Identity",
    "parse_scopes",
    "same_caller",
    "scope_refusal",
]

UNAUTHORIZED = -32001  # JSON-RPC code of a missing or invalid token (HTTP 401)
FORBIDDEN = -32003  # JSON-RPC code of a token lacking scopes (HTTP 403)

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def parse_scopes(scopes: str | Iterable[str] | None, what: str = "scopes") -> frozenset[str]:
    """Scope names from `"a b"`, `["a", "b"]` or None; `what` names the value in errors
    (TypeError for other types, ValueError for an empty name or one with whitespace)."""
    if scopes is None:
        return frozenset()
    if isinstance(scopes, str):
        return frozenset(scopes.split())
    if isinstance(scopes, Mapping) or not isinstance(scopes, Iterable):
        raise TypeError(
            f"{what} must be a space-separated string or a list of strings, "
            f"not {type(scopes).__name__}"
        )
    names: set[str] = set()
    for name in scopes:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold strings, not {type(name).__name__}")
        if not name or any(char.isspace() for char in name):
            raise ValueError(f"{what}: {name!r} is not a scope name (non-empty, no whitespace)")
        names.add(name)
    return frozenset(names)


class Identity:
    """The authenticated caller of a request: what a token verifier makes of a bearer token.

    Equality and hashing ignore `claims` (docs/security.md, "Who may reach an HTTP server").

    Args:
        subject: Who the token speaks for (a user id, the `sub` claim), if known.
        client_id: The OAuth client the token was issued to, if known. `BearerAuth` refuses
            a token whose identity has neither a subject nor a client id.
        scopes: The scopes the token grants: a list, or one space-separated string.
        expires_at: When the token expires, in seconds since the epoch; requests after that
            are refused with 401. None: the verifier checks expiry itself.
        resource: The resource (RFC 8707 audience) the token was issued for, when the
            verifier knows it; a token for another resource is refused with 401.
        claims: Anything else the verifier wants tools to see (read-only).

    Raises:
        TypeError, ValueError: A field has the wrong type, or a scope name is malformed.
    """

    __slots__ = ("claims", "client_id", "expires_at", "resource", "scopes", "subject")

    subject: str | None
    client_id: str | None
    scopes: frozenset[str]
    expires_at: float | None
    resource: str | None
    claims: Mapping[str, Any]

    def __init__(
        self,
        subject: str | None = None,
        *,
        client_id: str | None = None,
        scopes: str | Iterable[str] | None = None,
        expires_at: float | None = None,
        resource: str | None = None,
        claims: Mapping[str, Any] | None = None,
    ) -> None:
        for name, value in (("subject", subject), ("client_id", client_id), ("resource", resource)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"Identity {name} must be a string, not {type(value).__name__}")
        if expires_at is not None and (
            isinstance(expires_at, bool)
            or not isinstance(expires_at, int | float)
            or math.isnan(expires_at)
        ):
            raise TypeError("Identity expires_at must be seconds since the epoch (a number)")
        if claims is not None and not isinstance(claims, Mapping):
            raise TypeError(f"Identity claims must be a mapping, not {type(claims).__name__}")
        # Set through object: the instance is read-only (see __setattr__).
        put = object.__setattr__
        put(self, "subject", subject)
        put(self, "client_id", client_id)
        put(self, "scopes", parse_scopes(scopes, "Identity scopes"))
        put(self, "expires_at", expires_at)
        put(self, "resource", resource)
        put(self, "claims", MappingProxyType(dict(claims)) if claims else _EMPTY)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Identity is read-only; cannot set {name!r}")

    @property
    def principal(self) -> tuple[str | None, str | None]:
        """`(subject, client_id)`: what stays the same across this caller's tokens."""
        return (self.subject, self.client_id)

    def missing_scopes(self, required: Iterable[str]) -> list[str]:
        """The scopes of `required` this identity lacks, sorted (empty when it has them all)."""
        return sorted(set(required) - self.scopes)

    def expired(self, now: float) -> bool:
        """Whether the token had expired at `now` (seconds since the epoch)."""
        return self.expires_at is not None and self.expires_at <= now

    @classmethod
    def from_token_info(cls, info: Any) -> Identity:
        """An identity from a token verifier's answer: an `Identity` as is, anything else
        read by attribute as mcp's `AccessToken` is shaped (its `token` left behind).

        Raises:
            TypeError: `info` has none of the fields an identity is made of.
        """
        if isinstance(info, Identity):
            return info
        fields = ("subject", "client_id", "scopes", "expires_at", "resource", "claims")
        if not any(hasattr(info, name) for name in fields):
            raise TypeError(
                "a token verifier must return a toolwire.Identity, an object shaped like "
                f"mcp's AccessToken, or None; got {type(info).__name__}"
            )
        claims = getattr(info, "claims", None)
        return cls(
            getattr(info, "subject", None),
            client_id=getattr(info, "client_id", None),
            scopes=getattr(info, "scopes", None),
            expires_at=getattr(info, "expires_at", None),
            resource=getattr(info, "resource", None),
            claims=claims if isinstance(claims, Mapping) else None,
        )

    def _key(self) -> tuple[Any, ...]:
        return (self.subject, self.client_id, self.scopes, self.expires_at, self.resource)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Identity):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shown = [f"subject={self.subject!r}", f"client_id={self.client_id!r}"]
        shown.append(f"scopes={sorted(self.scopes)!r}")
        if self.expires_at is not None:
            shown.append(f"expires_at={self.expires_at!r}")
        if self.resource is not None:
            shown.append(f"resource={self.resource!r}")
        if self.claims:
            shown.append(f"claims={dict(self.claims)!r}")
        return f"Identity({', '.join(shown)})"


def same_caller(first: Any, second: Any) -> bool:
    """Whether two requests come from the same caller: both unauthenticated, identities with
    the same `principal`, or other values (an application's own auth) that are equal."""
    if first is None or second is None:
        return first is second
    if isinstance(first, Identity) and isinstance(second, Identity):
        return first.principal == second.principal
    return bool(first == second)


def scope_refusal(tool: str | None, missing: Iterable[str]) -> str:
    """Why a request is refused for missing scopes, naming them (and the tool, if any)."""
    names = sorted(missing)
    plural = "s" if len(names) > 1 else ""
    what = f"Tool '{tool}'" if tool is not None else "This server"
    it = "them" if plural else "it"
    return f"{what} requires scope{plural} {' '.join(names)}; the access token does not grant {it}"
