"""`resources/read` and `prompts/get` run as tracked requests: in flight, cancellable, busy,
and given the server's context like a tool call."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from toolwire import CallInfo, ToolContext
from toolwire.server import Server

from ..harness import handshake, meta, modern

pytestmark = pytest.mark.anyio


class _Gate:
    """What the slow functions below report: started, cancelled (events of the test's loop)."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()


def _slow_server(gate: _Gate) -> Server:
    server = Server("slow")

    @server.resource("slow://forever")
    async def forever() -> str:
        gate.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            gate.cancelled.set()
            raise
        return "never"

    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

    @server.prompt
    async def asking(ctx: ToolContext[Any]) -> str:
        gate.started.set()
        try:
            answer = await ctx.elicit("Name?", form)
        except asyncio.CancelledError:
            gate.cancelled.set()
            raise
        return str(answer.content)

    return server


async def _cancel(peer: Any, request_id: int) -> None:
    await peer.notify("notifications/cancelled", {"requestId": request_id})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_slow_read_is_busy_cancellable_and_gets_no_reply() -> None:
    gate = _Gate()
    async with handshake(_slow_server(gate)) as peer:
        assert peer.session is not None
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "resources/read",
                "params": {"uri": "slow://forever"},
            }
        )
        with anyio.fail_after(10):
            await gate.started.wait()
        assert peer.session.busy and peer.session.in_flight == 1
        assert (await peer.request(3, "ping"))["result"] == {}  # the read holds nothing
        await _cancel(peer, 2)
        with anyio.fail_after(10):
            await gate.cancelled.wait()
        assert (await peer.request(4, "ping"))["result"] == {}
        assert not peer.session.busy
        assert not [m for m in peer.messages if m.get("id") == 2]


async def test_a_modern_read_is_cancellable_too() -> None:
    gate = _Gate()
    async with modern(_slow_server(gate)) as peer:
        assert peer.session is not None
        params = {"uri": "slow://forever", "_meta": meta()}
        with anyio.fail_after(10):
            await peer.feed(
                {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": params}
            )
            await gate.started.wait()
        assert peer.session.busy
        await _cancel(peer, 2)
        with anyio.fail_after(10):
            await gate.cancelled.wait()
        await peer.request(3, "server/discover", {"_meta": meta()})
        assert not peer.session.busy
        assert not [m for m in peer.messages if m.get("id") == 2]


async def test_a_prompt_waiting_on_its_question_is_cancelled_without_a_reply() -> None:
    gate = _Gate()
    async with handshake(_slow_server(gate), capabilities={"elicitation": {}}) as peer:
        assert peer.session is not None
        await peer.feed(
            {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "asking"}}
        )
        with anyio.fail_after(10):
            await gate.started.wait()
            while not [m for m in peer.messages if m.get("method") == "elicitation/create"]:
                await anyio.sleep(0.005)
        assert peer.session.in_flight == 1
        await _cancel(peer, 2)
        with anyio.fail_after(10):
            await gate.cancelled.wait()
        assert (await peer.request(3, "ping"))["result"] == {}
        assert not [m for m in peer.messages if m.get("id") == 2]
        assert peer.session.in_flight == 0


async def test_a_reused_id_of_a_read_in_flight_is_ignored() -> None:
    gate = _Gate()
    async with handshake(_slow_server(gate)) as peer:
        read = {"jsonrpc": "2.0", "id": 2, "method": "resources/read"}
        with anyio.fail_after(10):
            await peer.feed({**read, "params": {"uri": "slow://forever"}})
            await gate.started.wait()
        await peer.feed({**read, "params": {"uri": "slow://forever"}})
        await peer.request(3, "ping")
        await _cancel(peer, 2)
        with anyio.fail_after(10):
            await gate.cancelled.wait()
        await peer.request(4, "ping")
        assert not [m for m in peer.messages if m.get("id") == 2]


def _context_server(**options: Any) -> Server:
    server = Server("ctx", **options)

    @server.prompt
    def who(ctx: ToolContext[Any]) -> str:
        return f"prompt sees {ctx.context!r}"

    @server.resource("ctx://who")
    async def whose(ctx: ToolContext[Any]) -> str:
        return f"resource sees {ctx.context!r}"

    @server.resource("ctx://{id}/who")
    def whose_item(ctx: ToolContext[Any], id: int) -> str:
        return f"item {id} sees {ctx.context!r} as {ctx.tool_name}"

    return server


async def _texts(server: Server) -> list[str]:
    async with handshake(server) as peer:
        prompt = await peer.request(1, "prompts/get", {"name": "who"})
        fixed = await peer.request(2, "resources/read", {"uri": "ctx://who"})
        item = await peer.request(3, "resources/read", {"uri": "ctx://7/who"})
    return [
        prompt["result"]["messages"][0]["content"]["text"],
        fixed["result"]["contents"][0]["text"],
        item["result"]["contents"][0]["text"],
    ]


async def test_prompts_and_resources_see_the_servers_context() -> None:
    assert await _texts(_context_server(context={"user": "ada"})) == [
        "prompt sees {'user': 'ada'}",
        "resource sees {'user': 'ada'}",
        "item 7 sees {'user': 'ada'} as ctx://7/who",
    ]


async def test_prompts_and_resources_see_the_context_factorys_answer() -> None:
    seen: list[tuple[str, str]] = []

    def factory(info: CallInfo) -> str:
        seen.append((info.tool_name, info.protocol_version))
        return f"made for {info.tool_name}"

    assert await _texts(_context_server(context_factory=factory)) == [
        "prompt sees 'made for who'",
        "resource sees 'made for ctx://who'",
        "item 7 sees 'made for ctx://7/who' as ctx://7/who",
    ]
    assert seen == [
        ("who", "2025-11-25"),
        ("ctx://who", "2025-11-25"),
        ("ctx://7/who", "2025-11-25"),
    ]


async def test_a_failing_context_factory_fails_the_request_without_details() -> None:
    def factory(info: CallInfo) -> str:
        raise RuntimeError("secret set-up detail")

    async with handshake(_context_server(context_factory=factory)) as peer:
        prompt = await peer.request(1, "prompts/get", {"name": "who"})
        read = await peer.request(2, "resources/read", {"uri": "ctx://who"})
    assert prompt["error"] == {"code": -32603, "message": "Error rendering prompt 'who'"}
    assert read["error"]["code"] == -32603
    assert "secret" not in str(read)


async def test_a_context_parameter_is_not_a_template_variable() -> None:
    server = _context_server()
    async with handshake(server) as peer:
        listed = await peer.request(1, "resources/templates/list")
        bad = await peer.request(2, "resources/read", {"uri": "ctx://x/who"})
    assert [t["uriTemplate"] for t in listed["result"]["resourceTemplates"]] == ["ctx://{id}/who"]
    assert bad["error"]["code"] == -32602
    assert "id: Input should be a valid integer" in bad["error"]["message"]


async def test_a_request_reusing_the_id_of_a_call_in_flight_is_ignored_whatever_it_asks() -> None:
    # Any reply to it would carry the running call's id, and the client would take it for
    # that call's answer: valid or not, and whatever its method, it gets none.
    server = Server("dup")
    release = anyio.Event()

    @server.tool
    async def slow() -> str:
        """Wait to be released."""
        await release.wait()
        return "done"

    @server.prompt
    def hello() -> str:
        return "hi"

    async with handshake(server) as peer:
        await peer.feed(
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow"}}
        )
        duplicates: list[tuple[str, dict[str, Any]]] = [
            ("tools/call", {"name": "nope"}),
            ("prompts/get", {"name": "nope"}),
            ("resources/read", {"uri": 5}),
            ("completion/complete", {"ref": {}}),
            ("ping", {}),
            ("tools/list", {}),
        ]
        for method, params in duplicates:
            await peer.feed({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
        assert [m for m in peer.messages if m.get("id") == 7] == []
        release.set()
        reply = await peer.wait_for(7)
        assert reply["result"]["content"] == [{"type": "text", "text": "done"}]
        assert [m for m in peer.take() if m.get("id") == 7] == [reply]
        assert (await peer.request(7, "ping"))["result"] == {}  # the id is free again
