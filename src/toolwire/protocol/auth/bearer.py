"""`BearerAuth`: how a server checks bearer tokens, and what it publishes about itself. The server
is an OAuth resource server: it verifies tokens, never issues them. Every form of verifier becomes
one async `token -> Identity | None`; a verifier that raises refuses the token."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from .identity import Identity, parse_scopes

__all__ = ["BearerAuth", "Verify", "bearer_auth"]

logger = logging.getLogger("toolwire")

Verify = Callable[[str], Awaitable[Identity | None]]  # as the HTTP layer calls a verifier


class BearerAuth:
    """Bearer-token authentication for a server's HTTP transports (`Server(auth=...)`).

    Every request to the MCP endpoint must carry a token `verifier` accepts; what it returns
    is the request's `Identity`. stdio is never authenticated. See docs/security.md, "Who may
    reach an HTTP server".

    Args:
        verifier: `async def verify(token) -> Identity | None` (a plain function works too),
            or an object with mcp's `verify_token(token)` method.
        authorization_servers: Issuer URLs of the OAuth servers that issue its tokens.
        required_scopes: Scopes every request needs (else 403 `insufficient_scope`).
        resource_url: This endpoint's public URL (the metadata's `resource`); default: built
            from each request's Host name, the port the server listens on, and the path (set
            it behind a proxy). Tokens for another resource are refused.
        scopes_supported: The metadata's `scopes_supported`; default: the required scopes and
            every tool's scopes.
        resource_name: The metadata's human-readable `resource_name`.

    Raises:
        TypeError: `verifier` is neither callable nor has `verify_token`, or an option has
            the wrong type.
        ValueError: A URL is not absolute http(s), holds a control character or its port
            is not one (`resource_url` also has a fragment), or a scope name is malformed.
    """

    __slots__ = (
        "authorization_servers",
        "required_scopes",
        "resource_name",
        "resource_url",
        "scopes_supported",
        "verify",
    )

    def __init__(
        self,
        verifier: Any,
        *,
        authorization_servers: Iterable[str] = (),
        required_scopes: str | Iterable[str] | None = None,
        resource_url: str | None = None,
        scopes_supported: str | Iterable[str] | None = None,
        resource_name: str | None = None,
    ) -> None:
        self.verify: Verify = _adapt(verifier)
        if isinstance(authorization_servers, str):
            authorization_servers = [authorization_servers]
        if not isinstance(authorization_servers, Iterable):
            raise TypeError(
                "authorization_servers must be a list of URL strings, not "
                f"{type(authorization_servers).__name__}"
            )
        self.authorization_servers = tuple(
            _absolute_url(url, "authorization_servers") for url in authorization_servers
        )
        self.required_scopes = parse_scopes(required_scopes, "required_scopes")
        self.resource_url = (
            _absolute_url(resource_url, "resource_url") if resource_url is not None else None
        )
        self.scopes_supported = (
            None if scopes_supported is None else parse_scopes(scopes_supported, "scopes_supported")
        )
        if resource_name is not None and not isinstance(resource_name, str):
            raise TypeError(f"resource_name must be a string, not {type(resource_name).__name__}")
        self.resource_name = resource_name

    def __repr__(self) -> str:
        return (
            f"BearerAuth(authorization_servers={list(self.authorization_servers)!r}, "
            f"required_scopes={sorted(self.required_scopes)!r}, "
            f"resource_url={self.resource_url!r})"
        )


def bearer_auth(auth: Any) -> BearerAuth | None:
    """What `Server(auth=...)` was given, as a `BearerAuth` (a bare verifier gets defaults).

    Raises:
        TypeError: `auth` is not a BearerAuth, a verifier callable, or a `verify_token` object.
    """
    if auth is None or isinstance(auth, BearerAuth):
        return auth
    return BearerAuth(auth)


def _adapt(verifier: Any) -> Verify:
    method = getattr(verifier, "verify_token", None)
    if callable(method):
        target: Callable[[str], Any] = method
        shown = f"{type(verifier).__name__}.verify_token"
    elif callable(verifier):
        target = verifier
        shown = getattr(verifier, "__qualname__", type(verifier).__name__)
    else:
        raise TypeError(
            "auth= takes a toolwire.BearerAuth, an async function token -> Identity | None, "
            f"or an object with a verify_token(token) method; got {type(verifier).__name__}"
        )

    async def verify(token: str) -> Identity | None:
        try:
            answer = target(token)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as error:
            logger.warning(
                "token verifier %s raised %s; the token is refused", shown, type(error).__name__
            )
            return None
        if answer is None:
            return None
        try:
            identity = Identity.from_token_info(answer)
        except (TypeError, ValueError) as error:
            logger.error("token verifier %s: %s; the token is refused", shown, error)
            return None
        if identity.principal == (None, None):
            logger.error(
                "token verifier %s returned an identity with neither a subject nor a client_id; "
                "sessions are bound to one of them, so the token is refused",
                shown,
            )
            return None
        return identity

    return verify


def _absolute_url(url: Any, what: str) -> str:
    if not isinstance(url, str):
        raise TypeError(f"{what} must hold URL strings, not {type(url).__name__}")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        # urlsplit drops tabs and line breaks: the URL checked would not be the URL kept.
        raise ValueError(f"{what}: {url!r} holds a control character")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{what}: {url!r} is not an absolute http(s) URL")
    try:
        parts.port  # noqa: B018 (read for the ValueError it raises)
    except ValueError:
        raise ValueError(f"{what}: {url!r} has a port that is not a number up to 65535") from None
    if what == "resource_url" and "#" in url:
        raise ValueError(
            f"{what}: {url!r} has a fragment; a resource identifier has none (RFC 8707)"
        )
    return url
