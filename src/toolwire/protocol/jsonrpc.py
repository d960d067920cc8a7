"""JSON-RPC 2.0 framing-agnostic helpers: error codes, encoding, message shapes."""

from __future__ import annotations

import json
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_PROTOCOL_VERSION = -32022

RequestId = str | int


class ProtocolError(Exception):
    """A request that must be answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def encode(message: dict[str, Any]) -> bytes:
    """One message as compact UTF-8 JSON (no trailing newline)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def result_message(request_id: RequestId, result: dict[str, Any]) -> bytes:
    return encode({"jsonrpc": "2.0", "id": request_id, "result": result})


def error_message(request_id: RequestId | None, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return encode({"jsonrpc": "2.0", "id": request_id, "error": error})


def notification(method: str, params: dict[str, Any]) -> bytes:
    return encode({"jsonrpc": "2.0", "method": method, "params": params})


def valid_id(value: Any) -> bool:
    """JSON-RPC ids are strings or integers here (null, floats, bools and objects are refused)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
