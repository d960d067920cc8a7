"""2026-07-28 requests over real HTTP, raw: statuses, headers and bodies, byte for byte where
the SDK's wording is the contract (the differential test compares with the SDK itself)."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from tests.transports.http._modern_support import (
    META,
    Served,
    abandon_a_nap,
    body,
    build_server,
    enveloped,
    headers_for,
    modern_only_app,
    raw_post,
    sse_frames,
)

from toolwire.protocol.wire.eras import is_modern_request

MISMATCH = -32020


# The real endpoint (`Server.http_app`), in both session modes: a 2026-07-28 request is
# served the same way whatever the handshake era's settings; and the bare `serve_modern`
# behind the smallest ASGI app, which shows that nothing else is needed.
APPS = {
    "endpoint": lambda server: server.http_app(),
    "stateless": lambda server: server.http_app(stateless=True),
    "bare": modern_only_app,
}


@pytest.fixture(scope="module", params=sorted(APPS))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Served, dict[str, int]]]:
    server, counts = build_server()
    with Served(APPS[request.param](server)) as running:
        yield running, counts


@pytest.fixture(scope="module", params=["endpoint", "bare"])
def served_json(request: pytest.FixtureRequest) -> Iterator[Served]:
    server, _ = build_server()
    app = (
        server.http_app(json_response=True)
        if request.param == "endpoint"
        else modern_only_app(server, json_response=True)
    )
    with Served(app) as running:
        yield running


@pytest.fixture
def url(served: tuple[Served, dict[str, int]]) -> str:
    return served[0].url


def post(
    url: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    request_id: Any = 1,
    drop: tuple[str, ...] = (),
    **headers: str,
) -> httpx.Response:
    sent = headers_for(method, params, **headers)
    for name in drop:
        sent.pop(name)
    return httpx.post(url, headers=sent, content=body(method, params, request_id), timeout=20)


def error_of(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"] == "application/json"
    payload = response.json()
    assert payload["jsonrpc"] == "2.0"
    return payload["error"]  # type: ignore[no-any-return]


# --- answers -----------------------------------------------------------------------------


def test_discover_is_one_json_answer(url: str) -> None:
    response = post(url, "server/discover", enveloped())
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert int(response.headers["content-length"]) == len(response.content)
    result = response.json()["result"]
    assert result["supportedVersions"] == ["2026-07-28"]
    assert result["capabilities"] == {
        "tools": {"listChanged": True},
        "logging": {},
        "resources": {"listChanged": True, "subscribe": True},
        "prompts": {"listChanged": True},
        "completions": {},
    }
    assert result["instructions"] == "Use the tools."
    assert (result["ttlMs"], result["cacheScope"], result["resultType"]) == (
        0,
        "private",
        "complete",
    )
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {
        "name": "modern-test",
        "version": "1.2.3",
    }
    assert "mcp-session-id" not in response.headers


def test_tools_list_carries_the_caching_hints(url: str) -> None:
    response = post(url, "tools/list", enveloped(), request_id="list-1")
    assert response.status_code == 200
    payload = response.json()
    assert payload["id"] == "list-1"
    assert payload["result"]["ttlMs"] == 0
    assert payload["result"]["cacheScope"] == "private"
    assert {tool["name"] for tool in payload["result"]["tools"]} >= {"add", "progress", "where"}


def test_a_quick_call_is_answered_as_json(url: str) -> None:
    params = enveloped(name="add", arguments={"a": 2, "b": 3})
    response = post(url, "tools/call", params)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["structuredContent"] == {"result": 5}
    assert result["isError"] is False
    assert result["resultType"] == "complete"


def test_progress_turns_the_answer_into_an_event_stream(url: str) -> None:
    params = enveloped(name="progress", arguments={"steps": 2}, _meta={"progressToken": "p1"})
    response = post(url, "tools/call", params, request_id=9)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["cache-control"] == "no-cache, no-transform"
    assert response.headers["x-accel-buffering"] == "no"
    frames = sse_frames(response.text)
    assert [frame.get("method") for frame in frames] == [
        "notifications/progress",
        "notifications/progress",
        None,
    ]
    assert frames[0]["params"] == {
        "progressToken": "p1",
        "progress": 1,
        "total": 2,
        "message": "step 1/2",
    }
    assert frames[2]["id"] == 9
    assert frames[2]["result"]["content"] == [{"type": "text", "text": "done 2"}]


def test_logs_flow_only_when_the_envelope_asks_for_them(url: str) -> None:
    quiet = post(url, "tools/call", enveloped(name="chatty", arguments={}))
    assert quiet.headers["content-type"] == "application/json"
    assert quiet.json()["result"]["content"][0]["text"] == "logged"

    asked = enveloped(
        name="chatty", arguments={}, _meta={"io.modelcontextprotocol/logLevel": "info"}
    )
    loud = post(url, "tools/call", asked)
    frames = sse_frames(loud.text)
    assert frames[0] == {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "hello from the tool"},
    }
    assert frames[1]["result"]["content"][0]["text"] == "logged"


def test_json_response_mode_drops_notifications(served_json: Served) -> None:
    params = enveloped(name="progress", arguments={"steps": 3}, _meta={"progressToken": 1})
    response = post(served_json.url, "tools/call", params)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json()["result"]["content"][0]["text"] == "done 3"


def test_json_response_mode_needs_only_json_in_accept(served_json: Served) -> None:
    response = post(served_json.url, "tools/list", enveloped(), Accept="application/json")
    assert response.status_code == 200


def test_a_notification_is_accepted_without_a_body(url: str) -> None:
    params = enveloped(requestId=4)
    response = post(url, "notifications/cancelled", params, request_id=None)
    assert response.status_code == 202
    assert response.content == b""


# --- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "method", "headers", "drop", "message"),
    [
        ("missing Mcp-Method", "tools/list", {}, ("Mcp-Method",), "method"),
        ("other Mcp-Method", "tools/list", {"Mcp-Method": "prompts/list"}, (), "method"),
        ("Mcp-Method case", "tools/list", {"Mcp-Method": "TOOLS/LIST"}, (), "method"),
        ("missing Mcp-Name", "tools/call", {}, ("Mcp-Name",), "name"),
        ("other Mcp-Name", "tools/call", {"Mcp-Name": "subtract"}, (), "name"),
        ("bad sentinel Mcp-Name", "tools/call", {"Mcp-Name": "=?base64?YWR!?="}, (), "name"),
        ("other version", "tools/list", {"MCP-Protocol-Version": "2099-01-01"}, (), "version"),
        ("no version header", "tools/list", {}, ("MCP-Protocol-Version",), "version"),
    ],
)
def test_headers_that_disagree_with_the_body_are_refused(
    url: str, case: str, method: str, headers: dict[str, str], drop: tuple[str, ...], message: str
) -> None:
    params = (
        enveloped(name="add", arguments={"a": 1, "b": 2}) if method == "tools/call" else enveloped()
    )
    response = post(url, method, params, request_id=case, drop=drop, **headers)
    assert response.status_code == 400
    assert response.json()["id"] == case
    expected = {
        "method": "mcp-method header does not match the request body's method",
        "name": "mcp-name header does not match the request body's 'name' parameter",
        "version": "mcp-protocol-version header does not match the request envelope's "
        "protocol version",
    }[message]
    assert error_of(response) == {"code": MISMATCH, "message": expected}


def test_mcp_name_may_be_base64_and_header_names_any_case(url: str) -> None:
    params = enveloped(name="add", arguments={"a": 1, "b": 2})
    encoded = "=?base64?" + base64.b64encode(b"add").decode() + "?="
    sent = headers_for("tools/call", params)
    del sent["Mcp-Name"], sent["Mcp-Method"]
    sent["mcp-name"] = encoded
    sent["MCP-METHOD"] = "tools/call"
    response = httpx.post(url, headers=sent, content=body("tools/call", params), timeout=20)
    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"] == {"result": 3}


def test_whitespace_around_a_header_value_is_not_part_of_it(
    served: tuple[Served, dict[str, int]],
) -> None:
    params = enveloped(name="add", arguments={"a": 1, "b": 2})
    headers = [(name, value) for name, value in headers_for("tools/call", params).items()]
    headers = [(n, "  add  " if n == "Mcp-Name" else v) for n, v in headers]
    status, payload = raw_post(served[0].base, "/mcp", headers, body("tools/call", params))
    assert status == 200
    assert json.loads(payload)["result"]["structuredContent"] == {"result": 3}


@pytest.mark.parametrize(
    ("arguments", "headers", "message"),
    [
        (
            {"region": "eu"},
            {},
            "Mcp-Param-Region header is missing but the request body's 'region' argument is present",
        ),
        (
            {"region": "eu"},
            {"Mcp-Param-Region": "us"},
            "Mcp-Param-Region header does not match the request body's 'region' argument",
        ),
        (
            {"region": "Hello"},
            {"Mcp-Param-Region": "=?base64?SGVsbG8?="},
            "Mcp-Param-Region header carries a malformed base64 sentinel value",
        ),
        (
            {"region": "Hello"},
            {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="},
            "Mcp-Param-Region header carries a malformed base64 sentinel value",
        ),
        (
            {"region": "eu"},
            {"Mcp-Param-Region": "eu", "Mcp-Param-Count": "5"},
            "Mcp-Param-Count header is present but the request body's 'count' argument is absent",
        ),
        (
            {"region": "eu", "count": 5},
            {"Mcp-Param-Region": "eu", "Mcp-Param-Count": "6"},
            "Mcp-Param-Count header does not match the request body's 'count' argument",
        ),
        (
            {"region": "eu", "flag": True},
            {"Mcp-Param-Region": "eu", "Mcp-Param-Flag": "True"},
            "Mcp-Param-Flag header does not match the request body's 'flag' argument",
        ),
    ],
)
def test_mirrored_arguments_must_match_their_headers(
    url: str, arguments: dict[str, Any], headers: dict[str, str], message: str
) -> None:
    response = post(url, "tools/call", enveloped(name="where", arguments=arguments), **headers)
    assert response.status_code == 400
    assert error_of(response) == {"code": MISMATCH, "message": message}


@pytest.mark.parametrize(
    ("arguments", "headers", "text"),
    [
        ({"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVsbG8=?="}, "Hello 0 False"),
        (
            {"region": "=?base64?SGVsbG8="},
            {"Mcp-Param-Region": "=?base64?SGVsbG8="},
            "=?base64?SGVsbG8= 0 False",
        ),
        (
            {"region": "eu", "count": 42},
            {"Mcp-Param-Region": "eu", "mcp-param-count": "42.0"},
            "eu 42 False",
        ),
        (
            {"region": "eu", "flag": True},
            {"Mcp-Param-Region": "eu", "Mcp-Param-Flag": "true"},
            "eu 0 True",
        ),
    ],
)
def test_mirrored_arguments_that_match_are_served(
    url: str, arguments: dict[str, Any], headers: dict[str, str], text: str
) -> None:
    response = post(url, "tools/call", enveloped(name="where", arguments=arguments), **headers)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["content"][0]["text"] == text


def test_envelope_problems_are_400_with_32602(url: str) -> None:
    response = post(url, "tools/list", {}, drop=("Mcp-Method",))  # the envelope is judged first
    assert response.status_code == 400
    assert error_of(response) == {
        "code": -32602,
        "message": "params._meta must be an object carrying the required "
        "'io.modelcontextprotocol/protocolVersion' and "
        "'io.modelcontextprotocol/clientCapabilities' envelope keys",
    }
    half = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    response = post(url, "tools/list", half)
    assert response.status_code == 400
    assert error_of(response)["message"] == (
        "params._meta is missing the required envelope key(s): "
        "io.modelcontextprotocol/clientCapabilities"
    )


def test_an_unknown_version_is_400_naming_the_supported_ones(url: str) -> None:
    params = {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "v999.0.0"}}
    response = post(
        url, "server/discover", params, request_id=301, **{"MCP-Protocol-Version": "v999.0.0"}
    )
    assert response.status_code == 400
    assert response.json()["id"] == 301
    assert error_of(response) == {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": ["2026-07-28"], "requested": "v999.0.0"},
    }


@pytest.mark.parametrize("method", ["foo/bar", "initialize", "ping", "logging/setLevel"])
def test_methods_not_served_in_this_era_are_404(url: str, method: str) -> None:
    response = post(url, method, enveloped(), request_id=500)
    assert response.status_code == 404
    assert response.json()["id"] == 500
    assert error_of(response) == {"code": -32601, "message": "Method not found", "data": method}


def test_an_unknown_tool_is_400_with_32602(url: str) -> None:
    response = post(url, "tools/call", enveloped(name="nope", arguments={}))
    assert response.status_code == 400
    assert error_of(response) == {"code": -32602, "message": "Unknown tool: nope"}


@pytest.mark.parametrize(
    "payload",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}],
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "1.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
        {"jsonrpc": "2.0", "id": None, "method": "tools/list", "params": {"_meta": META}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]},
    ],
)
def test_anything_but_one_message_is_400(url: str, payload: Any) -> None:
    response = httpx.post(
        url, headers=headers_for("tools/list"), content=json.dumps(payload), timeout=20
    )
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "Body must be a single JSON-RPC request or notification object",
        },
    }


@pytest.mark.parametrize(
    "accept",
    [
        "application/json",
        "text/event-stream",
        "text/html",
        # q=0 is "not acceptable" (RFC 9110 section 12.5.1); the SDK reads past it.
        "application/json;q=0, text/event-stream",
        "*/*, text/event-stream;q=0",
    ],
)
def test_accept_must_allow_both_answers(url: str, accept: str) -> None:
    response = post(url, "tools/list", enveloped(), Accept=accept)
    assert response.status_code == 406
    assert error_of(response)["message"] == (
        "Not Acceptable: Client must accept both application/json and text/event-stream"
    )


@pytest.mark.parametrize(
    "accept", ["*/*", "application/json, text/*", "application/json;q=0.9, text/event-stream;q=0.5"]
)
def test_accept_wildcards_and_parameters_are_understood(url: str, accept: str) -> None:
    assert post(url, "tools/list", enveloped(), Accept=accept).status_code == 200


# --- streams and cancellation ------------------------------------------------------------


def test_listen_streams_acknowledgement_then_changes(url: str) -> None:
    listen = enveloped(notifications={"toolsListChanged": True, "promptsListChanged": True})
    frames: list[dict[str, Any]] = []
    opened = threading.Event()

    def read() -> None:
        sent = headers_for("subscriptions/listen")
        with httpx.stream(
            "POST", url, headers=sent, content=body("subscriptions/listen", listen, 77), timeout=20
        ) as stream:
            assert stream.headers["content-type"] == "text/event-stream"
            buffer = ""
            for chunk in stream.iter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    frames.extend(sse_frames(block + "\n\n"))
                    opened.set()
                if len(frames) >= 2:
                    return

    reader = threading.Thread(target=read)
    reader.start()
    assert opened.wait(10)
    grown = post(url, "tools/call", enveloped(name="grow", arguments={}))
    assert grown.status_code == 200
    reader.join(15)
    assert not reader.is_alive()
    subscription = {"io.modelcontextprotocol/subscriptionId": 77}
    assert frames[0] == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "notifications": {"toolsListChanged": True, "promptsListChanged": True},
            "_meta": subscription,
        },
    }
    assert frames[1] == {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
        "params": {"_meta": subscription},
    }


def test_listen_is_a_stream_even_in_json_response_mode(served_json: Served) -> None:
    listen = enveloped(notifications={"toolsListChanged": True})
    sent = headers_for("subscriptions/listen")
    with httpx.stream(
        "POST",
        served_json.url,
        headers=sent,
        content=body("subscriptions/listen", listen),
        timeout=20,
    ) as stream:
        assert stream.headers["content-type"] == "text/event-stream"
        first = next(stream.iter_text())
    assert sse_frames(first)[0]["method"] == "notifications/subscriptions/acknowledged"


def test_a_bad_listen_filter_is_a_json_error(url: str) -> None:
    response = post(url, "subscriptions/listen", enveloped(notifications="all"))
    assert response.status_code == 400
    assert error_of(response)["code"] == -32602


def test_closing_the_answer_cancels_the_call(served: tuple[Served, dict[str, int]]) -> None:
    running, counts = served
    abandon_a_nap(running.url, counts)


@pytest.mark.parametrize(
    "make_app",
    [
        lambda server: server.http_app(keepalive_seconds=0.2),
        lambda server: server.http_app(stateless=True, keepalive_seconds=0.2),
        lambda server: modern_only_app(server, keepalive_seconds=0.2),
    ],
    ids=["endpoint", "stateless", "bare"],
)
def test_a_silent_call_gets_keep_alive_comments(make_app: Any) -> None:
    # The app's keepalive_seconds holds for 2026-07-28 answers too (it once went unread there).
    server, _ = build_server()
    params = enveloped(name="nap", arguments={"seconds": 0.7})
    with Served(make_app(server)) as running:
        response = post(running.url, "tools/call", params)
    assert response.headers["content-type"] == "text/event-stream"
    assert response.text.startswith(": keep-alive\n\n")
    frames = sse_frames(response.text)
    assert len(frames) == 1
    assert frames[0]["result"]["content"][0]["text"] == "slept 0.7"


def test_a_request_is_modern_by_its_declared_version_then_its_envelope() -> None:
    enveloped_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    plain_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"_meta": META}}
    assert is_modern_request("2026-07-28", plain_call)
    assert is_modern_request(" 2026-07-28\t", plain_call)
    assert is_modern_request("v999", enveloped_call)
    assert not is_modern_request("v999", plain_call)
    assert not is_modern_request("2025-11-25", enveloped_call)
    assert is_modern_request(None, enveloped_call)
    assert is_modern_request("", enveloped_call)
    assert not is_modern_request(None, plain_call)
    assert not is_modern_request(None, initialize)
    assert not is_modern_request(None, [enveloped_call])


def test_a_stopping_server_ends_listen_streams_with_their_result(
    served: tuple[Served, dict[str, int]],
) -> None:
    running, _ = served
    listen = enveloped(notifications={"toolsListChanged": True})
    frames: list[dict[str, Any]] = []
    acknowledged = threading.Event()

    def read() -> None:
        sent = headers_for("subscriptions/listen")
        with httpx.stream(
            "POST",
            running.url,
            headers=sent,
            content=body("subscriptions/listen", listen, "L"),
            timeout=20,
        ) as stream:
            text = ""
            for chunk in stream.iter_text():  # until the server ends the response
                text += chunk
                if "acknowledged" in text:
                    acknowledged.set()
        frames.extend(sse_frames(text))

    reader = threading.Thread(target=read)
    reader.start()
    assert acknowledged.wait(10)
    assert running.loop is not None
    asyncio.run_coroutine_threadsafe(running.app.end_idle_streams(), running.loop).result(10)
    reader.join(10)
    assert not reader.is_alive()
    assert [frame.get("method") for frame in frames] == [
        "notifications/subscriptions/acknowledged",
        None,
    ]
    assert frames[1]["id"] == "L"
    assert frames[1]["result"]["resultType"] == "complete"
    assert frames[1]["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L"
