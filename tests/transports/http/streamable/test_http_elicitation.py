"""A tool's questions over streamable HTTP (handshake era): the request travels on the SSE
stream of the POST that made the call, the client's response arrives as a POST of its own,
and modes without a back channel (JSON responses, stateless) refuse with a clear error."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests._jsonrpc import initialize_request
from tests.transports.http._http_harness import serving

from toolwire import ClientRequestError, Server, ToolContext

FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def make_server() -> Server:
    server = Server("asking-http", version="1.0")

    @server.tool
    async def ask(ctx: ToolContext[Any]) -> str:
        """Ask a name and the model, report both."""
        try:
            answer = await ctx.elicit("Your name?", FORM, timeout=20)
            reply = await ctx.sample("Say hi", max_tokens=5, timeout=20)
        except ClientRequestError as error:
            return f"{type(error).__name__}: {error}"
        return f"{answer.action} {answer.content} / {reply.text}"

    return server


async def _official(url: str) -> str:
    import mcp_types as types

    async def elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def sample(context: Any, params: Any) -> Any:
        text = types.TextContent(type="text", text="hi")
        return types.CreateMessageResult(role="assistant", content=text, model="m")

    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write, elicitation_callback=elicit, sampling_callback=sample) as s,
    ):
        await s.initialize()
        result = await s.call_tool("ask", {})
        return str(result.content[0].text)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, "accept {'name': 'Ada'} / hi", id="sessions-sse"),
        pytest.param(
            {"json_response": True},
            "NoBackChannelError: Cannot send 'elicitation/create': this session has no channel "
            "for requests to the client (HTTP in JSON-response or stateless mode). Serve with "
            "SSE responses and sessions (json_response=False, stateless=False), or over stdio.",
            id="sessions-json",
        ),
        pytest.param(
            {"stateless": True},
            "NoBackChannelError: Cannot send 'elicitation/create': this session has no channel "
            "for requests to the client (HTTP in JSON-response or stateless mode). Serve with "
            "SSE responses and sessions (json_response=False, stateless=False), or over stdio.",
            id="stateless-sse",
        ),
    ],
)
def test_official_client(options: dict[str, Any], expected: str) -> None:
    with serving(make_server().http_app(**options)) as base:
        text = asyncio.run(asyncio.wait_for(_official(base + "/mcp"), 30))
    assert text == expected


async def _events(response: httpx2.Response) -> Any:
    """The JSON messages of an SSE response, one by one."""
    async for line in response.aiter_lines():
        if line.startswith("data: ") and line[6:].strip():
            yield json.loads(line[6:])


async def _raw(base: str) -> dict[str, Any]:
    async with httpx2.AsyncClient(base_url=base, timeout=20) as client:
        init = initialize_request(capabilities={"elicitation": {}, "sampling": {}}, client="raw")
        reply = await client.post("/mcp", json=init, headers=HEADERS)
        headers = {**HEADERS, "mcp-session-id": reply.headers["mcp-session-id"]}
        notice = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await client.post("/mcp", json=notice, headers=headers)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}
        seen: dict[str, Any] = {"answers": []}
        async with client.stream("POST", "/mcp", json=call, headers=headers) as stream:
            assert stream.headers["content-type"] == "text/event-stream"
            async for message in _events(stream):
                if message.get("id") == 2:  # the call's result, on the same stream
                    seen["result"] = message
                    break
                seen.setdefault("requests", []).append(message)
                if message.get("method") == "elicitation/create":
                    answer = {"action": "accept", "content": {"name": "Ada"}}
                else:
                    answer = {
                        "role": "assistant",
                        "content": {"type": "text", "text": "hi"},
                        "model": "m",
                    }
                response = {"jsonrpc": "2.0", "id": message["id"], "result": answer}
                posted = await client.post("/mcp", json=response, headers=headers)
                seen["answers"].append((posted.status_code, posted.content))
        return seen


def test_the_request_rides_the_calls_stream_and_the_answer_is_a_post() -> None:
    with serving(make_server().http_app()) as base:
        seen = asyncio.run(asyncio.wait_for(_raw(base), 30))
    assert seen["requests"] == [
        {
            "jsonrpc": "2.0",
            "id": "tw-1",
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Your name?", "requestedSchema": FORM},
        },
        {
            "jsonrpc": "2.0",
            "id": "tw-2",
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
                "maxTokens": 5,
            },
        },
    ]
    assert seen["answers"] == [(202, b""), (202, b"")]
    assert seen["result"]["result"]["content"] == [
        {"type": "text", "text": "accept {'name': 'Ada'} / hi"}
    ]
