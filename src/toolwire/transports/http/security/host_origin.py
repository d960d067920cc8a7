"""`HostOriginGuard`: Host and Origin checks against DNS rebinding and cross-site requests. By
default only loopback names and origins pass (any port); a host without a port matches any port,
`name:port` that port only, `"*"` turns a check off. A refused Host is 421, a refused Origin 403,
a head that reads two ways (two Host, Origin or Content-Type headers; both Content-Length and
Transfer-Encoding) 400 with `Connection: close`. See docs/decisions.md, `host_origin.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from ..asgi import ASGIApp, ASGIReceive, ASGISend, Scope, printable, refuse

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "DEFAULT_ALLOWED_ORIGINS",
    "HostOriginGuard",
    "authority",
    "check_bind_host",
]

logger = logging.getLogger("toolwire")

DEFAULT_ALLOWED_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""Allowed `Host` names when none are configured (any port)."""

DEFAULT_ALLOWED_ORIGINS = tuple(
    f"{scheme}://{host}" for host in DEFAULT_ALLOWED_HOSTS for scheme in ("http", "https")
)
"""Allowed `Origin`s when none are configured (any port); same-host origins pass as well."""

_CACHE_LIMIT = 256  # header values (or pairs) remembered as allowed
_LOG_LIMIT = 256  # distinct refused values logged before the guard falls silent

ANY = "*"
_WILDCARD_BINDS = ("", "0.0.0.0", "::", "[::]")


_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._~")
_IPV6_CHARACTERS = frozenset("0123456789abcdef:.")
_MAX_PORT = 65535


def authority(text: str) -> tuple[str, str | None] | None:
    """`(name, port or None)` from a lower-case `name[:port]` (an IPv6 name keeps its
    brackets); None when it is not one."""
    if text.startswith("["):
        end = text.find("]")
        name, rest = text[: end + 1], text[end + 1 :]
        address = name[1:-1]
        if end < 0 or ":" not in address or not set(address) <= _IPV6_CHARACTERS:
            return None
    else:
        name, _, _ = text.partition(":")
        rest = text[len(name) :]
        if not name or not set(name) <= _NAME_CHARACTERS:
            return None
    if not rest:
        return name, None
    port = rest[1:]
    if rest[0] != ":" or not (0 < len(port) <= 5 and port.isascii() and port.isdigit()):
        return None
    if int(port) > _MAX_PORT:
        return None
    return name, port


def _scheme(text: str) -> bool:
    """Whether `text` is a URI scheme (a letter, then letters, digits, `+`, `-`, `.`)."""
    return text[:1].isalpha() and text.isascii() and all(c.isalnum() or c in "+-." for c in text)


def _host_entry(entry: str, what: str, prefix: str = "") -> str:
    """A configured host (`name`, `name:port`, `name:*`) as `prefix` + `name` (any port) or
    `prefix` + `name:port`, the form `_allowed` looks up."""
    if not entry.strip():
        raise ValueError(f"{what}: {entry!r} is not a host name")
    text = entry.strip().lower()
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"  # a bare IPv6 address, as a Host header brackets it
    if text.endswith((":" + ANY, ":")):
        text = text.rpartition(":")[0]  # any port, as a bare name says too
    parsed = authority(text)
    if parsed is None:
        name, _, port = text.rpartition(":")
        if authority(name) is not None and port and not set(port) & set("/@"):
            raise ValueError(f"{what}: {entry!r} has a port that is not a number up to 65535")
        raise ValueError(f"{what}: {entry!r} is not a host; write 'name' (any port) or 'name:port'")
    host, exact_port = parsed
    return prefix + host if exact_port is None else f"{prefix}{host}:{exact_port}"


def check_bind_host(host: str) -> None:
    """Refuse (ValueError starting "host: ") an interface to serve on that is no host name or
    address, as the Host check would read it; a wildcard (`0.0.0.0`, `::`) passes."""
    if host.strip() not in _WILDCARD_BINDS:
        _host_entry(host, "host")


def _allowed(allowed: set[str], prefix: str, name: str, port: str | None) -> bool:
    """Whether `allowed` (`"*"`, names on any port, `name:port` strings) takes the value."""
    if ANY in allowed or prefix + name in allowed:
        return True
    return port is not None and f"{prefix}{name}:{port}" in allowed


class HostOriginGuard:
    """ASGI middleware refusing requests whose `Host` or `Origin` is not allowed (see the
    module); `bind_host`, a concrete address, joins the default hosts.

    Raises:
        ValueError: An entry is malformed, naming it.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        bind_host: str | None = None,
    ) -> None:
        self.app = app
        self._hosts: set[str] = set()
        default_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS
        if bind_host is not None and bind_host.strip() not in _WILDCARD_BINDS:
            check_bind_host(bind_host)
            default_hosts = (*default_hosts, bind_host.strip())
        for entry in _entries(allowed_hosts, default_hosts, "allowed_hosts"):
            is_any = entry.strip() == ANY
            self._hosts.add(ANY if is_any else _host_entry(entry, "allowed_hosts"))
        self._origins: set[str] = set()
        for entry in _entries(allowed_origins, DEFAULT_ALLOWED_ORIGINS, "allowed_origins"):
            text = entry.strip().lower()
            if text == ANY:
                self._origins.add(ANY)
                continue
            scheme, sep, rest = text.partition("://")
            if not sep or not scheme or not rest or "/" in rest.rstrip("/"):
                raise ValueError(
                    f"allowed_origins: {entry!r} is not an origin; write 'https://name' "
                    "(any port) or 'https://name:port'"
                )
            self._origins.add(_host_entry(rest.rstrip("/"), "allowed_origins", scheme + "://"))
        self._good_hosts: set[bytes] = set()
        self._good_origins: set[tuple[bytes, bytes]] = set()
        self._logged: set[str] = set()

    async def __call__(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        if scope["type"] != "http":  # lifespan (and WebSocket: no MCP route uses one)
            await self.app(scope, receive, send)
            return
        host = origin = None
        hosts = origins = types = lengths = encodings = 0
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
                hosts += 1
            elif name == b"origin":
                origin = value
                origins += 1
            elif name == b"content-type":
                types += 1
            elif name == b"content-length":
                lengths = 1
            elif name == b"transfer-encoding":
                encodings = 1
        if hosts > 1 or origins > 1 or types > 1 or lengths + encodings > 1:
            await _refuse_ambiguous(send, hosts, origins, types)
            return
        if host not in self._good_hosts and not self._host_allowed(host):
            await self._refuse_host(send, host)
            return
        assert host is not None  # _host_allowed refuses a missing Host
        if (
            origin is not None
            and (origin, host) not in self._good_origins
            and not self._origin_allowed(origin, host)
        ):
            await self._refuse_origin(send, origin)
            return
        await self.app(scope, receive, send)

    def _host_allowed(self, host: bytes | None) -> bool:
        if host is None:
            return False
        if ANY not in self._hosts:
            parsed = authority(host.decode("latin-1").strip(" \t").lower())
            if parsed is None or not _allowed(self._hosts, "", *parsed):
                return False
        if len(self._good_hosts) < _CACHE_LIMIT:
            self._good_hosts.add(host)
        return True

    def _origin_allowed(self, origin: bytes, host: bytes) -> bool:
        text = origin.decode("latin-1").strip(" \t").lower()
        scheme, sep, address = text.partition("://")
        parsed = authority(address)
        if not sep or not _scheme(scheme) or parsed is None:
            return False  # "null", other opaque origins, and anything not scheme://name[:port]
        own_host = host.decode("latin-1").strip(" \t").lower()
        if address != own_host and not _allowed(self._origins, scheme + "://", *parsed):
            return False
        if len(self._good_origins) < _CACHE_LIMIT:
            self._good_origins.add((origin, host))
        return True

    async def _refuse_host(self, send: ASGISend, host: bytes | None) -> None:
        if host is None:
            message = "The request has no Host header; the server needs one to check it"
        else:
            shown = printable(host)
            parsed = authority(host.decode("latin-1").strip(" \t").lower())
            if parsed is None:
                message = (
                    f"Host '{shown}' is not allowed: a Host header is name[:port], the port in "
                    "digits and an IPv6 address in brackets"
                )
            else:
                allow = parsed[0]
                message = (
                    f"Host '{shown}' is not allowed; pass allowed_hosts=['{allow}'] to "
                    f"http_app()/run(), or --allowed-host {allow} on the CLI"
                )
        self._log(message)
        await refuse(send, 421, message)

    async def _refuse_origin(self, send: ASGISend, origin: bytes) -> None:
        shown = printable(origin)
        message = (
            f"Origin '{shown}' is not allowed; pass allowed_origins=['{shown}'] to "
            f"http_app()/run(), or --allowed-origin {shown} on the CLI"
        )
        self._log(message)
        await refuse(send, 403, message)

    def _log(self, message: str) -> None:
        if message in self._logged:
            return
        if len(self._logged) >= _LOG_LIMIT:
            if len(self._logged) == _LOG_LIMIT:
                self._logged.add("")  # the marker: say it once
                logger.warning("refused Host/Origin values: further ones are not logged")
            return
        self._logged.add(message)
        logger.warning("%s", message)


async def _refuse_ambiguous(send: ASGISend, hosts: int, origins: int, types: int) -> None:
    for count, name in ((hosts, "Host"), (origins, "Origin"), (types, "Content-Type")):
        if count > 1:
            problem = f"the request has {count} {name} headers; send one"
            break
    else:
        problem = (
            "the request has both Content-Length and Transfer-Encoding, which leaves its "
            "length in doubt (RFC 9112 section 6.1); send one of them"
        )
    logger.debug("refused: %s", problem)
    headers = [(b"connection", b"close")]  # nothing more is read on this connection
    await refuse(send, 400, f"Bad Request: {problem}", headers=headers)


def _entries(given: Iterable[str] | None, default: Iterable[str], what: str) -> list[str]:
    if given is None:
        return list(default)
    if isinstance(given, str):
        given = [given]
    if not isinstance(given, Iterable):
        raise ValueError(f"{what} must be a list of strings, not {type(given).__name__}")
    entries = list(given)
    for entry in entries:
        if not isinstance(entry, str):
            raise ValueError(f"{what} must hold strings, not {type(entry).__name__}")
    return entries
