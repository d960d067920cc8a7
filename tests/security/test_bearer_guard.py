"""`BearerGuard` in front of a tiny app, served by uvicorn, probed with raw requests."""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

import httpx2
import pytest

from toolwire import BearerAuth, Identity, Server
from toolwire.transports.http.security.auth import BearerGuard

from ._serve import echo_app, served

TOKENS = {
    "alice": Identity("alice", client_id="cli", scopes=["mcp:tools", "files:read"]),
    "writer": Identity("wendy", client_id="cli", scopes=["mcp:tools", "files:write"]),
    "noscope": Identity("nick", client_id="cli"),
    "expired": Identity("old", scopes=["mcp:tools"], expires_at=time.time() - 60),
    "elsewhere": Identity("eve", scopes=["mcp:tools"], resource="https://other.example/mcp"),
    "parent": Identity("pat", scopes=["mcp:tools"], resource="http://127.0.0.1:{port}/"),
}


async def verify(token: str) -> Identity | None:
    return TOKENS.get(token)


def tools_server() -> Server:
    server = Server("s")

    @server.tool(scopes=["files:write"])
    def write(text: str) -> str:
        return text

    @server.tool
    def read() -> str:
        return "r"

    return server


def challenge(reply: httpx2.Response) -> dict[str, str]:
    """The parameters of a `Bearer` challenge (values without quotes or commas)."""
    scheme, _, rest = reply.headers["www-authenticate"].partition(" ")
    assert scheme == "Bearer"
    params = {}
    for part in rest.split(", "):
        key, _, value = part.partition("=")
        params[key] = json.loads(value)
    return params


def call(url: str, token: str | None, body: Any = None) -> httpx2.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    content = json.dumps(
        body if body is not None else {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    )
    return httpx2.post(url + "/mcp", content=content, headers=headers, timeout=10)


def guard(**options: Any) -> BearerGuard:
    server = tools_server()
    auth = BearerAuth(
        verify,
        authorization_servers=["https://auth.example.com"],
        required_scopes=["mcp:tools"],
        **options,
    )
    return BearerGuard(echo_app, auth, tools=server.tool_registry)


def test_the_protected_resource_metadata_is_published_at_both_well_known_urls() -> None:
    with served(guard()) as url:
        root = httpx2.get(url + "/.well-known/oauth-protected-resource", timeout=10)
        suffixed = httpx2.get(url + "/.well-known/oauth-protected-resource/mcp", timeout=10)
        preflight = httpx2.options(url + "/.well-known/oauth-protected-resource/mcp", timeout=10)
        wrong = httpx2.post(url + "/.well-known/oauth-protected-resource", timeout=10)
    for reply in (root, suffixed):
        assert reply.status_code == 200
        assert reply.headers["access-control-allow-origin"] == "*"
        assert reply.json() == {
            "resource": f"{url}/mcp",
            "authorization_servers": ["https://auth.example.com"],
            "scopes_supported": ["files:write", "mcp:tools"],
            "bearer_methods_supported": ["header"],
        }
    assert preflight.status_code == 204
    assert wrong.status_code == 405
    assert wrong.headers["allow"] == "GET, HEAD, OPTIONS"
    assert wrong.json() == {"error": "method_not_allowed"}


def test_configured_resource_and_scopes_supported_win() -> None:
    options = {
        "resource_url": "https://api.example.com/mcp",
        "scopes_supported": "mcp:tools",
        "resource_name": "Demo",
    }
    with served(guard(**options)) as url:
        document = httpx2.get(url + "/.well-known/oauth-protected-resource", timeout=10).json()
        reply = call(url, None)
    assert document["resource"] == "https://api.example.com/mcp"
    assert document["scopes_supported"] == ["mcp:tools"]
    assert document["resource_name"] == "Demo"
    assert challenge(reply)["resource_metadata"] == (
        "https://api.example.com/.well-known/oauth-protected-resource/mcp"
    )


@pytest.mark.parametrize(
    ("token", "description"),
    [
        (None, "Authentication required: send an Authorization: Bearer <token> header"),
        ("unknown", "The access token is invalid"),
        ("expired", "The access token has expired"),
        ("elsewhere", "The access token was issued for another resource"),
    ],
)
def test_a_missing_or_refused_token_is_401_with_a_challenge(
    token: str | None, description: str
) -> None:
    with served(guard()) as url:
        reply = call(url, token)
    assert reply.status_code == 401
    assert challenge(reply) == {
        "error": "invalid_token",
        "error_description": description,
        "scope": "mcp:tools",
        "resource_metadata": f"{url}/.well-known/oauth-protected-resource/mcp",
    }
    assert reply.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32001, "message": description, "data": {"error": "invalid_token"}},
    }


def test_a_malformed_authorization_header_is_401() -> None:
    with served(guard()) as url:
        basic = httpx2.post(url + "/mcp", headers={"authorization": "Basic YWxhZGRpbg=="})
        empty = httpx2.post(url + "/mcp", headers={"authorization": "Bearer"})
    for reply in (basic, empty):
        assert reply.status_code == 401
        assert challenge(reply)["error_description"] == (
            "The Authorization header must be 'Bearer <token>'"
        )


def test_two_authorization_headers_are_refused_whichever_comes_first() -> None:
    # The guard took the first and a proxy in front may take the last: the request was let
    # in as whoever came first. A head that reads two ways is refused.
    with served(guard()) as url:
        replies = [
            httpx2.post(
                url + "/mcp",
                headers=[("authorization", f"Bearer {first}"), ("authorization", f"Bearer {last}")],
            )
            for first, last in (("alice", "nobody"), ("nobody", "alice"), ("alice", "alice"))
        ]
    for reply in replies:
        assert reply.status_code == 401, reply.text
        assert challenge(reply)["error_description"] == (
            "The request has 2 Authorization headers; send one"
        )


def test_a_token_for_a_parent_resource_is_accepted() -> None:
    with served(guard()) as url:
        port = url.rsplit(":", 1)[1]
        TOKENS["parent"] = Identity(
            "pat", scopes=["mcp:tools"], resource=f"http://127.0.0.1:{port}/"
        )
        reply = call(url, "parent")
    assert reply.status_code == 200


def test_a_token_without_the_required_scopes_is_403() -> None:
    with served(guard()) as url:
        reply = call(url, "noscope")
    assert reply.status_code == 403
    assert challenge(reply) == {
        "error": "insufficient_scope",
        "error_description": (
            "This server requires scope mcp:tools; the access token does not grant it"
        ),
        "scope": "mcp:tools",
        "resource_metadata": f"{url}/.well-known/oauth-protected-resource/mcp",
    }


def test_a_valid_token_passes_with_its_identity_and_body_intact() -> None:
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read"}}
    with served(guard()) as url:
        reply = call(url, "alice", body)
    assert reply.status_code == 200
    seen = reply.json()
    assert seen["identity"] == repr(TOKENS["alice"])
    assert json.loads(seen["body"]) == body


def test_calling_a_tool_without_its_scope_is_a_step_up_challenge() -> None:
    body = {
        "jsonrpc": "2.0",
        "id": "w1",
        "method": "tools/call",
        "params": {"name": "write", "arguments": {"text": "x"}},
    }
    with served(guard()) as url:
        reply = call(url, "alice", body)
        allowed = call(url, "writer", body)
        other_method = call(url, "alice", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert reply.status_code == 403
    assert challenge(reply) == {
        "error": "insufficient_scope",
        "error_description": (
            "Tool 'write' requires scope files:write; the access token does not grant it"
        ),
        "scope": "files:write mcp:tools",  # what this call needs, the server-wide ones too
        "resource_metadata": f"{url}/.well-known/oauth-protected-resource/mcp",
    }
    assert reply.json() == {
        "jsonrpc": "2.0",
        "id": "w1",
        "error": {
            "code": -32003,
            "message": "Tool 'write' requires scope files:write; the access token does not grant it",
            "data": {
                "error": "insufficient_scope",
                "requiredScopes": ["files:write"],
                "missingScopes": ["files:write"],
            },
        },
    }
    assert allowed.status_code == 200
    assert json.loads(allowed.json()["body"]) == body
    assert other_method.status_code == 200


@pytest.mark.parametrize("method", [r"tools\/call", r"tools\u002fcall", r"\u0074ools/call"])
def test_a_tools_call_spelled_with_json_escapes_is_still_a_step_up_challenge(method: str) -> None:
    # JSON may escape any character of the method; the guard let such a call through to the
    # endpoint, which refused it without the challenge a client steps its token up with.
    body = '{"jsonrpc":"2.0","id":"w1","method":"' + method + '","params":{"name":"write"}}'
    headers = {"authorization": "Bearer alice"}
    with served(guard()) as url:
        reply = httpx2.post(url + "/mcp", content=body, headers=headers, timeout=10)
    assert reply.status_code == 403, reply.text
    assert challenge(reply)["error"] == "insufficient_scope"
    assert reply.json()["id"] == "w1"
    assert reply.json()["error"]["data"]["missingScopes"] == ["files:write"]


def test_a_body_that_stalls_while_the_guard_reads_it_gets_408(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The guard reads the body of a token short of a tool's scopes before the endpoint does,
    # and read it without the endpoint's time bound: a stalled body held the request forever.
    from toolwire.transports.http import asgi

    monkeypatch.setattr(asgi, "BODY_SECONDS", 0.3)
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    with served(guard()) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(head.encode() + b'{"jsonrpc":')  # and never the rest
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
    head_text, _, body = reply.decode().partition("\r\n\r\n")
    assert head_text.startswith("HTTP/1.1 408 "), reply
    assert json.loads(body)["error"]["message"] == (
        "Request Timeout: the request body did not arrive within 0.3 seconds"
    )


def test_a_large_body_is_replayed_whole() -> None:
    text = "y" * 300_000  # several receive() chunks
    body = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "read", "arguments": {"t": text}},
    }
    with served(guard()) as url:
        reply = call(url, "alice", body)
    assert reply.status_code == 200
    assert json.loads(reply.json()["body"]) == body


def test_a_body_over_the_limit_goes_on_unchecked() -> None:
    server = tools_server()
    auth = BearerAuth(verify)
    small = BearerGuard(echo_app, auth, tools=server.tool_registry, max_body_bytes=10)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write"}}
    with served(small) as url:
        reply = call(url, "alice", body)
    # the endpoint behind refuses oversized bodies itself; the guard hands it on intact
    assert reply.status_code == 200
    assert json.loads(reply.json()["body"]) == body


def test_an_mcp_token_verifier_plugs_in_unchanged(caplog: pytest.LogCaptureFixture) -> None:
    from mcp.server.auth.provider import AccessToken

    class StaticVerifier:
        async def verify_token(self, token: str) -> AccessToken | None:
            if token == "boom":
                raise RuntimeError("introspection endpoint down")
            if token != "demo":
                return None
            return AccessToken(token=token, client_id="demo-client", scopes=["mcp:tools"])

    app = BearerGuard(echo_app, BearerAuth(StaticVerifier()))
    with caplog.at_level(logging.WARNING, logger="toolwire"), served(app) as url:
        reply = call(url, "demo")
        boom = call(url, "boom")
    assert (
        reply.json()["identity"]
        == "Identity(subject=None, client_id='demo-client', scopes=['mcp:tools'])"
    )
    assert boom.status_code == 401
    assert "StaticVerifier.verify_token raised RuntimeError" in caplog.text


def test_options_pass_without_a_token() -> None:
    with served(guard()) as url:
        reply = httpx2.options(url + "/mcp", timeout=10)
    assert reply.status_code == 200  # the echo app answered: no challenge for a preflight


def test_guards_check_the_host_before_the_token() -> None:
    from toolwire.transports.http._served_app import Guards

    server = tools_server()
    app = Guards(
        allowed_hosts=["127.0.0.1"], auth=BearerAuth(verify), tools=server.tool_registry
    ).around(echo_app)
    with served(app) as url:
        foreign = httpx2.post(url + "/mcp", headers={"host": "evil.example"}, timeout=10)
        missing_token = call(url, None)
        metadata = httpx2.get(url + "/.well-known/oauth-protected-resource", timeout=10)
        ok = call(url, "alice")
    assert foreign.status_code == 421
    assert missing_token.status_code == 401
    assert metadata.status_code == 200
    assert ok.status_code == 200
    with served(Guards().around(echo_app)) as url:  # no auth: Host/Origin only
        assert call(url, None).status_code == 200
        assert httpx2.post(url, headers={"origin": "https://evil.example"}).status_code == 403


def test_a_token_for_one_local_server_is_refused_by_another_whatever_host_it_names(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Without resource_url the resource was read from the Host header, which loopback allows on
    # any port: a token for the server on port A, sent to the server on port B with
    # `Host: 127.0.0.1:A`, was accepted there. The port is the one the connection came in on.
    from toolwire.transports.http._served_app import Guards

    def guarded() -> Any:
        return Guards(auth=BearerAuth(verify), tools=tools_server().tool_registry).around(echo_app)

    with caplog.at_level(logging.WARNING, logger="toolwire"), served(guarded()) as first:
        with served(guarded()) as second:
            first_host = first.split("//", 1)[1]
            first_port = int(first_host.rsplit(":", 1)[1])
            TOKENS["first"] = Identity("f", resource=f"{first}/mcp")
            TOKENS["first-default-port"] = Identity("d", resource="http://127.0.0.1/mcp")
            TOKENS["first-explicit-80"] = Identity("e", resource="http://127.0.0.1:80/mcp")
            own = call(first, "first")
            replayed = httpx2.post(
                second + "/mcp", headers={"authorization": "Bearer first", "host": first_host}
            )
            plain = call(second, "first")
            portless = httpx2.post(
                second + "/mcp",
                headers={"authorization": "Bearer first-default-port", "host": "127.0.0.1"},
            )
            explicit = httpx2.post(
                second + "/mcp",
                headers={"authorization": "Bearer first-explicit-80", "host": "127.0.0.1"},
            )
    assert own.status_code == 200, own.text
    for reply in (replayed, plain, portless, explicit):
        assert reply.status_code == 401, reply.text
        assert challenge(reply)["error_description"] == (
            "The access token was issued for another resource"
        )
    warned = [r.getMessage() for r in caplog.records if "listens on port" in r.getMessage()]
    assert len(warned) == 1  # said once per server, not once per request
    assert f"Host names port {first_port} but this server listens on port" in warned[0]
    assert "BearerAuth(resource_url=...)" in warned[0]


def test_a_refused_resource_is_logged_once_naming_both(caplog: pytest.LogCaptureFixture) -> None:
    # A verifier mapping `aud` to a bare API name refused every token, and said only
    # "issued for another resource": the log names the two resources, escaped.
    TOKENS["api-name"] = Identity("o", scopes=["mcp:tools"], resource="api://default\nforged")
    with caplog.at_level(logging.WARNING, logger="toolwire"), served(guard()) as url:
        replies = [call(url, "api-name").status_code for _ in range(3)]
    assert replies == [401, 401, 401]
    said = [r.getMessage() for r in caplog.records if "was refused" in r.getMessage()]
    assert said == [
        "a token for resource 'api://default\\nforged' was refused: this endpoint's resource "
        f"is '{url}/mcp' (BearerAuth(resource_url=...) sets it)"
    ]


def test_a_token_resource_is_compared_by_scheme_host_and_port() -> None:
    with served(guard()) as url:
        port = int(url.rsplit(":", 1)[1])
        resources = {
            "same": f"HTTP://127.0.0.1:{port}/mcp/",
            "scheme": f"https://127.0.0.1:{port}/mcp",
            "host": f"http://127.0.0.2:{port}/mcp",
            "port": f"http://127.0.0.1:{port + 1}/mcp",
            "prefix-port": f"http://127.0.0.1:{str(port)[:-1]}",
            "bad-port": "http://127.0.0.1:99999/mcp",
            "sibling": f"http://127.0.0.1:{port}/mc",
        }
        for name, resource in resources.items():
            TOKENS[f"r-{name}"] = Identity(name, scopes=["mcp:tools"], resource=resource)
        replies = {name: call(url, f"r-{name}").status_code for name in resources}
    assert replies == {name: 200 if name == "same" else 401 for name in resources}


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        (b"bearer alice", True),
        (b"BEARER alice", True),
        (b"Bearer    alice   ", True),
        (b"Bearer\r\n alice", True),  # obs-fold, unfolded to a space by the HTTP parser
        (b"Bearer\talice", False),  # RFC 6750: one or more spaces, nothing else
        (b"Bearer alice extra", False),  # the token is everything after the scheme
        (b"Bearer " + b"a" * 12000, False),
    ],
)
def test_authorization_spellings_over_a_raw_socket(value: bytes, accepted: bool) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    with served(guard()) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                b"Authorization: " + value + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            )
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
    head, _, payload = received.partition(b"\r\n\r\n")
    if accepted:
        assert head.startswith(b"HTTP/1.1 200 "), received
        echoed = payload[payload.index(b"{") : payload.rindex(b"}") + 1]  # chunked
        assert json.loads(echoed)["identity"] == repr(TOKENS["alice"])
    else:
        assert head.startswith(b"HTTP/1.1 401 "), received
        assert b'error="invalid_token"' in head
