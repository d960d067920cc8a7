"""End to end over streamable HTTP: `Server(auth=...)` under a real uvicorn, the official
`mcp` client with a bearer token, and raw requests for every refusal."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from tests._jsonrpc import initialize_request

from toolwire import BearerAuth, CallInfo, Identity, Server, ToolContext

from ._serve import served

AS = "https://auth.example.com"
TOKENS = {
    "alice": Identity("alice", client_id="app", scopes=["mcp:tools"]),
    "alice-deploy": Identity("alice", client_id="app", scopes=["mcp:tools", "deploy"]),
    "bob": Identity("bob", client_id="app", scopes=["mcp:tools", "deploy"]),
    "bare": Identity("carol", client_id="app"),
}
MODES = [
    pytest.param({}, id="sessions-sse"),
    pytest.param({"json_response": True}, id="sessions-json"),
    pytest.param({"stateless": True}, id="stateless-sse"),
]
INIT = initialize_request(0, client="raw")
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def verify(token: str) -> Identity | None:
    return TOKENS.get(token)


def whose(info: CallInfo) -> dict[str, Any]:
    who = info.identity
    assert who is not None  # with auth, every call has one
    return {"subject": who.subject, "scopes": sorted(who.scopes)}


def make_server() -> Server:
    auth = BearerAuth(verify, authorization_servers=[AS], required_scopes="mcp:tools")
    server = Server("secure", auth=auth, context_factory=whose)

    @server.tool
    def whoami(ctx: ToolContext[dict[str, Any]]) -> str:
        """Who is calling."""
        return f"{ctx.context['subject']} {' '.join(ctx.context['scopes'])}"

    @server.tool(scopes=["deploy"])
    def deploy(ctx: ToolContext[dict[str, Any]], target: str) -> str:
        """Deploy somewhere."""
        return f"{ctx.context['subject']} deployed {target}"

    return server


async def with_official_client(url: str, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        whoami = await session.call_tool("whoami", {})
        try:
            deployed: Any = await session.call_tool("deploy", {"target": "prod"})
            deploy = [block.text for block in deployed.content]
        except MCPError as error:
            deploy = f"refused: {error}"
        return {
            "tools": [tool.name for tool in tools.tools],
            "whoami": [block.text for block in whoami.content],
            "deploy": deploy,
        }


@pytest.mark.parametrize("options", MODES)
def test_the_official_client_calls_as_its_identity(options: dict[str, Any]) -> None:
    with served(make_server().http_app(**options), lifespan="on") as base:
        alice = asyncio.run(asyncio.wait_for(with_official_client(base + "/mcp", "alice"), 30))
        bob = asyncio.run(asyncio.wait_for(with_official_client(base + "/mcp", "bob"), 30))
    assert alice["tools"] == ["whoami", "deploy"]  # listed to every caller
    assert alice["whoami"] == ["alice mcp:tools"]
    assert alice["deploy"] == (
        "refused: Tool 'deploy' requires scope deploy; the access token does not grant it"
    )
    assert bob["whoami"] == ["bob deploy mcp:tools"]
    assert bob["deploy"] == ["bob deployed prod"]


def raw(base: str, body: Any, *, token: str | None = "alice", **headers: str) -> httpx2.Response:
    sent = dict(ACCEPT)
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    sent.update(headers)
    return httpx2.post(base + "/mcp", content=json.dumps(body), headers=sent, timeout=10)


def test_refusals_over_the_wire(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="toolwire"),
        served(make_server().http_app(), lifespan="on") as base,
    ):
        foreign_host = raw(base, INIT, host="mcp.example.com")
        foreign_origin = raw(base, INIT, origin="https://evil.example")
        no_token = raw(base, INIT, token=None)
        no_scope = raw(base, INIT, token="bare")
        metadata = httpx2.get(base + "/.well-known/oauth-protected-resource/mcp", timeout=10)
        opened = raw(base, INIT)
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        raw(base, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **session)
        call = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "deploy", "arguments": {"target": "prod"}},
        }
        step_up = raw(base, call, **session)
        hijack = raw(base, call, token="bob", **session)
        stepped_up = raw(base, call, token="alice-deploy", **session)
    assert foreign_host.status_code == 421
    assert foreign_host.json()["error"]["message"] == (
        "Host 'mcp.example.com' is not allowed; pass allowed_hosts=['mcp.example.com'] to "
        "http_app()/run(), or --allowed-host mcp.example.com on the CLI"
    )
    assert "Host 'mcp.example.com' is not allowed" in caplog.text
    assert foreign_origin.status_code == 403
    assert "allowed_origins=['https://evil.example']" in foreign_origin.json()["error"]["message"]
    assert no_token.status_code == 401
    metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
    assert no_token.headers["www-authenticate"] == (
        'Bearer error="invalid_token", error_description="Authentication required: send an '
        'Authorization: Bearer <token> header", scope="mcp:tools", '
        f'resource_metadata="{metadata_url}"'
    )
    assert no_scope.status_code == 403
    assert 'error="insufficient_scope"' in no_scope.headers["www-authenticate"]
    assert metadata.json() == {
        "resource": f"{base}/mcp",
        "authorization_servers": [AS],
        "scopes_supported": ["deploy", "mcp:tools"],
        "bearer_methods_supported": ["header"],
    }
    assert opened.status_code == 200
    assert step_up.status_code == 403
    assert step_up.headers["www-authenticate"] == (
        'Bearer error="insufficient_scope", error_description="Tool \'deploy\' requires scope '
        'deploy; the access token does not grant it", scope="deploy mcp:tools", '
        f'resource_metadata="{metadata_url}"'
    )
    assert step_up.json()["id"] == 5
    # bob has the scope, but the session is alice's: the same 404 as an unknown id
    assert hijack.status_code == 404
    # alice came back with a stepped-up token: same caller, same session, new scopes
    assert stepped_up.status_code == 200
    assert "alice deployed prod" in stepped_up.text


def test_allowed_hosts_let_a_deployed_name_in() -> None:
    app = make_server().http_app(allowed_hosts=["mcp.example.com"])
    with served(app, lifespan="on") as base:
        named = raw(base, INIT, host="mcp.example.com", origin="http://mcp.example.com")
        loopback = raw(base, INIT)
        metadata = httpx2.get(
            base + "/.well-known/oauth-protected-resource",
            headers={"host": "mcp.example.com"},
            timeout=10,
        )
    assert named.status_code == 200
    assert loopback.status_code == 421
    assert metadata.json()["resource"] == "http://mcp.example.com/mcp"


def test_without_auth_there_is_no_token_check_but_hosts_are_still_checked() -> None:
    server = Server("open")

    @server.tool(scopes=["deploy"])
    def deploy() -> str:
        return "deployed"

    with served(server.http_app(stateless=True, json_response=True), lifespan="on") as base:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "deploy"}}
        ok = raw(base, call, token=None)
        foreign = raw(base, call, token=None, host="evil.example")
        metadata = httpx2.get(base + "/.well-known/oauth-protected-resource", timeout=10)
    assert ok.status_code == 200
    assert ok.json()["result"]["content"][0]["text"] == "deployed"  # no identity: not enforced
    assert foreign.status_code == 421
    assert metadata.status_code == 404


async def with_modern_client(url: str, token: str) -> dict[str, Any]:
    from mcp import Client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        whoami = await client.call_tool("whoami", {})
        try:
            deployed: Any = await client.call_tool("deploy", {"target": "edge"})
            deploy = [block.text for block in deployed.content]
        except MCPError as error:
            deploy = f"refused: {error}"
        return {
            "version": client.protocol_version,
            "whoami": [block.text for block in whoami.content],
            "deploy": deploy,
        }


def test_the_2026_era_client_calls_as_its_identity() -> None:
    with served(make_server().http_app(), lifespan="on") as base:
        alice = asyncio.run(asyncio.wait_for(with_modern_client(base + "/mcp", "alice"), 30))
        bob = asyncio.run(asyncio.wait_for(with_modern_client(base + "/mcp", "bob"), 30))
    assert alice["version"] == "2026-07-28"
    assert alice["whoami"] == ["alice mcp:tools"]
    assert alice["deploy"].startswith("refused: Tool 'deploy' requires scope deploy")
    assert bob["deploy"] == ["bob deployed edge"]


def test_mounted_under_a_prefix_the_challenge_points_where_the_metadata_is() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    inner = make_server().http_app()
    parent = Starlette(routes=[Mount("/api", app=inner)], lifespan=inner.lifespan)
    with served(parent, lifespan="on") as base:
        refused = httpx2.post(base + "/api/mcp", content=json.dumps(INIT), headers=ACCEPT)
        url = challenge_url(refused)
        document = httpx2.get(url, timeout=10)
        ok = raw(base + "/api", INIT)
    assert refused.status_code == 401
    assert url == f"{base}/api/.well-known/oauth-protected-resource/mcp"
    assert document.json()["resource"] == f"{base}/api/mcp"
    assert ok.status_code == 200


def challenge_url(reply: httpx2.Response) -> str:
    header = reply.headers["www-authenticate"]
    return header.split('resource_metadata="', 1)[1].split('"', 1)[0]


def test_the_official_client_cannot_replay_a_token_on_another_local_server() -> None:
    # A token bound to the server on port A, sent by the official client to the server on
    # port B with `Host` naming A: B refuses it (it accepted it while the port came from Host).
    bound: dict[str, str] = {}

    async def audience(token: str) -> Identity | None:
        return Identity("ada", scopes=["mcp:tools"], resource=bound.get(token))

    def bound_server() -> Server:
        server = Server("bound", auth=BearerAuth(audience))

        @server.tool
        def hello() -> str:
            """Greet."""
            return "hello"

        return server

    async def tools(url: str, host: str) -> list[str]:
        headers = {"Authorization": "Bearer for-a", "Host": host}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            streamable_http_client(url, http_client=http) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    with (
        served(bound_server().http_app(), lifespan="on") as first,
        served(bound_server().http_app(), lifespan="on") as second,
    ):
        bound["for-a"] = first + "/mcp"
        own_host = first.split("//", 1)[1]
        assert asyncio.run(asyncio.wait_for(tools(first + "/mcp", own_host), 30)) == ["hello"]
        with pytest.raises(BaseException) as refused:
            asyncio.run(asyncio.wait_for(tools(second + "/mcp", own_host), 30))
    assert "The access token was issued for another resource" in repr(refused.value)
