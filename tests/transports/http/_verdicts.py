"""What the HTTP endpoint must answer to one malformed request, checked on a raw `Reply`.

The JSON-RPC oracle of the stdio fuzz (`tests/fuzz/wire.expect`) says which reply a message
is owed; over HTTP the same reply comes as a 200 (JSON or an SSE event), or as the body of a
400 when the message is invalid before any session sees it (the transport spec allows an
HTTP error status for input the server cannot accept). A message owed nothing is a 202.
Two HTTP-only rules on top: an empty body is a parse error (stdio skips blank lines), and a
batch is refused (400, -32600) since MCP 2025-06-18 dropped them.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fuzz.wire import INVALID_REQUEST, PARSE_ERROR, expect, key
from tests.transports.http._live import Reply

TOOLS = frozenset({"add", "drip"})  # _fuzz_server.py's tools


def describe(request: bytes, reply: Reply) -> str:
    return f"request {request[:300]!r} -> {reply.status} {reply.headers} {reply.body[:300]!r}"


def assert_error_body(
    reply: Reply, code: int, request_id: Any = None, *, context: str = ""
) -> dict[str, Any]:
    """The body is one JSON-RPC error response with this id and code, and a message."""
    assert reply.headers.get("content-type", "").startswith("application/json"), context
    message = reply.json()
    assert message.get("jsonrpc") == "2.0", context
    assert key(message.get("id")) == key(request_id), context
    error = message.get("error")
    assert isinstance(error, dict), context
    assert error.get("code") == code, context
    assert isinstance(error.get("message"), str) and error["message"].strip(), context
    return message


def assert_refused(
    reply: Reply, status: int, code: int = INVALID_REQUEST, *, context: str = ""
) -> str:
    """An HTTP error status with a JSON-RPC error body (id null); returns its message."""
    assert reply.status == status, context
    return str(assert_error_body(reply, code, context=context)["error"]["message"])


# uvicorn's whole answer when its HTTP parser refuses a request head before the app sees it.
# httptools (llhttp) refuses more than h11 does: a method it does not know, a control byte in a
# header value, Content-Length beside Transfer-Encoding.
PARSER_REFUSAL = b"Invalid HTTP request received."


def assert_refused_or_unparsed(reply: Reply, status: int, *, context: str = "") -> None:
    """As `assert_refused`, or a 400 from uvicorn's parser for a head it would not parse."""
    if reply.status == 400 and reply.body == PARSER_REFUSAL:
        return
    assert_refused(reply, status, context=context)


def _is_batch(body: bytes) -> bool:
    try:
        return isinstance(json.loads(body.decode("utf-8").removeprefix("\ufeff")), list)
    except (ValueError, RecursionError):
        return False


def check_body(body: bytes, reply: Reply) -> None:
    """`reply` is what the endpoint owes a POST of `body` (headers all valid).

    Raises:
        tests.fuzz.wire.Ambiguous: The specs leave the answer open (callers skip it).
    """
    context = describe(body, reply)
    assert reply.status < 500, context
    if not body.strip():
        assert_refused(reply, 400, PARSE_ERROR, context=context)
        return
    if _is_batch(body):
        assert "batch" in assert_refused(reply, 400, INVALID_REQUEST, context=context)
        return
    owed = expect(body, TOOLS)
    if not owed:
        assert reply.status == 202 and not reply.body, context
        return
    [(request_key, code)] = owed
    if request_key is None:
        assert code is not None
        assert_refused(reply, 400, code, context=context)
        return
    assert reply.status in (200, 400), context
    if reply.status == 400:
        assert code is not None, context
        assert_error_body(reply, code, request_key[1], context=context)
        return
    answers = [m for m in reply.messages() if "id" in m and key(m["id"]) == request_key]
    assert len(answers) == 1, context
    if code is None:
        assert isinstance(answers[0].get("result"), dict), context
    else:
        assert answers[0].get("error", {}).get("code") == code, context


def server_failures(log: str) -> list[str]:
    """Lines of a server log that betray an unhandled error (a 500, seen or not)."""
    markers = ("Traceback", "Exception in ASGI application", "Internal Server Error")
    return [line for line in log.splitlines() if any(m in line for m in markers)]
