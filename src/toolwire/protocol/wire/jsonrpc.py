"""JSON-RPC 2.0, whatever the framing: decode one frame, classify it, encode replies. A frame is
strict UTF-8 JSON (a leading BOM tolerated; `NaN` and `Infinity` are parse errors). Ids are strings
or integers of any size, echoed exactly; a message that cannot be served gets -32600 (`id: null`
when it has no usable id), each request of a batch -32600 "Batches are not supported".
`encode_value` writes compact JSON that is always valid UTF-8: values JSON cannot hold (NaN,
Infinity, integers past Python's digit limit) go out as `null`, with a warning."""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "FrameKind",
    "Invalid",
    "Notification",
    "ProtocolError",
    "Request",
    "Response",
    "RoutedSend",
    "classify",
    "decode",
    "encode_value",
    "error_message",
    "notification",
    "result_message",
    "result_message_raw",
    "sniff_request_id",
    "valid_id",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_PROTOCOL_VERSION = -32022

RequestId = str | int


class FrameKind(Enum):
    """What an outgoing frame is, so that a transport can route it without reading it."""

    REPLY = "reply"  # the result or error answering a request: the last frame it gets
    NOTICE = "notice"  # a notification belonging to a request (progress, a log, a listen)
    QUESTION = "question"  # the server's own request to the client, made during a request
    BROADCAST = "broadcast"  # a message for no request in particular (a list changed)


# A routed session's `send`: a frame, its kind, and the request it belongs to.
RoutedSend = Callable[[bytes, FrameKind, "RequestId | None"], Awaitable[None]]


class ProtocolError(Exception):
    """A request that must be answered with a JSON-RPC error (`cause`: the author's
    exception behind it, shown only to a session with error details)."""

    def __init__(
        self, code: int, message: str, data: Any = None, *, cause: BaseException | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.cause = cause

    def message_for(self, details: bool) -> str:
        """The message to send, with the cause when `details` is set."""
        if not details or self.cause is None:
            return self.message
        return f"{self.message}: {type(self.cause).__name__}: {self.cause}"


@dataclass(slots=True)
class Request:
    """A request: it gets exactly one reply (unless the client cancels it)."""

    id: RequestId
    method: str
    params: dict[str, Any] | None


@dataclass(slots=True)
class Notification:
    """A notification: never answered."""

    method: str
    params: dict[str, Any] | None


@dataclass(slots=True)
class Response:
    """A response from the client to a request this server sent (`error` None on success)."""

    id: RequestId
    result: Any
    error: Any


@dataclass(slots=True)
class Invalid:
    """A message that cannot be served; `reply` is the error frame to send, or None."""

    reply: bytes | None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# The encoders used first skip the search for cycles; a cycle then ends in RecursionError,
# and the checking encoder gives the proper ValueError.
_decoder = json.JSONDecoder(parse_constant=_no_constants)
_COMPACT: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":")}
_encoder = json.JSONEncoder(**_COMPACT)
_encode_fast = json.JSONEncoder(**_COMPACT, check_circular=False).encode
# With allow_nan off, for frames: ValueError where the lenient ones write NaN or Infinity.
_wire_encoder = json.JSONEncoder(**_COMPACT, allow_nan=False)
_wire_fast = json.JSONEncoder(**_COMPACT, allow_nan=False, check_circular=False).encode
_ascii_wire = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode

logger = logging.getLogger("toolwire")


def compact_json(value: Any) -> str:
    """Compact JSON text, non-ASCII kept as is (what every frame is written with)."""
    try:
        return _encode_fast(value)
    except RecursionError:  # a cycle (this encoder does not look for them) or too deep
        return _encoder.encode(value)


def wire_json(value: Any) -> str:
    """Compact JSON text that every JSON parser accepts (ValueError for NaN, Infinity, an
    integer past Python's digit limit, or a cycle)."""
    try:
        return _wire_fast(value)
    except RecursionError:
        return _wire_encoder.encode(value)


def _sendable(value: Any, path: list[int]) -> Any:
    """`value` with NaN/Infinity and unprintable integers replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            str(value)
        except ValueError:
            return None
        return value
    if isinstance(value, dict | list | tuple):
        if id(value) in path:
            raise ValueError("Circular reference detected")
        path.append(id(value))
        try:
            if isinstance(value, dict):
                return {key: _sendable(item, path) for key, item in value.items()}
            return [_sendable(item, path) for item in value]
        finally:
            path.pop()
    return value


def decode(frame: bytes) -> Any:
    """Parse one frame as UTF-8 JSON (ValueError when it is not)."""
    text = frame.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return _decoder.decode(text)
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
        limit = sys.get_int_max_str_digits()
        raise ValueError(f"a number has more than {limit} digits") from None


def valid_id(value: Any) -> bool:
    """JSON-RPC ids here are strings or integers (never null, floats, booleans or objects)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


_SPACE = " \t\r\n"


def sniff_request_id(head: bytes) -> RequestId | None:
    """The id of a request of which only the first bytes are known (a frame refused for its
    size), read from whole top-level members only; None when none can be read, or when the
    message shows itself to be a response, which is never answered."""
    text = head.decode("utf-8", "ignore").lstrip(_SPACE + "\ufeff")
    if not text.startswith("{"):
        return None
    found: RequestId | None = None
    pos = 1
    try:
        while True:
            while text[pos] in _SPACE:
                pos += 1
            if text[pos] == "}":
                break
            key, pos = _decoder.raw_decode(text, pos)
            while text[pos] in _SPACE:
                pos += 1
            if not isinstance(key, str) or text[pos] != ":":
                break
            if key in ("result", "error"):
                return None
            pos += 1
            while text[pos] in _SPACE:
                pos += 1
            value, pos = _decoder.raw_decode(text, pos)
            if key == "id" and valid_id(value):
                found = value
            while text[pos] in _SPACE:
                pos += 1
            if text[pos] != ",":
                break
            pos += 1
    except (ValueError, IndexError, RecursionError):  # the head ends inside a member
        pass
    return found


def classify(message: Any) -> Request | Notification | Response | Invalid:
    """Sort one decoded (non-batch) message into its kind."""
    if not isinstance(message, dict):
        return Invalid(error_message(None, INVALID_REQUEST, "Invalid request: not an object"))
    raw_id: Any = message.get("id")
    has_id = "id" in message
    if message.get("jsonrpc") != "2.0":
        reply_id = raw_id if valid_id(raw_id) else None
        if not has_id and isinstance(message.get("method"), str):
            return Invalid(None)  # a malformed notification: nothing may be sent back
        return Invalid(
            error_message(reply_id, INVALID_REQUEST, "Invalid request: 'jsonrpc' must be \"2.0\"")
        )
    method = message.get("method")
    if method is None and has_id and ("result" in message or "error" in message):
        if not valid_id(raw_id):
            return Invalid(None)  # cannot be ours; and a response is never answered
        return Response(raw_id, message.get("result"), message.get("error"))
    if not has_id:
        if not isinstance(method, str):
            if "result" in message or "error" in message:
                return Invalid(None)  # a malformed response: answering could start a loop
            # Neither a request nor a notification: JSON-RPC 2.0 answers it with id null.
            return Invalid(
                error_message(None, INVALID_REQUEST, "Invalid request: 'method' must be a string")
            )
        # A notification: JSON-RPC forbids replying to it.
        params = message.get("params")
        return Notification(method, params if isinstance(params, dict) else None)
    if not valid_id(raw_id):
        return Invalid(
            error_message(
                None, INVALID_REQUEST, "Invalid request: 'id' must be a string or an integer"
            )
        )
    if not isinstance(method, str):
        return Invalid(
            error_message(raw_id, INVALID_REQUEST, "Invalid request: 'method' must be a string")
        )
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return Invalid(
            error_message(raw_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
        )
    return Request(raw_id, method, params)


def batch_replies(batch: list[Any]) -> list[bytes]:
    """The error frames for a batch (see the module docstring)."""
    text = "Batches are not supported"
    replies = []
    junk = not batch
    for element in batch:
        if not isinstance(element, dict):
            junk = True
            continue
        element_id = element.get("id")
        if "id" not in element or "method" not in element:
            junk = junk or (not isinstance(element.get("method"), str) and "id" not in element)
            continue  # a notification or a response: never answered
        if valid_id(element_id):
            replies.append(error_message(element_id, INVALID_REQUEST, text))
        else:
            junk = True
    if junk:
        replies.append(error_message(None, INVALID_REQUEST, text))
    return replies


def _id_bytes(request_id: RequestId | None) -> bytes:
    if request_id is None:
        return b"null"
    if isinstance(request_id, int):
        return str(request_id).encode("ascii")
    try:
        return wire_json(request_id).encode("utf-8")
    except UnicodeEncodeError:  # echoed as the client spelled it, so it still matches
        return _ascii_wire(request_id).encode("ascii")


def encode_value(value: Any) -> bytes:
    """One JSON value, compact, always valid UTF-8 and always valid JSON.

    A lone surrogate (a file name's undecodable byte, a slice through an emoji) becomes U+FFFD:
    escaped as `\\udcXX` it is JSON no strict parser accepts, and the peer would drop the frame.
    """
    try:
        text = wire_json(value)
    except ValueError as error:
        value = _sendable(value, [])
        text = wire_json(value)  # a cycle or an unknown type raises again
        logger.warning("a message held a value JSON cannot carry (%s); it was sent as null", error)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # pairs are joined, a lone surrogate becomes U+FFFD
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


def result_message(request_id: RequestId, result: dict[str, Any]) -> bytes:
    """A success response."""
    return result_message_raw(request_id, encode_value(result))


def result_message_raw(request_id: RequestId, result_json: bytes) -> bytes:
    """A success response around an already-encoded result."""
    return b'{"jsonrpc":"2.0","id":' + _id_bytes(request_id) + b',"result":' + result_json + b"}"


def error_message(request_id: RequestId | None, code: int, message: str, data: Any = None) -> bytes:
    """An error response (`data` omitted when None)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return (
        b'{"jsonrpc":"2.0","id":'
        + _id_bytes(request_id)
        + b',"error":'
        + encode_value(error)
        + b"}"
    )


def notification(method: str, params: dict[str, Any]) -> bytes:
    """A notification frame."""
    return encode_value({"jsonrpc": "2.0", "method": method, "params": params})
