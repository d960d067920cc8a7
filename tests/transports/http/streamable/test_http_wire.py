"""Streamable HTTP (handshake era) on the wire: raw requests against a real uvicorn, asserting
status codes, headers and bodies byte for byte."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from tests._jsonrpc import initialize_request, tool_call_request
from tests.transports.http._http_harness import serving
from tests.transports.http._sessions import open_session

from toolwire import Server, ToolContext

ACCEPT_BOTH = "application/json, text/event-stream"
HEADERS = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
INIT = initialize_request(client="raw")
CALL_ADD = tool_call_request("add", {"a": 2, "b": 3})
ADD_RESULT = (
    b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"5"}],'
    b'"structuredContent":{"result":5},"isError":false}}'
)


def error(message: str, code: int = -32600) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}},
        separators=(",", ":"),
    ).encode()


def make_server() -> Server:
    server = Server("wire", version="1.0")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def reconnect(ctx: ToolContext[Any]) -> str:
        """End this call's SSE stream, then answer (the client resumes to get it)."""
        await ctx.close_sse_stream()
        await asyncio.sleep(0.2)
        return "answered after the stream closed"

    @server.tool
    async def reconnect_late(ctx: ToolContext[Any]) -> str:
        """Report progress, then end the open SSE stream mid-call, then answer."""
        await ctx.report_progress(1, 2)
        await asyncio.sleep(0.3)
        await ctx.close_sse_stream()
        await ctx.report_progress(2, 2)
        return "late answer"

    @server.tool
    def grow() -> str:
        """Publish one more tool (the GET stream hears of it)."""
        server.add_tool(lambda: "x", name="extra", description="An extra tool.")
        return "grown"

    return server


@pytest.fixture
def client() -> Iterator[httpx2.Client]:
    with serving(make_server().http_app()) as base, httpx2.Client(base_url=base, timeout=10) as c:
        yield c


def initialize(client: httpx2.Client, version: str = "2025-11-25") -> str:
    opened = open_session(client, HEADERS, initialize_request(client="raw", version=version))
    return opened["mcp-session-id"]


def resume(client: httpx2.Client, session_id: str, last_event_id: str) -> httpx2.Response:
    """GET the session's stream from after `last_event_id` (a resumption, as a client does)."""
    headers = {"accept": "text/event-stream", "mcp-session-id": session_id}
    return client.get("/mcp", headers={**headers, "last-event-id": last_event_id})


def sse_events(body: bytes) -> list[dict[str, str]]:
    events = []
    for block in body.decode().split("\n\n"):
        if not block:
            continue
        event: dict[str, str] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            event[name] = value if name not in event else event[name] + "\n" + value
        events.append(event)
    return events


def test_initialize_answers_on_sse_with_a_session_id(client: httpx2.Client) -> None:
    reply = client.post("/mcp", json=INIT, headers=HEADERS)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/event-stream"
    session_id = reply.headers["mcp-session-id"]
    assert len(session_id) == 32 and all(33 <= ord(c) <= 126 for c in session_id)
    assert reply.content == (
        b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{"tools":{"listChanged":true},"logging":{},'
        b'"resources":{"listChanged":true,"subscribe":true},'
        b'"prompts":{"listChanged":true},"completions":{}},'
        b'"serverInfo":{"name":"wire","version":"1.0"}}}\n\n'
    )


def test_a_call_streams_a_priming_event_then_its_result(client: httpx2.Client) -> None:
    session_id = initialize(client)
    reply = client.post(
        "/mcp",
        json=CALL_ADD,
        headers={**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"},
    )
    assert reply.status_code == 200
    assert reply.headers["mcp-session-id"] == session_id
    priming, result = sse_events(reply.content)
    assert priming == {"id": priming["id"], "retry": "1000", "data": ""}
    assert result["event"] == "message" and result["data"].encode() == ADD_RESULT
    assert result["id"] != priming["id"]


def test_clients_before_2025_11_25_get_no_priming_event(client: httpx2.Client) -> None:
    session_id = initialize(client, "2025-06-18")
    reply = client.post(
        "/mcp",
        json=CALL_ADD,
        headers={**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-06-18"},
    )
    (result,) = sse_events(reply.content)
    assert result["data"].encode() == ADD_RESULT


@pytest.mark.parametrize(
    ("headers", "body", "status", "expected"),
    [
        pytest.param(
            {"accept": "text/html", "content-type": "application/json"},
            json.dumps(CALL_ADD).encode(),
            406,
            error("Not Acceptable: Client must accept application/json or text/event-stream"),
            id="foreign-accept",
        ),
        pytest.param(
            {"accept": ACCEPT_BOTH, "content-type": "text/plain"},
            json.dumps(CALL_ADD).encode(),
            415,
            error("Unsupported Media Type: Content-Type must be application/json"),
            id="content-type",
        ),
        pytest.param(
            HEADERS,
            b"{not json",
            400,
            error(
                "Parse error: Expecting property name enclosed in double quotes: "
                "line 1 column 2 (char 1)",
                -32700,
            ),
            id="bad-json",
        ),
        pytest.param(
            {**HEADERS, "mcp-session-id": "f" * 32},
            json.dumps(CALL_ADD).encode(),
            404,
            error("Not Found: Session not found or expired"),
            id="unknown-session",
        ),
        pytest.param(
            HEADERS,
            b"[]",
            400,
            error("Invalid Request: batches are not supported"),
            id="batch",
        ),
    ],
)
def test_bad_posts_get_a_4xx_with_a_json_rpc_error(
    client: httpx2.Client, headers: dict[str, str], body: bytes, status: int, expected: bytes
) -> None:
    reply = client.post("/mcp", content=body, headers=headers)
    assert reply.status_code == status
    assert reply.headers["content-type"] == "application/json"
    assert reply.content == expected


def test_a_request_without_a_session_id_is_served_on_its_own(client: httpx2.Client) -> None:
    # OpenAI's hosted MCP clients drop the session id they were given; refusing them (the
    # SDK's 400) leaves their users with no tools. Such a request is served statelessly.
    initialize(client)
    as_json = {**HEADERS, "accept": "application/json", "mcp-protocol-version": "2025-11-25"}
    reply = client.post("/mcp", json=CALL_ADD, headers=as_json)
    assert reply.status_code == 200
    assert "mcp-session-id" not in reply.headers
    assert reply.content == ADD_RESULT
    listed = client.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "tools/list"}, headers=as_json
    )
    assert listed.status_code == 200
    assert [tool["name"] for tool in listed.json()["result"]["tools"]][:2] == ["add", "reconnect"]
    # GET and DELETE name a session or nothing: those still need the id.
    stream = client.get("/mcp", headers={"accept": "text/event-stream"})
    assert (stream.status_code, stream.content) == (400, error("Bad Request: Missing session ID"))


def test_a_body_over_the_limit_is_refused_naming_it() -> None:
    app = make_server().http_app(max_body_bytes=1000)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=10) as c:
        reply = c.post("/mcp", content=b" " * 1001, headers=HEADERS)
        chunked = c.post("/mcp", content=iter([b" " * 600, b" " * 600]), headers=HEADERS)
    expected = error("Payload Too Large: Request body exceeds the limit of 1000 bytes")
    assert (reply.status_code, reply.content) == (413, expected)
    assert (chunked.status_code, chunked.content) == (413, expected)


def test_delete_ends_the_session(client: httpx2.Client) -> None:
    session_id = initialize(client)
    ended = client.delete("/mcp", headers={"mcp-session-id": session_id})
    assert (ended.status_code, ended.content) == (200, b"")
    after = client.post("/mcp", json=CALL_ADD, headers={**HEADERS, "mcp-session-id": session_id})
    assert (after.status_code, after.content) == (
        404,
        error("Not Found: Session not found or expired"),
    )
    again = client.delete("/mcp", headers={"mcp-session-id": session_id})
    assert again.status_code == 404


def test_two_session_ids_are_refused_naming_them(client: httpx2.Client) -> None:
    # The endpoint served the last one, where the official SDK and a balancer routing by
    # the header read the first: the request went to a session the sender did not name.
    mine, other = initialize(client), initialize(client)
    twice = [("mcp-session-id", mine), ("mcp-session-id", other)]
    message = error("Bad Request: the request has 2 Mcp-Session-Id headers; send one")
    posted = client.post("/mcp", json=CALL_ADD, headers=[*HEADERS.items(), *twice])
    got = client.get("/mcp", headers=[("accept", "text/event-stream"), *twice])
    deleted = client.delete("/mcp", headers=twice)
    for reply in (posted, got, deleted):
        assert (reply.status_code, reply.content) == (400, message)
    for session_id in (mine, other):  # neither was touched
        headers = {**HEADERS, "mcp-session-id": session_id}
        assert client.post("/mcp", json=CALL_ADD, headers=headers).status_code == 200


def test_other_methods_get_405_with_allow(client: httpx2.Client) -> None:
    reply = client.put("/mcp", headers=HEADERS)
    assert reply.status_code == 405
    assert reply.headers["allow"] == "GET, POST, DELETE"
    assert reply.content == error("Method Not Allowed")


def test_the_get_stream_carries_list_changed_and_is_one_per_session(
    client: httpx2.Client,
) -> None:
    session_id = initialize(client)
    get_headers = {"accept": "text/event-stream", "mcp-session-id": session_id}
    with client.stream("GET", "/mcp", headers=get_headers) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"] == "text/event-stream"
        second = client.get("/mcp", headers=get_headers)
        assert (second.status_code, second.content) == (
            409,
            error("Conflict: Only one SSE stream is allowed per session"),
        )
        call = {**CALL_ADD, "params": {"name": "grow", "arguments": {}}}
        grown = client.post("/mcp", json=call, headers={**HEADERS, "mcp-session-id": session_id})
        assert grown.status_code == 200
        seen = b""
        lines = stream.iter_bytes()
        for _ in range(20):
            seen += next(lines)
            if b"list_changed" in seen:
                break
    events = sse_events(seen)
    assert events[0] == {"id": events[0]["id"], "retry": "1000", "data": ""}
    assert events[-1]["data"] == (
        '{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}'
    )


def test_a_closed_post_stream_is_resumed_with_last_event_id(client: httpx2.Client) -> None:
    session_id = initialize(client)
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "reconnect"}}
    headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    first = client.post("/mcp", json=call, headers=headers)
    assert first.status_code == 200
    events = sse_events(first.content)
    # The priming event, then the retry hint sent when the tool closed the stream; no result.
    assert events == [{"id": events[0]["id"], "retry": "1000", "data": ""}, {"retry": "1000"}]
    time.sleep(0.4)  # the call answers meanwhile, into the event store
    resumed = resume(client, session_id, events[0]["id"])
    assert resumed.status_code == 200
    (result,) = sse_events(resumed.content)
    assert result["data"] == (
        '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",'
        '"text":"answered after the stream closed"}],"isError":false}}'
    )


def test_resuming_while_the_call_runs_carries_the_rest_live(client: httpx2.Client) -> None:
    session_id = initialize(client)
    call = {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "reconnect"}}
    headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    first = client.post("/mcp", json=call, headers=headers)
    priming = sse_events(first.content)[0]["id"]
    resumed = resume(client, session_id, priming)
    (result,) = sse_events(resumed.content)
    assert json.loads(result["data"])["id"] == 8


def test_another_sessions_event_id_replays_nothing(client: httpx2.Client) -> None:
    owner = initialize(client)
    other = initialize(client)
    headers = {**HEADERS, "mcp-session-id": owner, "mcp-protocol-version": "2025-11-25"}
    first = client.post("/mcp", json=CALL_ADD, headers=headers)
    priming = sse_events(first.content)[0]["id"]
    get_headers = {"accept": "text/event-stream", "mcp-session-id": other, "last-event-id": priming}
    with client.stream("GET", "/mcp", headers=get_headers) as stream:
        assert stream.status_code == 200
        chunk = next(stream.iter_bytes())
    # Only the other session's own standalone stream opened (its priming event), no replay.
    assert b"result" not in chunk
    assert other.encode() in chunk and owner.encode() not in chunk


def test_idle_sessions_expire_and_the_bound_answers_503() -> None:
    app = make_server().http_app(session_idle_timeout=0.2, max_sessions=2)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=10) as c:
        first = initialize(c)
        initialize(c)
        refused = c.post("/mcp", json=INIT, headers=HEADERS)
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "5"
        assert refused.content == error(
            "Service Unavailable: the server holds its maximum of 2 sessions; retry later"
        )
        time.sleep(0.6)
        expired = c.post("/mcp", json=CALL_ADD, headers={**HEADERS, "mcp-session-id": first})
        assert expired.status_code == 404
        assert c.post("/mcp", json=INIT, headers=HEADERS).status_code == 200


def test_stateless_mode_needs_no_session() -> None:
    app = make_server().http_app(stateless=True, json_response=True)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=10) as c:
        versioned = {**HEADERS, "mcp-protocol-version": "2025-11-25"}
        reply = c.post("/mcp", json=CALL_ADD, headers=versioned)
        assert reply.status_code == 200
        assert "mcp-session-id" not in reply.headers
        assert reply.headers["content-type"] == "application/json"
        assert reply.content == ADD_RESULT
        # Without the header the spec says to assume 2025-03-26: no structuredContent then.
        assumed = c.post("/mcp", json=CALL_ADD, headers=HEADERS)
        assert assumed.content == (
            b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"5"}],'
            b'"isError":false}}'
        )
        note = c.post("/mcp", json={"jsonrpc": "2.0", "method": "x"}, headers=HEADERS)
        assert (note.status_code, note.content) == (202, b"")
        for method in ("GET", "DELETE"):
            refused = c.request(method, "/mcp", headers={"accept": "text/event-stream"})
            assert refused.status_code == 405
            assert refused.headers["allow"] == "POST"


def test_json_response_mode_answers_one_json_body() -> None:
    app = make_server().http_app(json_response=True)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=10) as c:
        headers = {"accept": "application/json", "content-type": "application/json"}
        reply = c.post("/mcp", json=INIT, headers=headers)
        assert reply.headers["content-type"] == "application/json"
        session_id = reply.headers["mcp-session-id"]
        call = c.post("/mcp", json=CALL_ADD, headers={**headers, "mcp-session-id": session_id})
        assert (call.status_code, call.content) == (200, ADD_RESULT)


def test_a_request_id_already_in_flight_is_refused(client: httpx2.Client) -> None:
    session_id = initialize(client)
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "reconnect"}}
    headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    first = client.post("/mcp", json=call, headers=headers)  # cut early: the call runs on
    assert first.status_code == 200
    again = client.post("/mcp", json=call, headers=headers)
    assert (again.status_code, again.content) == (
        409,
        error("Conflict: request id 9 is already in flight in this session"),
    )


def test_an_unsupported_protocol_version_is_a_400(client: httpx2.Client) -> None:
    session_id = initialize(client)
    headers = {"accept": "text/event-stream", "mcp-session-id": session_id}
    got = client.get("/mcp", headers={**headers, "mcp-protocol-version": "2099-01-01"})
    assert (got.status_code, got.content) == (
        400,
        error(
            "Bad Request: Unsupported protocol version: 2099-01-01. Supported versions: "
            "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25"
        ),
    )
    # A POST naming a version outside the handshake era belongs to the 2026-07-28 era
    # (modern.py), which refuses it in its own words; a 400 with a JSON-RPC error either way.
    posted = client.post(
        "/mcp", json=CALL_ADD, headers={**HEADERS, "mcp-protocol-version": "2099-01-01"}
    )
    assert posted.status_code == 400
    assert json.loads(posted.content)["error"]["code"] < 0


def test_a_silent_get_stream_gets_keepalive_comments() -> None:
    app = make_server().http_app(keepalive_seconds=0.1)
    with serving(app) as base, httpx2.Client(base_url=base, timeout=10) as c:
        session_id = initialize(c)
        headers = {"accept": "text/event-stream", "mcp-session-id": session_id}
        seen = b""
        with c.stream("GET", "/mcp", headers=headers) as stream:
            chunks = stream.iter_bytes()
            for _ in range(10):
                seen += next(chunks)
                if seen.count(b": keep-alive\n\n") >= 2:
                    break
    assert seen.endswith(b": keep-alive\n\n: keep-alive\n\n")


def test_a_session_is_found_only_by_the_identity_that_created_it() -> None:
    inner = make_server().http_app()

    async def as_caller(scope: Any, receive: Any, send: Any) -> None:
        # What an auth middleware does: put the authenticated caller in the scope.
        if scope["type"] == "http":
            caller = dict(scope["headers"]).get(b"x-caller")
            scope = {**scope, "toolwire.identity": caller.decode() if caller else None}
        await inner(scope, receive, send)

    with serving(as_caller) as base, httpx2.Client(base_url=base, timeout=10) as c:
        created = c.post("/mcp", json=INIT, headers={**HEADERS, "x-caller": "ada"})
        session_id = created.headers["mcp-session-id"]
        own = {**HEADERS, "mcp-session-id": session_id, "x-caller": "ada"}
        assert c.post("/mcp", json=CALL_ADD, headers=own).status_code == 200
        for caller in ("bob", None):
            foreign = {**HEADERS, "mcp-session-id": session_id}
            if caller:
                foreign["x-caller"] = caller
            refused = c.post("/mcp", json=CALL_ADD, headers=foreign)
            assert (refused.status_code, refused.content) == (
                404,
                error("Not Found: Session not found or expired"),
            )


def test_a_stream_closed_after_it_started_resumes_from_the_last_event_seen(
    client: httpx2.Client,
) -> None:
    session_id = initialize(client)
    call = {
        "jsonrpc": "2.0",
        "id": 11,
        "method": "tools/call",
        "params": {"name": "reconnect_late", "_meta": {"progressToken": "p"}},
    }
    headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    first = client.post("/mcp", json=call, headers=headers)
    events = sse_events(first.content)
    priming, progress, hint = events
    assert priming["data"] == "" and hint == {"retry": "1000"}
    assert json.loads(progress["data"])["params"]["progress"] == 1
    time.sleep(0.4)
    resumed = resume(client, session_id, progress["id"])
    later = [json.loads(event["data"]) for event in sse_events(resumed.content)]
    assert [message.get("method") for message in later] == ["notifications/progress", None]
    assert later[0]["params"]["progress"] == 2
    assert later[1]["id"] == 11 and later[1]["result"]["content"][0]["text"] == "late answer"


def test_a_body_that_never_completes_gets_408(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from toolwire.transports.http import asgi

    monkeypatch.setattr(asgi, "BODY_SECONDS", 0.3)
    with serving(make_server().http_app()) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(
                b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                b"accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{"
            )
            reply = b""
            for _ in range(50):
                chunk = sock.recv(4096)
                reply += chunk
                if not chunk or b"}}" in reply:
                    break
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert body == error("Request Timeout: the request body did not arrive within 0.3 seconds")


def test_a_session_cannot_hold_unbounded_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.transports.http.streamable import endpoint

    monkeypatch.setattr(endpoint, "MAX_IN_FLIGHT", 1)
    with serving(make_server().http_app()) as base, httpx2.Client(base_url=base, timeout=10) as c:
        session_id = initialize(c)
        headers = {**HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "reconnect"}}
        assert c.post("/mcp", json=call, headers=headers).status_code == 200  # runs on, cut
        refused = c.post("/mcp", json=CALL_ADD, headers=headers)
        assert (refused.status_code, refused.headers["retry-after"]) == (429, "1")
        assert refused.content == error(
            "Too Many Requests: this session already has 1 requests in flight"
        )
        time.sleep(0.4)  # the first call has answered: room again
        assert c.post("/mcp", json=CALL_ADD, headers=headers).status_code == 200


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/json", "application/json"),  # OpenAI's hosted connector, some Claude clients
        (None, "application/json"),
        ("*/*", "application/json"),
        ("text/event-stream", "text/event-stream"),
    ],
)
def test_clients_that_accept_less_still_get_an_answer(
    client: httpx2.Client, accept: str | None, content_type: str
) -> None:
    headers = {"content-type": "application/json"}
    if accept is not None:
        headers["accept"] = accept
    else:
        headers["accept"] = ""  # httpx sends */* unless told otherwise
    reply = client.post("/mcp", json=INIT, headers=headers)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == content_type
    session_id = reply.headers["mcp-session-id"]
    versioned = {**headers, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    called = client.post("/mcp", json=CALL_ADD, headers=versioned)
    assert called.headers["content-type"] == content_type
    if content_type == "application/json":
        assert called.content == ADD_RESULT
    else:
        assert sse_events(called.content)[-1]["data"].encode() == ADD_RESULT
