"""`BearerGuard`: bearer-token authentication in front of an MCP endpoint, serving RFC 9728
metadata at `METADATA_PATH`. A bad token is 401 `invalid_token`, missing scopes (server-wide, or
a called tool's) 403 `insufficient_scope`; what passes carries its `Identity` under the ASGI
scope key `IDENTITY_KEY`. See docs/decisions.md, `auth.py`."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ....protocol.auth.identity import FORBIDDEN, UNAUTHORIZED, Identity, scope_refusal
from ....protocol.wire.jsonrpc import RequestId, decode, encode_value, valid_id
from ..asgi import (
    ASGIApp,
    ASGIReceive,
    ASGISend,
    BodyTimeout,
    BodyTooLarge,
    ClientGone,
    Scope,
    header,
    header_text,
    printable,
    read_body,
    refuse,
    respond,
    route_path,
)
from .host_origin import authority

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from ....protocol.auth.bearer import BearerAuth
    from ....protocol.features.registry import ToolRegistry

__all__ = ["IDENTITY_KEY", "METADATA_PATH", "BearerGuard"]

IDENTITY_KEY = "toolwire.identity"
"""The ASGI scope key holding the authenticated request's `Identity`."""

METADATA_PATH = "/.well-known/oauth-protected-resource"
"""Where RFC 9728 puts a protected resource's metadata."""

logger = logging.getLogger("toolwire")

_DEFAULT_PORTS = {"http": 80, "https": 443}
_FOREIGN_LOGGED = 64  # distinct foreign resources logged before the guard falls silent

_CORS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, OPTIONS"),
    (b"access-control-allow-headers", b"mcp-protocol-version"),
]


class BearerGuard:
    """ASGI middleware authenticating every request to `app` with `auth` (`Server(auth=...)`),
    checking the per-tool scopes of `tools` on `tools/call` (see the module)."""

    def __init__(
        self,
        app: ASGIApp,
        auth: BearerAuth,
        *,
        endpoint_path: str = "/mcp",
        tools: ToolRegistry | None = None,
        max_body_bytes: int = 4 * 1024 * 1024,
    ) -> None:
        self.app = app
        self.auth = auth
        self.endpoint_path = "/" + endpoint_path.strip("/") if endpoint_path.strip("/") else ""
        self.tools = tools
        self.max_body_bytes = max_body_bytes
        self._metadata_paths = {METADATA_PATH, METADATA_PATH + self.endpoint_path}
        self._warned = False
        self._foreign: set[str] = set()

    async def __call__(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        if scope["type"] != "http":  # lifespan (and WebSocket: no MCP route uses one)
            await self.app(scope, receive, send)
            return
        if route_path(scope) in self._metadata_paths:
            await self._metadata(scope, send)
            return
        if scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        identity, problem = await self._identify(scope)
        if identity is None:
            await self._challenge(scope, send, 401, "invalid_token", problem)
            return
        missing = identity.missing_scopes(self.auth.required_scopes)
        if missing:
            refusal = scope_refusal(None, missing)
            await self._challenge(scope, send, 403, "insufficient_scope", refusal)
            return
        scope[IDENTITY_KEY] = identity
        tools = self.tools
        if (
            tools is not None
            and tools.scoped
            and scope.get("method") == "POST"
            and not tools.all_scopes() <= identity.scopes
        ):
            await self._check_tool_scopes(scope, receive, send, identity)
            return
        await self.app(scope, receive, send)

    async def _identify(self, scope: Scope) -> tuple[Identity | None, str]:
        """The request's identity, or None and why not (said in the challenge)."""
        values = [value for name, value in scope["headers"] if name == b"authorization"]
        if len(values) > 1:  # a proxy in front may have read the other one
            return None, f"The request has {len(values)} Authorization headers; send one"
        authorization = values[0] if values else None
        if authorization is None:
            return None, "Authentication required: send an Authorization: Bearer <token> header"
        kind, _, token = authorization.decode("latin-1").strip().partition(" ")
        token = token.strip()
        if kind.lower() != "bearer" or not token:
            return None, "The Authorization header must be 'Bearer <token>'"
        identity = await self.auth.verify(token)
        if identity is None:
            return None, "The access token is invalid"
        if identity.expired(time.time()):
            return None, "The access token has expired"
        if identity.resource is not None:
            expected = self._audience(scope)
            if not _covers(identity.resource, expected):
                self._log_foreign(identity.resource, expected)
                return None, "The access token was issued for another resource"
        return identity, ""

    def _log_foreign(self, granted: str, expected: str) -> None:
        """Say once per resource (up to a bound) which one a refused token named."""
        if granted in self._foreign or len(self._foreign) >= _FOREIGN_LOGGED:
            return
        self._foreign.add(granted)
        logger.warning(
            "a token for resource '%s' was refused: this endpoint's resource is '%s' "
            "(BearerAuth(resource_url=...) sets it)",
            printable(granted),
            printable(expected),
        )

    async def _check_tool_scopes(
        self, scope: Scope, receive: ASGIReceive, send: ASGISend, identity: Identity
    ) -> None:
        """Refuse a `tools/call` whose tool's scopes `identity` lacks; else replay the body on."""
        read: list[MutableMapping[str, Any]] = []

        async def recorded() -> MutableMapping[str, Any]:
            message = await receive()
            read.append(message)
            return message

        try:  # with the endpoint's bounds on a body: this read comes first
            body: bytes | None = await read_body(recorded, self.max_body_bytes)
        except BodyTimeout as error:
            await refuse(
                send, 408, f"Request Timeout: {error}", headers=[(b"connection", b"close")]
            )
            return
        except (BodyTooLarge, ClientGone):
            body = None  # passed on as read: the endpoint refuses it in its own words
        refusal = None if body is None else self._tool_refusal(body, identity)
        if refusal is not None:
            request_id, tool, required, missing = refusal
            await self._challenge(
                scope,
                send,
                403,
                "insufficient_scope",
                scope_refusal(tool, missing),
                scopes=self.auth.required_scopes | required,
                request_id=request_id,
                data={"requiredScopes": sorted(required), "missingScopes": missing},
            )
            return
        pending = iter(read)

        async def replay() -> MutableMapping[str, Any]:
            message = next(pending, None)
            return message if message is not None else await receive()

        await self.app(scope, replay, send)

    def _tool_refusal(
        self, body: bytes, identity: Identity
    ) -> tuple[RequestId | None, str, frozenset[str], list[str]] | None:
        """(id, tool, its scopes, those missing) for the first call the identity may not
        make; None when there is none."""
        # JSON may spell any character as an escape: without a backslash, the method is there
        # verbatim or is not there at all.
        if b"tools/call" not in body and b"\\" not in body:
            return None
        try:
            parsed = decode(body)
        except (ValueError, RecursionError):
            return None
        assert self.tools is not None
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if not isinstance(message, dict) or message.get("method") != "tools/call":
                continue
            params = message.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            if not isinstance(name, str):
                continue
            entry = self.tools.get(name)
            if entry is None or not entry.scopes:
                continue
            missing = identity.missing_scopes(entry.scopes)
            if missing:
                sent: Any = message.get("id")
                request_id: RequestId | None = sent if valid_id(sent) else None
                return request_id, name, entry.scopes, missing
        return None

    def _base(self, scope: Scope) -> str:
        """`scheme://host` and the mount point of this app, as the client addressed it."""
        root: str = scope.get("root_path", "")
        if self.auth.resource_url is not None:
            parts = urlsplit(self.auth.resource_url)
            return f"{parts.scheme}://{parts.netloc}{root}"
        host = header(scope, b"host")
        scheme = _scheme(scope)
        return f"{scheme}://{'localhost' if host is None else host.decode('latin-1')}{root}"

    def _audience(self, scope: Scope) -> str:
        """The resource a token must be for: the configured URL, else this endpoint's URL with
        the port the connection arrived on (never one a `Host` header names)."""
        if self.auth.resource_url is not None:
            return self.auth.resource_url
        scheme = _scheme(scope)
        root: str = scope.get("root_path", "")
        return f"{scheme}://{self._authority(scope, scheme)}{root}{self.endpoint_path}"

    def _authority(self, scope: Scope, scheme: str) -> str:
        """`name[:port]` of this server: the name from the request's `Host`, the port the
        connection arrived on (a `Host` naming another port is some other server's)."""
        host = header(scope, b"host")
        parsed = authority(host.decode("latin-1").strip(" \t").lower()) if host else None
        server: Any = scope.get("server")
        pair = isinstance(server, list | tuple) and len(server) == 2
        address, listening = server if pair else (None, None)
        if parsed is None:  # no Host, or one only allowed_hosts=["*"] lets through
            if not isinstance(address, str) or not address:
                return "localhost"
            name, port = (f"[{address}]" if ":" in address else address), None
        else:
            name, port = parsed
        if isinstance(listening, int):
            named = int(port) if port is not None else _DEFAULT_PORTS.get(scheme)
            if parsed is not None and named != listening and not self._warned:
                self._warned = True
                logger.warning(
                    "a request's Host names port %s but this server listens on port %d: tokens "
                    "are checked for a resource on port %d; behind a proxy, set "
                    "BearerAuth(resource_url=...) to the public URL",
                    named,
                    listening,
                    listening,
                )
            port = None if _DEFAULT_PORTS.get(scheme) == listening else str(listening)
        return name if port is None else f"{name}:{port}"

    def _metadata_document(self, scope: Scope) -> dict[str, Any]:
        auth = self.auth
        # The configured URL, else this endpoint's URL as the client addressed it.
        resource = self.auth.resource_url or self._base(scope) + self.endpoint_path
        document: dict[str, Any] = {"resource": resource}
        if auth.authorization_servers:
            document["authorization_servers"] = list(auth.authorization_servers)
        supported = auth.scopes_supported
        if supported is None:
            supported = auth.required_scopes
            if self.tools is not None and self.tools.scoped:
                supported = supported | self.tools.all_scopes()
        if supported:
            document["scopes_supported"] = sorted(supported)
        document["bearer_methods_supported"] = ["header"]
        if auth.resource_name is not None:
            document["resource_name"] = auth.resource_name
        return document

    async def _metadata(self, scope: Scope, send: ASGISend) -> None:
        method = scope.get("method")
        if method == "OPTIONS":
            await send({"type": "http.response.start", "status": 204, "headers": _CORS})
            await send({"type": "http.response.body", "body": b""})
            return
        if method not in ("GET", "HEAD"):
            headers = [(b"allow", b"GET, HEAD, OPTIONS"), (b"content-type", b"application/json")]
            await respond(send, 405, b'{"error":"method_not_allowed"}', headers)
            return
        body = encode_value(self._metadata_document(scope))
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"cache-control", b"public, max-age=3600"),
            *_CORS,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})

    async def _challenge(
        self,
        scope: Scope,
        send: ASGISend,
        status: int,
        error: str,
        description: str,
        *,
        scopes: frozenset[str] | None = None,
        request_id: RequestId | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        """Refuse with `status` and a `WWW-Authenticate: Bearer` challenge (RFC 6750)."""
        if scopes is None:
            scopes = self.auth.required_scopes
        params = [b'error="' + error.encode("ascii") + b'"']
        params.append(b'error_description="' + header_text(description) + b'"')
        if scopes:
            params.append(b'scope="' + header_text(" ".join(sorted(scopes))) + b'"')
        params.append(
            b'resource_metadata="'
            + header_text(self._base(scope) + METADATA_PATH + self.endpoint_path)
            + b'"'
        )
        challenge = b"Bearer " + b", ".join(params)
        await refuse(
            send,
            status,
            description,
            code=UNAUTHORIZED if status == 401 else FORBIDDEN,
            request_id=request_id,
            data={"error": error, **(data or {})},
            headers=[(b"www-authenticate", challenge)],
        )


def _scheme(scope: Scope) -> str:
    scheme: str = scope.get("scheme", "http")
    return {"ws": "http", "wss": "https"}.get(scheme, scheme)


def _covers(granted: str, resource: str) -> bool:
    """Whether a token for `granted` serves `resource`: the same scheme, host and port, and
    the same path or a parent of it (RFC 8707)."""
    mine, theirs = _canonical(granted), _canonical(resource)
    if mine is None or theirs is None or mine[0] != theirs[0]:
        return False
    return theirs[1] == mine[1] or theirs[1].startswith(mine[1] + "/")


def _canonical(url: str) -> tuple[tuple[str, str, int | None], str] | None:
    """`((scheme, host, port), path)` of `url`, a default port made explicit; None when its
    port is not a port."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    if port is None:
        port = _DEFAULT_PORTS.get(scheme)
    return (scheme, parts.hostname or "", port), parts.path.rstrip("/")
