"""What the client adapter raises, and how a low-level failure is described: every failure of
a remote call names the server and the tool (or method). Exceptions are classified by type
name, so this module does not import `mcp`."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from ..errors import UserError

__all__ = ["LOST_TYPES", "Diagnosis", "MCPCallError", "diagnose", "exception_chain", "shown_name"]

NOT_CONNECTED = "Server not initialized. Make sure you call `connect()` first."

# JSON-RPC codes the mcp client uses for its own failures (not the server's).
_REQUEST_TIMEOUT = -32001
_CONNECTION_CLOSED = -32000
_INVALID_REQUEST = -32600  # what a 404 on an expired streamable HTTP session becomes
_UNSUPPORTED_VERSION = -32022  # 2026-07-28: the request's protocol version is refused

# Names of the exception types that mean the connection itself is gone.
LOST_TYPES = {
    "ClosedResourceError",
    "BrokenResourceError",
    "EndOfStream",
    "LinkClosedError",
    "RemoteProtocolError",
    "ReadError",
    "WriteError",
    "ConnectError",
    "BrokenPipeError",
    "ConnectionResetError",
    "ConnectionRefusedError",
}


# The transports' default names: their prefix, then the server's URL.
_URL_NAME_PREFIXES = ("streamable_http: ", "streamable-http: ", "sse: ")


def shown_name(name: str) -> str:
    """A server's name as messages, logs and prefixed tool names show it: an http(s) URL in it
    (the whole name, or after a default name's transport prefix) keeps its scheme, host, port
    and path only, so that a password, a key in the query or a fragment is never shown (the
    Agents SDK's rule); a URL that cannot be read is shown as `<invalid-url>`."""
    prefix = next((start for start in _URL_NAME_PREFIXES if name.startswith(start)), "")
    url = name[len(prefix) :]
    looks_like_url = bool(prefix) or url.lower().startswith(("http://", "https://"))
    try:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return name
        host, port = parts.hostname, parts.port
    except ValueError:
        return f"{prefix}<invalid-url>" if looks_like_url else name
    if not parts.netloc or not host or any(char.isspace() for char in host):
        return f"{prefix}<invalid-url>"
    where = (f"[{host}]" if ":" in host else host) + ("" if port is None else f":{port}")
    return prefix + urlunsplit((parts.scheme, where, parts.path, "", ""))


class MCPCallError(UserError):
    """A request to an MCP server failed; the message names the server and the tool.

    Args:
        server_name: The server's name.
        target: The tool that was called, or "prompt:<name>", "resource:<uri>" or
            "method:<JSON-RPC method>" for the other requests.
        reason: What went wrong, in a few words.
        lost: Whether the connection itself is gone (a reconnect may help).
        message: The whole message, when the default wording does not fit.
    """

    def __init__(
        self,
        server_name: str,
        target: str,
        reason: str,
        *,
        lost: bool = False,
        message: str | None = None,
    ) -> None:
        self.server_name = server_name
        self.target = target
        self.reason = reason
        self.lost = lost
        super().__init__(
            message or f"Failed to {_doing(target)} MCP server '{server_name}': {reason}"
        )


_DOING = {
    "prompt": "get prompt '{}' from",
    "resource": "read resource '{}' from",
    "method": "send '{}' to",
}


def _doing(target: str) -> str:
    kind, colon, name = target.partition(":")
    return _DOING[kind].format(name) if colon and kind in _DOING else f"call tool '{target}' on"


@dataclass(frozen=True)
class Diagnosis:
    """What a failure means for the caller: `lost` (reconnect first), `unprocessed` (the
    server certainly did not act, so resending is safe), `supported` (versions named by -32022)."""

    reason: str
    lost: bool
    unprocessed: bool = False
    supported: tuple[str, ...] = ()


def exception_chain(error: BaseException) -> list[BaseException]:
    """`error`, the members of groups and the causes and contexts, breadth first (bounded)."""
    seen: list[BaseException] = []
    pending: list[BaseException] = [error]
    while pending and len(seen) < 32:  # bounded: causes and groups can nest
        current = pending.pop(0)
        if current in seen:
            continue
        seen.append(current)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)
    return seen


def diagnose(error: BaseException, timeout: float | None, *, connecting: bool = False) -> Diagnosis:
    """Describe a failed request in a few words and say whether the connection is gone.

    While `connecting`, an HTTP failure is told as the Agents SDK tells it (the status with its
    reason phrase, "Could not reach the server.", "Connection timeout.", "Request failed."):
    an HTTP library's own message may hold the URL, and with it a credential."""
    for item in exception_chain(error):
        name = type(item).__name__
        if connecting:
            http = _connect_failure(item)
            if http is not None:
                return http
        code = getattr(getattr(item, "error", None), "code", getattr(item, "code", None))
        text = str(item)
        if name == "MCPError" and code == _REQUEST_TIMEOUT and _timed_out_here(text):
            limit = f" within {timeout:g} seconds" if timeout else ""
            return Diagnosis(f"no answer{limit} (timed out)", lost=False)
        if name == "MCPError" and code == _INVALID_REQUEST and "session not found" in text.lower():
            return Diagnosis("session expired (HTTP 404)", lost=True, unprocessed=True)
        if name == "MCPError" and code == _UNSUPPORTED_VERSION:
            return _refused_version(item)
        if name == "MCPError" and code == _CONNECTION_CLOSED and _client_made(text):
            return Diagnosis(f"connection lost ({text})", lost=True)
        if name == "HTTPStatusError":
            status = getattr(getattr(item, "response", None), "status_code", None)
            return Diagnosis(f"HTTP error {status}", lost=status in (404, 502, 503))
        if name in LOST_TYPES:
            return Diagnosis(f"connection lost ({name}{': ' + text if text else ''})", lost=True)
        if isinstance(item, TimeoutError):
            return Diagnosis("timed out", lost=False)
    text = str(error) or type(error).__name__
    return Diagnosis(text, lost=False)


def _connect_failure(error: BaseException) -> Diagnosis | None:
    """An HTTP client's failure to open a connection, in the Agents SDK's words (None: `error`
    is not one). Told by the class names of httpx's hierarchy, so httpx is not imported."""
    if not type(error).__module__.startswith("httpx"):
        return None
    kinds = {kind.__name__ for kind in type(error).__mro__}
    if "HTTPStatusError" in kinds:
        response = getattr(error, "response", None)
        status = getattr(response, "status_code", None)
        phrase = getattr(response, "reason_phrase", "")
        return Diagnosis(f"HTTP error {status} ({phrase})", lost=True)
    for kind, reason in (
        ("ConnectError", "Could not reach the server."),
        ("TimeoutException", "Connection timeout."),
        ("RequestError", "Request failed."),
    ):
        if kind in kinds:
            return Diagnosis(reason, lost=True)
    return None


def _timed_out_here(message: str) -> bool:
    """Whether a -32001 error is the `mcp` client's own timeout, not a server's error."""
    return message.startswith("Request ") and message.endswith(" timed out")


def _client_made(message: str) -> bool:
    """Whether a -32000 error is the `mcp` client's own word that the connection or the
    request's stream ended: a server may answer -32000 too (the code opens the range JSON-RPC
    leaves to servers), and its error says nothing of the connection."""
    return message == "Connection closed" or message.startswith("SSE stream ")


def _refused_version(error: BaseException) -> Diagnosis:
    """A -32022 answer: which version was refused and which ones the server offers."""
    data = getattr(getattr(error, "error", None), "data", None)
    offered = data.get("supported") if isinstance(data, dict) else None
    supported = tuple(item for item in offered or () if isinstance(item, str))
    asked = data.get("requested") if isinstance(data, dict) else None
    refused = f"protocol version {asked} refused" if asked else "protocol version refused"
    offers = f"; it supports {', '.join(supported)}" if supported else ""
    return Diagnosis(f"{refused}{offers}", lost=False, supported=supported)
