"""The same raw 2026-07-28 requests to toolwire and to the official SDK's `MCPServer` over
HTTP: where the behaviour should match, the statuses, content types, error codes and error
messages must be identical.

Known, deliberate differences (not compared here): an unknown tool is -32602 (HTTP 400) in
toolwire and an `isError` result in `MCPServer`; a 406 carries a JSON-RPC error naming what
`Accept` must list instead of an empty body; an enveloped request without any
`MCP-Protocol-Version` header is refused as a header mismatch instead of being taken for a
handshake-era request without a session; an unknown version without an envelope is left to
the handshake era; a POST without any `Accept` header is refused (406) by the endpoint
before the era is known, where the SDK serves it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

import httpx2 as httpx
import pytest
from pydantic import Field
from tests.transports.http._modern_support import (
    META,
    Served,
    body,
    build_server,
    enveloped,
    headers_for,
)

mcpserver = pytest.importorskip("mcp.server.mcpserver")


def sdk_app() -> Any:
    server = mcpserver.MCPServer("sdk-twin")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    def where(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        count: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Count"})] = 0,
        flag: Annotated[bool, Field(json_schema_extra={"x-mcp-header": "Flag"})] = False,
    ) -> str:
        return f"{region} {count} {flag}"

    return server.streamable_http_app(host="127.0.0.1")


@pytest.fixture(scope="module")
def urls() -> Iterator[tuple[str, str]]:
    server, _ = build_server()
    with Served(server.http_app()) as ours, Served(sdk_app()) as theirs:
        yield ours.url, theirs.url


def call(name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "tools/call", enveloped(name=name, arguments=arguments)


V999 = {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "v999"}}

# (case, method, params, header overrides, headers dropped, request id)
CASES: list[tuple[str, str, Any, dict[str, str], tuple[str, ...], Any]] = [
    ("list", "tools/list", enveloped(), {}, (), 1),
    ("string id", "tools/list", enveloped(), {}, (), "abc"),
    ("call", *call("add", {"a": 1, "b": 2}), {}, (), 2),
    ("missing Mcp-Method", "tools/list", enveloped(), {}, ("Mcp-Method",), 3),
    ("other Mcp-Method", "tools/list", enveloped(), {"Mcp-Method": "prompts/list"}, (), 4),
    ("Mcp-Method case", "tools/list", enveloped(), {"Mcp-Method": "TOOLS/LIST"}, (), 5),
    (
        "folded Mcp-Method",
        "tools/list",
        enveloped(),
        {"Mcp-Method": "tools/list, tools/list"},
        (),
        6,
    ),
    ("missing Mcp-Name", *call("add", {"a": 1, "b": 2}), {}, ("Mcp-Name",), 7),
    ("other Mcp-Name", *call("add", {"a": 1, "b": 2}), {"Mcp-Name": "x"}, (), 8),
    ("empty Mcp-Name", *call("add", {"a": 1, "b": 2}), {"Mcp-Name": ""}, (), 9),
    ("base64 Mcp-Name", *call("add", {"a": 1, "b": 2}), {"Mcp-Name": "=?base64?YWRk?="}, (), 10),
    (
        "bad base64 Mcp-Name",
        *call("add", {"a": 1, "b": 2}),
        {"Mcp-Name": "=?base64?YWR!?="},
        (),
        11,
    ),
    ("Mcp-Name on a list", "tools/list", enveloped(), {"Mcp-Name": "x"}, (), 12),
    ("no _meta", "tools/list", {}, {}, (), 13),
    ("no params", "tools/list", None, {}, (), 14),
    ("no _meta, no Mcp-Method", "tools/list", {}, {}, ("Mcp-Method",), 15),
    (
        "no capabilities",
        "tools/list",
        {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        {},
        (),
        16,
    ),
    (
        "no version",
        "tools/list",
        {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}},
        {},
        (),
        17,
    ),
    ("envelope v999", "tools/list", V999, {}, (), 18),
    ("header v999", "tools/list", enveloped(), {"MCP-Protocol-Version": "v999"}, (), 19),
    ("both v999", "tools/list", V999, {"MCP-Protocol-Version": "v999"}, (), 20),
    (
        "both v999, other Mcp-Method",
        "tools/list",
        V999,
        {"MCP-Protocol-Version": "v999", "Mcp-Method": "x"},
        (),
        21,
    ),
    ("both v999, unknown method", "foo/bar", V999, {"MCP-Protocol-Version": "v999"}, (), 22),
    ("header v999, plain body", "tools/list", None, {"MCP-Protocol-Version": "v999"}, (), 23),
    (
        "version not a string",
        "tools/list",
        {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": 5}},
        {},
        (),
        24,
    ),
    ("unknown method", "foo/bar", enveloped(), {}, (), 25),
    ("unknown method, no Mcp-Method", "foo/bar", enveloped(), {}, ("Mcp-Method",), 26),
    (
        "initialize",
        "initialize",
        enveloped(protocolVersion="2025-11-25", capabilities={}),
        {},
        (),
        27,
    ),
    ("ping", "ping", enveloped(), {}, (), 28),
    ("logging/setLevel", "logging/setLevel", enveloped(level="info"), {}, (), 29),
    ("resources/subscribe", "resources/subscribe", enveloped(uri="x://y"), {}, (), 30),
    ("notification", "notifications/cancelled", enveloped(requestId=1), {}, (), None),
    (
        "notification, other Mcp-Method",
        "notifications/cancelled",
        enveloped(requestId=1),
        {"Mcp-Method": "x"},
        (),
        None,
    ),
    ("param ok", *call("where", {"region": "us"}), {"Mcp-Param-Region": "us"}, (), 31),
    ("param missing", *call("where", {"region": "us"}), {}, (), 32),
    ("param other", *call("where", {"region": "us"}), {"Mcp-Param-Region": "eu"}, (), 33),
    (
        "param base64",
        *call("where", {"region": "Hello"}),
        {"Mcp-Param-Region": "=?base64?SGVsbG8=?="},
        (),
        34,
    ),
    (
        "param bad padding",
        *call("where", {"region": "Hello"}),
        {"Mcp-Param-Region": "=?base64?SGVsbG8?="},
        (),
        35,
    ),
    (
        "param bad alphabet",
        *call("where", {"region": "Hello"}),
        {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="},
        (),
        36,
    ),
    (
        "param literal",
        *call("where", {"region": "=?base64?SGVsbG8="}),
        {"Mcp-Param-Region": "=?base64?SGVsbG8="},
        (),
        37,
    ),
    (
        "param int as float",
        *call("where", {"region": "us", "count": 42}),
        {"Mcp-Param-Region": "us", "Mcp-Param-Count": "42.0"},
        (),
        38,
    ),
    (
        "param int missing",
        *call("where", {"region": "us", "count": 42}),
        {"Mcp-Param-Region": "us"},
        (),
        39,
    ),
    (
        "param without argument",
        *call("where", {"region": "us"}),
        {"Mcp-Param-Region": "us", "Mcp-Param-Count": "5"},
        (),
        40,
    ),
    (
        "param bool",
        *call("where", {"region": "us", "flag": True}),
        {"Mcp-Param-Region": "us", "Mcp-Param-Flag": "true"},
        (),
        41,
    ),
    (
        "param bool case",
        *call("where", {"region": "us", "flag": True}),
        {"Mcp-Param-Region": "us", "Mcp-Param-Flag": "True"},
        (),
        42,
    ),
    (
        "param header name case",
        *call("where", {"region": "us"}),
        {"mcp-param-region": "us"},
        (),
        43,
    ),
    ("Accept json only", "tools/list", enveloped(), {"Accept": "application/json"}, (), 44),
    ("Accept stream only", "tools/list", enveloped(), {"Accept": "text/event-stream"}, (), 45),
    ("Accept */*", "tools/list", enveloped(), {"Accept": "*/*"}, (), 47),
    ("session id ignored", "tools/list", enveloped(), {"Mcp-Session-Id": "abc"}, (), 48),
]


def observe(
    url: str,
    method: str,
    params: Any,
    extra: dict[str, str],
    drop: tuple[str, ...],
    request_id: Any,
) -> dict[str, Any]:
    headers = headers_for(method, params, **extra)
    for name in drop:
        headers.pop(name)
    response = httpx.post(
        url, headers=headers, content=body(method, params, request_id), timeout=20
    )
    seen: dict[str, Any] = {"status": response.status_code}
    if response.status_code == 406:
        return seen  # the bodies differ by design (see the module docstring)
    seen["content-type"] = response.headers.get("content-type")
    if not response.content:
        seen["body"] = b""
        return seen
    payload = response.json()
    seen["id"] = payload.get("id")
    if "error" in payload:
        seen["error"] = payload["error"]
    else:
        result = payload["result"]
        seen["resultType"] = result.get("resultType")
        seen["isError"] = result.get("isError")
        seen["text"] = [block.get("text") for block in result.get("content", [])]
        seen["hints"] = (result.get("ttlMs"), result.get("cacheScope"))
    return seen


@pytest.mark.parametrize(
    ("case", "method", "params", "extra", "drop", "request_id"), CASES, ids=[c[0] for c in CASES]
)
def test_same_answer_as_the_sdk(
    urls: tuple[str, str],
    case: str,
    method: str,
    params: Any,
    extra: dict[str, str],
    drop: tuple[str, ...],
    request_id: Any,
) -> None:
    ours, theirs = urls
    expected = observe(theirs, method, params, extra, drop, request_id)
    got = observe(ours, method, params, extra, drop, request_id)
    if case == "header v999, plain body":
        # An unknown version without an envelope stays in the handshake era, which refuses
        # it listing its versions (as later SDKs do); mcp 2.3 asks for the envelope instead.
        assert got["status"] == expected["status"] == 400
        assert got["error"]["message"].startswith("Bad Request: Unsupported protocol version")
        return
    assert got == expected, json.dumps(
        {"case": case, "toolwire": got, "sdk": expected}, default=str
    )


# (case, method, params, headers sent a second time after the conforming ones, request id)
REPEATS: list[tuple[str, str, Any, list[tuple[str, str]], Any]] = [
    ("Mcp-Method twice, same", "tools/list", enveloped(), [("Mcp-Method", "tools/list")], 60),
    ("Mcp-Method twice, other", "tools/list", enveloped(), [("Mcp-Method", "prompts/list")], 61),
    ("Mcp-Name twice", *call("add", {"a": 1, "b": 2}), [("Mcp-Name", "add")], 62),
    (
        "version twice, same",
        "tools/list",
        enveloped(),
        [("MCP-Protocol-Version", "2026-07-28")],
        63,
    ),
    (
        "version twice, then an old one",
        "tools/list",
        enveloped(),
        [("MCP-Protocol-Version", "2025-06-18")],
        64,
    ),
    (
        "param twice",
        *call("where", {"region": "us"}),
        [("Mcp-Param-Region", "us"), ("Mcp-Param-Region", "eu")],
        65,
    ),
]


@pytest.mark.parametrize(
    ("case", "method", "params", "repeated", "request_id"), REPEATS, ids=[c[0] for c in REPEATS]
)
def test_a_header_sent_twice_gets_the_sdks_answer(
    urls: tuple[str, str],
    case: str,
    method: str,
    params: Any,
    repeated: list[tuple[str, str]],
    request_id: Any,
) -> None:
    # A routing header that appears twice reads one way to a proxy taking the first copy and
    # another way to a server taking the last: the SDK refuses it with -32020.
    def seen(url: str) -> dict[str, Any]:
        sent = list(headers_for(method, params).items())
        if case == "param twice":
            sent = [pair for pair in sent if pair[0] != "Mcp-Param-Region"]
        response = httpx.post(
            url,
            headers=sent + repeated,
            content=body(method, params, request_id),
            timeout=20,
        )
        payload = response.json() if response.content else None
        return {"status": response.status_code, "payload": payload}

    ours, theirs = urls
    expected, got = seen(theirs), seen(ours)
    assert got == expected, json.dumps({"case": case, "toolwire": got, "sdk": expected})
