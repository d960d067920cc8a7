"""Handshake era: a tool's questions go to the client as requests during the call.

Driven in-process (frames in, frames out), so every frame can be read exactly: the request's
shape and routing, the response matched back, errors, timeouts, cancellation, closing, and a
session without a back channel.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from toolwire import ClientRequestError, ToolContext
from toolwire.protocol.wire.jsonrpc import FrameKind
from toolwire.server import Server

pytestmark = pytest.mark.anyio

FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
EVERYTHING = {"elicitation": {}, "sampling": {}, "roots": {}}


class Person(BaseModel):
    name: str
    age: int = 3


def _server() -> Server:
    server = Server("asking")

    @server.tool
    async def ask(ctx: ToolContext[Any], timeout: float = 30) -> str:
        """Elicit a name; report the outcome."""
        try:
            answer = await ctx.elicit("Your name?", FORM, timeout=timeout)
        except ClientRequestError as error:
            return f"{type(error).__name__}: {error}"
        return json.dumps([answer.action, answer.content])

    @server.tool
    async def ask_person(ctx: ToolContext[Any]) -> str:
        """Elicit a model."""
        try:
            answer = await ctx.elicit("Who?", Person)
        except ClientRequestError as error:
            return f"{type(error).__name__}: {error}"
        return repr(answer.content)

    @server.tool
    async def sample(ctx: ToolContext[Any]) -> str:
        """Sample."""
        reply = await ctx.sample(
            ["Hi", {"role": "assistant", "content": {"type": "text", "text": "Yo"}}],
            max_tokens=5,
            temperature=0.5,
            stop_sequences=["."],
        )
        return json.dumps([reply.text, reply.model, reply.role, reply.stop_reason])

    @server.tool
    async def roots(ctx: ToolContext[Any]) -> str:
        """List roots."""
        return json.dumps(await ctx.list_roots())

    return server


class Client:
    """The client end of a routed session: every frame with the request it belongs to."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, dict[str, Any]]] = []
        self.session: Any = None

    async def send(self, frame: bytes, kind: FrameKind, request_id: Any) -> None:
        message = json.loads(frame)
        if "method" in message:  # a question has an id, a notice none; neither is a reply
            expected = FrameKind.QUESTION if "id" in message else FrameKind.NOTICE
        else:
            expected = FrameKind.REPLY
        assert kind is expected, (kind, message)
        self.sent.append((request_id, message))

    async def feed(self, message: dict[str, Any]) -> None:
        await self.session.receive(json.dumps({"jsonrpc": "2.0", **message}).encode())

    async def next_where(self, test: Any) -> tuple[Any, dict[str, Any]]:
        with anyio.fail_after(10):
            while True:
                for item in self.sent:
                    if test(item[1]):
                        self.sent.remove(item)
                        return item
                await anyio.sleep(0.002)

    async def request_from_server(self, method: str) -> tuple[Any, dict[str, Any]]:
        return await self.next_where(lambda m: m.get("method") == method and "id" in m)

    async def reply_to(self, request_id: Any) -> dict[str, Any]:
        return (await self.next_where(lambda m: m.get("id") == request_id and "method" not in m))[1]

    async def call(
        self, request_id: Any, name: str, arguments: dict[str, Any] | None = None
    ) -> None:
        await self.feed(
            {
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments or {}},
            }
        )


@asynccontextmanager
async def connected(
    capabilities: dict[str, Any] | None = None,
    version: str = "2025-11-25",
    back_channel: bool = True,
    server: Server | None = None,
) -> AsyncIterator[Client]:
    client = Client()
    server = _server() if server is None else server
    async with (
        server.serving() as open_session,
        open_session(client.send, routed=True, back_channel=back_channel) as session,
    ):
        client.session = session
        init = {
            "protocolVersion": version,
            "capabilities": EVERYTHING if capabilities is None else capabilities,
            "clientInfo": {"name": "t", "version": "1"},
        }
        await client.feed({"id": "init", "method": "initialize", "params": init})
        await client.feed({"method": "notifications/initialized"})
        await client.reply_to("init")
        yield client
        session.close()


async def test_elicitation_request_and_answer() -> None:
    async with connected() as client:
        await client.call(5, "ask")
        route, request = await client.request_from_server("elicitation/create")
        assert route == 5  # on the stream of the call it belongs to
        assert request == {
            "jsonrpc": "2.0",
            "id": "tw-1",
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Your name?", "requestedSchema": FORM},
        }
        await client.feed(
            {"id": "tw-1", "result": {"action": "accept", "content": {"name": "Ada"}}}
        )
        reply = await client.reply_to(5)
        assert reply["result"]["content"][0]["text"] == '["accept", {"name": "Ada"}]'


async def test_mode_is_not_sent_before_2025_11_25() -> None:
    async with connected(version="2025-06-18") as client:
        await client.call(1, "ask")
        _, request = await client.request_from_server("elicitation/create")
        assert "mode" not in request["params"]
        await client.feed({"id": request["id"], "result": {"action": "decline"}})
        reply = await client.reply_to(1)
        assert reply["result"]["content"][0]["text"] == '["decline", null]'


async def test_a_model_form_answer_is_validated_into_the_model() -> None:
    async with connected() as client:
        await client.call(1, "ask_person")
        _, request = await client.request_from_server("elicitation/create")
        assert request["params"]["requestedSchema"] == {
            "type": "object",
            "properties": {
                "name": {"title": "Name", "type": "string"},
                "age": {"default": 3, "title": "Age", "type": "integer"},
            },
            "required": ["name"],
        }
        await client.feed(
            {"id": request["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
        )
        assert (await client.reply_to(1))["result"]["content"][0][
            "text"
        ] == "Person(name='Ada', age=3)"
        await client.call(2, "ask_person")
        _, request = await client.request_from_server("elicitation/create")
        content = {"name": "Ada", "age": "old"}
        await client.feed({"id": request["id"], "result": {"action": "accept", "content": content}})
        text = (await client.reply_to(2))["result"]["content"][0]["text"]
        assert text == (
            "ClientResponseError: The client's elicitation answer does not fit the form: "
            "age: expected an integer"
        )


async def test_sampling_request_and_answer() -> None:
    async with connected() as client:
        await client.call(1, "sample")
        _, request = await client.request_from_server("sampling/createMessage")
        assert request["params"] == {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Hi"}},
                {"role": "assistant", "content": {"type": "text", "text": "Yo"}},
            ],
            "maxTokens": 5,
            "temperature": 0.5,
            "stopSequences": ["."],
        }
        result = {
            "role": "assistant",
            "content": {"type": "text", "text": "Hello"},
            "model": "m",
            "stopReason": "endTurn",
        }
        await client.feed({"id": request["id"], "result": result})
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert json.loads(text) == ["Hello", "m", "assistant", "endTurn"]


async def test_roots_request_and_answer() -> None:
    async with connected() as client:
        await client.call(1, "roots")
        _, request = await client.request_from_server("roots/list")
        assert request["params"] == {}
        await client.feed({"id": request["id"], "result": {"roots": [{"uri": "file:///a"}]}})
        assert json.loads((await client.reply_to(1))["result"]["content"][0]["text"]) == [
            {"uri": "file:///a"}
        ]


async def test_a_client_without_the_capability_is_not_asked() -> None:
    async with connected(capabilities={"sampling": {}}) as client:
        await client.call(1, "ask")
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert text == (
            "ClientCapabilityError: Cannot send 'elicitation/create': the client did not "
            "declare the 'elicitation' capability."
        )
        assert not [m for _, m in client.sent if m.get("method") == "elicitation/create"]


async def test_the_clients_error_response_is_raised() -> None:
    async with connected() as client:
        await client.call(1, "ask")
        _, request = await client.request_from_server("elicitation/create")
        error = {"code": -32600, "message": "User rejected", "data": {"why": "busy"}}
        await client.feed({"id": request["id"], "error": error})
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert text == (
            "ClientResponseError: The client answered 'elicitation/create' with error "
            "-32600: User rejected"
        )


async def test_a_malformed_answer_is_raised() -> None:
    async with connected() as client:
        await client.call(1, "ask")
        _, request = await client.request_from_server("elicitation/create")
        await client.feed({"id": request["id"], "result": {"action": "maybe"}})
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert text == (
            "ClientResponseError: The client's elicitation result has an invalid action: 'maybe'."
        )


async def test_timeout_withdraws_the_request_and_a_late_answer_is_dropped() -> None:
    async with connected() as client:
        await client.call(1, "ask", {"timeout": 0.05})
        _, request = await client.request_from_server("elicitation/create")
        route, cancel = await client.next_where(
            lambda m: m.get("method") == "notifications/cancelled"
        )
        assert route == 1
        assert cancel["params"] == {"requestId": request["id"], "reason": "timed out"}
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert text == (
            "ClientTimeoutError: The client did not answer 'elicitation/create' within "
            "0.05 seconds."
        )
        await client.feed({"id": request["id"], "result": {"action": "cancel"}})  # too late
        await client.feed({"id": "tw-99", "result": {}})  # never sent
        await client.feed({"id": 7, "method": "ping"})
        assert (await client.reply_to(7))["result"] == {}
        assert not [m for _, m in client.sent if "error" in m]


async def test_cancelling_the_call_withdraws_its_request() -> None:
    async with connected() as client:
        await client.call(1, "ask")
        _, request = await client.request_from_server("elicitation/create")
        await client.feed({"method": "notifications/cancelled", "params": {"requestId": 1}})
        route, cancel = await client.next_where(
            lambda m: m.get("method") == "notifications/cancelled"
        )
        assert (route, cancel["params"]["requestId"]) == (1, request["id"])
        assert client.session.outbound.pending == 0
        await client.feed(
            {"id": request["id"], "result": {"action": "accept", "content": {"name": "x"}}}
        )
        await client.feed({"id": 2, "method": "ping"})
        await client.reply_to(2)
        assert not [m for _, m in client.sent if m.get("id") == 1]  # a cancelled call gets no reply


async def test_closing_the_session_clears_the_table() -> None:
    async with connected() as client:
        await client.call(1, "ask")
        await client.request_from_server("elicitation/create")
        assert client.session.outbound.pending == 1
        client.session.close()
        assert client.session.outbound.pending == 0
        assert client.session.outbound.closed


async def test_without_a_back_channel_the_tool_is_told_what_to_change() -> None:
    async with connected(back_channel=False) as client:
        await client.call(1, "ask")
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert text == (
            "NoBackChannelError: Cannot send 'elicitation/create': this session has no channel "
            "for requests to the client (HTTP in JSON-response or stateless mode). Serve with "
            "SSE responses and sessions (json_response=False, stateless=False), or over stdio."
        )


async def test_a_tool_called_directly_has_nobody_to_ask() -> None:
    ctx: ToolContext[None] = ToolContext(None, tool_name="t", tool_call_id="1", tool_arguments="{}")
    with pytest.raises(ClientRequestError, match="not served over MCP"):
        await ctx.elicit("?", FORM)
    with pytest.raises(ClientRequestError, match="not served over MCP"):
        await ctx.sample("?", max_tokens=1)


async def test_bad_sampling_arguments_are_the_tools_error() -> None:
    server = Server("bad-sampling")
    problems: list[str] = []

    @server.tool
    async def bad(ctx: ToolContext[Any]) -> str:
        """Try every malformed request."""
        for kwargs in (
            {"prompt_or_messages": "x", "max_tokens": 0},
            {"prompt_or_messages": [], "max_tokens": 5},
            {"prompt_or_messages": [{"role": "system", "content": {}}], "max_tokens": 5},
        ):
            try:
                await ctx.sample(**kwargs)
            except Exception as error:
                problems.append(f"{type(error).__name__}: {error}")
        return "done"

    async with connected(server=server) as client:
        await client.call(1, "bad")
        await client.reply_to(1)
    assert problems == [
        "UserError: sample: max_tokens must be a positive integer, not 0",
        "UserError: sample: pass a prompt string or a non-empty list of messages",
        "UserError: sample: message 0 must be a string or a dict with 'role' (\"user\" or "
        "\"assistant\") and 'content' (an MCP content block)",
    ]
    assert not [m for _, m in client.sent if m.get("method") == "sampling/createMessage"]


async def test_a_client_offering_only_url_elicitation_gets_no_form() -> None:
    async with connected(capabilities={"elicitation": {"url": {}}}) as client:
        await client.call(1, "ask")
        text = (await client.reply_to(1))["result"]["content"][0]["text"]
        assert text == (
            "ClientCapabilityError: Cannot send 'elicitation/create': the client's "
            "'elicitation' capability does not include form mode."
        )
    async with connected(capabilities={"elicitation": {"form": {}, "url": {}}}) as client:
        await client.call(1, "ask")
        _, request = await client.request_from_server("elicitation/create")
        await client.feed({"id": request["id"], "result": {"action": "cancel"}})
        assert (await client.reply_to(1))["result"]["content"][0]["text"] == '["cancel", null]'


ASKED_WRONG: list[tuple[str, dict[str, Any], str]] = [
    ("elicit", {"timeout": "30"}, "elicit: timeout must be a number of seconds > 0 or None, "),
    ("elicit", {"timeout": 0}, "elicit: timeout must be a number of seconds > 0 or None, not 0"),
    ("elicit", {"key": 7}, "elicit: key must be a string or None, not int"),
    ("sample", {"timeout": True}, "sample: timeout must be a number of seconds > 0 or None"),
    ("sample", {"stop_sequences": "END"}, "sample: stop_sequences must be a list of strings"),
    ("sample", {"temperature": "hot"}, "sample: temperature must be a number, not 'hot'"),
    ("list_roots", {"timeout": float("nan")}, "list_roots: timeout must be a number of seconds"),
    ("list_roots", {"key": b"k"}, "list_roots: key must be a string or None, not bytes"),
]


@pytest.mark.parametrize(("method", "options", "message"), ASKED_WRONG)
async def test_asking_options_of_the_wrong_kind_are_the_tools_error(
    method: str, options: dict[str, Any], message: str
) -> None:
    """A string timeout failed inside the wait with a bare TypeError, a zero or NaN one gave up
    at once as if the client were silent, and `stop_sequences="END"` went out as
    ["E", "N", "D"]; nothing is sent to the client."""
    server = Server("asking-wrong")
    problems: list[str] = []

    @server.tool
    async def ask_wrong(ctx: ToolContext[Any]) -> str:
        """Ask with one option of the wrong kind."""
        arguments: dict[str, Any] = {
            "elicit": {"message": "?", "schema": FORM},
            "sample": {"prompt_or_messages": "?", "max_tokens": 5},
            "list_roots": {},
        }[method]
        try:
            await getattr(ctx, method)(**arguments, **options)
        except Exception as error:
            problems.append(f"{type(error).__name__}: {error}")
        return "done"

    async with connected(server=server) as client:
        await client.call(1, "ask_wrong")
        await client.reply_to(1)
    assert len(problems) == 1 and problems[0].startswith(f"UserError: {message}")
    assert [m for _, m in client.sent if "method" in m and "id" in m] == []
