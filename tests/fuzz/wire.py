"""A line-oriented stdio harness and a JSON-RPC oracle for the fuzz tests.

`Wire` runs one server process, drains its stdout on a thread (so a large write never
deadlocks against a full pipe) and checks every line it ever printed. `expect()` is the
oracle: what a handshake-era, initialized MCP server must answer to one frame, following
JSON-RPC 2.0 and MCP plus toolwire's documented decisions (batches: see `_batch` and
`toolwire.protocol.wire.jsonrpc`). Frames whose correct answer the specs leave open
raise `Ambiguous`; the generators steer clear of them.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

HANDSHAKE_METHODS = {
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
    "prompts/list",
    "prompts/get",
    "completion/complete",
}
# The resource methods (the server under test may publish resources or not).
RESOURCE_METHODS = {
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
}
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion"

# (type name, id) so that True never equals 1; `None` for id null.
Key = tuple[str, Any] | None
# What one reply must be: (id key, error code or None for a result).
Expectation = tuple[Key, int | None]


class Ambiguous(Exception):
    """The specs allow more than one answer to this frame."""


def key(value: Any) -> Key:
    return None if value is None else (type(value).__name__, value)


def valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _no_constants(name: str) -> Any:
    raise ValueError(name)


def expect(frame: bytes, tools: frozenset[str]) -> list[Expectation]:
    """The replies an initialized handshake-era server owes for `frame`, in order."""
    line = frame.strip()
    if not line:
        return []
    try:
        text = line.decode("utf-8")
        text = text.removeprefix("\ufeff")
        message = json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return [(None, PARSE_ERROR)]
    if isinstance(message, list):
        return _batch(message)
    return _single(message, tools)


def _batch(batch: list[Any]) -> list[Expectation]:
    """toolwire answers batches (MCP dropped them after 2025-03-26) rather than leaving a
    client waiting: one -32600 per request in it, with its id; then, if the array is empty or
    holds anything that is neither a request, a notification nor a response, one more
    -32600 with id null."""
    replies: list[Expectation] = []
    junk = not batch
    for element in batch:
        if not isinstance(element, dict):
            junk = True
            continue
        if "id" not in element or "method" not in element:
            if "id" not in element and not isinstance(element.get("method"), str):
                junk = True
            continue  # a notification or a response
        if valid_id(element["id"]):
            replies.append((key(element["id"]), INVALID_REQUEST))
        else:
            junk = True
    if junk:
        replies.append((None, INVALID_REQUEST))
    return replies


def _single(message: Any, tools: frozenset[str]) -> list[Expectation]:
    if not isinstance(message, dict):
        return [(None, INVALID_REQUEST)]
    has_id = "id" in message
    raw_id = message.get("id")
    method = message.get("method")
    if message.get("jsonrpc") != "2.0":
        if not has_id and isinstance(method, str):
            raise Ambiguous("a notification with a wrong 'jsonrpc': invalid, but unanswerable?")
        return [(key(raw_id) if valid_id(raw_id) else None, INVALID_REQUEST)]
    if method is None and has_id and ("result" in message or "error" in message):
        return []  # a response; the server sent no request to match it with
    if not has_id:
        if isinstance(method, str):
            # A notification (a cancel included: the fuzz never has a call in flight then).
            return []
        if "result" in message or "error" in message:
            return []  # a malformed response: never answered (two peers could loop)
        return [(None, INVALID_REQUEST)]  # JSON-RPC 2.0 section 5.1: id null
    if not valid_id(raw_id):
        return [(None, INVALID_REQUEST)]
    if not isinstance(method, str):
        return [(key(raw_id), INVALID_REQUEST)]
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return [(key(raw_id), INVALID_PARAMS)]
    return [(key(raw_id), _request(method, params, tools))]


def _request(method: str, params: dict[str, Any] | None, tools: frozenset[str]) -> int | None:
    meta = params.get("_meta") if params else None
    if method != "initialize" and isinstance(meta, dict) and ENVELOPE_KEY in meta:
        return INVALID_REQUEST  # the modern envelope on a handshake-era connection
    if method in RESOURCE_METHODS:
        return _resource_request(method, params or {})
    if method not in HANDSHAKE_METHODS:
        return METHOD_NOT_FOUND
    params = params or {}
    if method == "initialize":
        raise Ambiguous("a second initialize")
    if method == "ping":
        return None
    if method == "logging/setLevel":
        return None if params.get("level") in LOG_LEVELS else INVALID_PARAMS
    if method == "prompts/get" or (
        method == "completion/complete"
        and not (
            isinstance(params.get("ref"), dict) and params["ref"].get("type") == "ref/resource"
        )
    ):
        return INVALID_PARAMS  # the fuzzed servers publish no prompt: every name is unknown
    if method == "completion/complete":
        raise Ambiguous("completion of a resource template parameter")
    if method in ("tools/list", "prompts/list"):
        return _listing(params)
    # tools/call: every malformed field, and an unknown tool, is -32602.
    name = params.get("name")
    arguments = params.get("arguments")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if (
        not isinstance(name, str)
        or (arguments is not None and not isinstance(arguments, dict))
        or (meta is not None and not isinstance(meta, dict))
        or (token is not None and not valid_id(token))
        or name not in tools
    ):
        return INVALID_PARAMS
    raise Ambiguous("a real tool call (answered asynchronously)")


def _listing(params: dict[str, Any]) -> int | None:
    """A list request: served without a cursor, -32602 with a cursor that is not a string;
    a string cursor may or may not be one the server issued."""
    cursor = params.get("cursor")
    if cursor is None:
        return None
    if not isinstance(cursor, str):
        return INVALID_PARAMS
    raise Ambiguous("an arbitrary cursor string")


def _resource_request(method: str, params: dict[str, Any]) -> int | None:
    if method.endswith("/list"):
        return _listing(params)
    if not isinstance(params.get("uri"), str):
        return INVALID_PARAMS
    if method == "resources/unsubscribe":
        return None
    raise Ambiguous("whether the server serves that URI")


def check_line(line: bytes) -> dict[str, Any]:
    """One stdout line must be a complete JSON-RPC 2.0 response or notification."""
    text = line.decode("utf-8")  # strict: the wire is always valid UTF-8
    assert text.endswith("\n"), f"unterminated frame {line[:200]!r}"
    message = json.loads(text, parse_constant=_no_constants)
    assert isinstance(message, dict), line[:200]
    assert message.get("jsonrpc") == "2.0", line[:200]
    if "method" in message:
        assert isinstance(message["method"], str) and "id" not in message, line[:200]
        return message
    assert "id" in message, line[:200]
    assert message["id"] is None or valid_id(message["id"]), line[:200]
    assert ("result" in message) != ("error" in message), line[:200]
    if "error" in message:
        error = message["error"]
        assert isinstance(error, dict), line[:200]
        assert isinstance(error.get("code"), int) and not isinstance(error["code"], bool)
        assert isinstance(error.get("message"), str), line[:200]
    else:
        assert isinstance(message["result"], dict), line[:200]
    return message


class Wire:
    """One server process on stdio; every stdout line is kept and checked."""

    def __init__(self, argv: list[str], cwd: Path, stderr: IO[bytes]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, *argv],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.all_lines: list[bytes] = []
        self.frames_sent = 0
        self.async_replies: dict[Any, dict[str, Any]] = {}  # replies to tool calls, by id
        self._sentinels = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.all_lines.append(line)
            self.lines.put(line)

    def send(self, frame: bytes) -> None:
        assert b"\n" not in frame
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame + b"\n")
        self.frames_sent += 1

    def next_message(self, deadline: float) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no reply in time")
        try:
            line = self.lines.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError(f"no reply in time (exit code {self.proc.poll()})") from None
        return check_line(line)

    def exchange(self, frames: list[bytes], timeout: float = 60.0) -> list[dict[str, Any]]:
        """Send frames then a sentinel ping; return the replies before the sentinel's, except
        replies whose id starts with "call-" (tool calls, answered whenever they finish)."""
        for frame in frames:
            self.send(frame)
        self._sentinels += 1
        sentinel = f"sentinel-{self._sentinels}"
        assert self.proc.stdin is not None
        self.proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).encode() + b"\n"
        )
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        replies = []
        while True:
            message = self.next_message(deadline)
            if message.get("id") == sentinel:
                assert message.get("result") == {}, message
                return replies
            if isinstance(message.get("id"), str) and message["id"].startswith("call-"):
                self.async_replies[message["id"]] = message
                continue
            replies.append(message)

    def wait_async(self, ids: set[str], timeout: float = 30.0) -> None:
        """Wait until every tool call in `ids` has been answered."""
        deadline = time.monotonic() + timeout
        while not ids <= set(self.async_replies):
            message = self.next_message(deadline)
            message_id = message.get("id")
            assert isinstance(message_id, str) and message_id.startswith("call-"), message
            self.async_replies[message_id] = message

    def close(self, timeout: float = 15.0) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=timeout)
            raise
        self._reader.join(timeout=timeout)
        return code


def outcome(message: dict[str, Any]) -> Expectation:
    """What a reply is, in the oracle's terms."""
    code = message["error"]["code"] if "error" in message else None
    return key(message["id"]), code
