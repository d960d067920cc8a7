"""`ctx.context` of served calls (context, context_factory, lifespan), `CallInfo`, and the
`Server` options that configure them; the sessions are opened inside `Server.serving()`."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from toolwire import CallInfo, LifespanError, RunContextWrapper, ToolContext, function_tool
from toolwire.protocol.session.session import ServerSession
from toolwire.server import Server

from ..harness import Peer, handshake, meta, modern

pytestmark = pytest.mark.anyio

CLIENT = {"name": "test", "version": "1"}


def _text(reply: dict[str, Any]) -> str:
    result = reply["result"]
    assert result["isError"] is False, result
    return str(result["content"][0]["text"])


async def _call(peer: Peer, request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    return await peer.request(request_id, "tools/call", {"name": name, "arguments": arguments})


def _user_server(**options: Any) -> Server:
    server = Server("ctx", **options)

    @server.tool
    async def user(ctx: ToolContext[dict[str, str]]) -> str:
        """Who is calling (async tool)."""
        return ctx.context["user"]

    @server.tool
    def user_sync(ctx: RunContextWrapper[dict[str, str]]) -> str:
        """Who is calling (sync tool, run in a worker thread)."""
        return ctx.context["user"]

    return server


async def test_a_context_value_is_the_same_object_in_every_call() -> None:
    shared = {"user": "ada"}
    seen: list[Any] = []
    server = Server("ctx", context=shared)

    @server.tool
    def look(ctx: ToolContext[Any]) -> str:
        """Record the context."""
        seen.append(ctx.context)
        return "ok"

    async with handshake(server) as peer:
        for request_id in (1, 2):
            assert _text(await _call(peer, request_id, "look")) == "ok"
    assert seen == [shared, shared]
    assert all(context is shared for context in seen)


@pytest.mark.parametrize("tool", ["user", "user_sync"])
async def test_a_factory_runs_for_every_call_with_its_call_info(tool: str) -> None:
    infos: list[CallInfo] = []

    def factory(info: CallInfo) -> dict[str, str]:
        infos.append(info)
        return {"user": f"ada#{len(infos)}"}

    server = _user_server(context_factory=factory)
    async with handshake(server, "2025-06-18") as peer:
        assert _text(await _call(peer, 7, tool)) == "ada#1"
        assert _text(await _call(peer, "eight", tool)) == "ada#2"
    first = infos[0]
    assert (first.tool_name, first.call_id, first.protocol_version) == (tool, "7", "2025-06-18")
    assert dict(first.arguments) == {}
    assert first.meta is None
    assert first.client_info == CLIENT
    assert first.state is None
    assert infos[1].call_id == "eight"


async def test_call_info_in_the_modern_era_takes_the_client_from_the_envelope() -> None:
    infos: list[CallInfo] = []

    async def factory(info: CallInfo) -> dict[str, str]:
        infos.append(info)
        return {"user": "ada"}

    server = Server("ctx", context_factory=factory)

    @server.tool
    def echo(ctx: ToolContext[dict[str, str]], text: str) -> str:
        """Echo, signed."""
        return f"{text} ({ctx.context['user']})"

    async with modern(server) as peer:
        params = {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta(progressToken=5)}
        reply = await peer.request(1, "tools/call", params)
    assert _text(reply) == "hi (ada)"
    (info,) = infos
    assert info.protocol_version == "2026-07-28"
    assert info.client_info == CLIENT
    assert info.meta is not None and info.meta["progressToken"] == 5
    assert dict(info.arguments) == {"text": "hi"}
    with pytest.raises(TypeError):
        info.arguments["text"] = "changed"  # type: ignore[index]
    assert repr(info).startswith("CallInfo(arguments=mappingproxy({'text': 'hi'}), call_id='1'")


async def test_an_async_factory_runs_in_a_task_of_its_own_even_for_a_quick_sync_tool() -> None:
    # anyio's cancel scopes need the current task: the factory runs in the call's task.
    async def factory(info: CallInfo) -> dict[str, str]:
        with anyio.fail_after(5):
            await anyio.sleep(0)
        return {"user": "ada"}

    async with handshake(_user_server(context_factory=factory)) as peer:
        for request_id in range(1, 4):
            assert _text(await _call(peer, request_id, "user_sync")) == "ada"


async def test_a_sync_factory_returning_an_awaitable_is_awaited() -> None:
    async def later() -> dict[str, str]:
        return {"user": "ada"}

    async with handshake(_user_server(context_factory=lambda info: later())) as peer:
        assert _text(await _call(peer, 1, "user")) == "ada"


async def test_a_failing_factory_answers_internal_error_and_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    def factory(info: CallInfo) -> Any:
        raise LookupError("no such user token=secret")

    server = Server("ctx", context_factory=factory)

    @server.tool
    def never(ctx: ToolContext[Any]) -> str:
        """Must not run."""
        ran.append("ran")
        return "ran"

    with caplog.at_level(logging.ERROR, logger="toolwire"):
        async with handshake(server) as peer:
            reply = await _call(peer, 1, "never")
            assert (await peer.request(2, "ping"))["result"] == {}  # still serving
    assert reply["result"] == {
        "content": [{"type": "text", "text": "Internal error"}],
        "isError": True,
    }
    assert ran == []
    (record,) = [r for r in caplog.records if "context factory" in r.getMessage()]
    assert record.getMessage() == "the context factory failed for a call of tool 'never'"
    assert record.exc_info is not None and isinstance(record.exc_info[1], LookupError)


async def test_the_lifespan_value_becomes_the_context_and_is_exited_after_serving() -> None:
    steps: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        steps.append(f"enter {server.name}")
        yield {"user": "ada"}
        steps.append("exit")

    server = _user_server(lifespan=lifespan)
    async with handshake(server) as peer:
        assert steps == ["enter ctx"]
        assert _text(await _call(peer, 1, "user")) == "ada"
        assert _text(await _call(peer, 2, "user_sync")) == "ada"
    assert steps == ["enter ctx", "exit"]


async def test_a_factory_sees_the_lifespan_value_as_state() -> None:
    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        yield {"ada-token": "ada"}

    def factory(info: CallInfo) -> dict[str, str]:
        return {"user": info.state["ada-token"]}

    async with handshake(_user_server(lifespan=lifespan, context_factory=factory)) as peer:
        assert _text(await _call(peer, 1, "user")) == "ada"


async def test_a_lifespan_value_and_a_context_value_together_fail_start_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    steps: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[str]:
        steps.append("enter")
        yield "pool"
        steps.append("exit")

    server = Server("both", context={"user": "ada"}, lifespan=lifespan)
    with caplog.at_level(logging.ERROR, logger="toolwire"), pytest.raises(LifespanError):
        async with server.serving():
            pytest.fail("serving must not begin")
    assert steps == ["enter", "exit"]  # what was entered is left again
    (record,) = caplog.records
    assert "did not start" in record.getMessage()
    assert "context_factory=" in record.getMessage()


async def test_a_lifespan_that_is_not_a_context_manager_fails_start_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server("bad", lifespan=lambda server: "not a manager")
    with caplog.at_level(logging.ERROR, logger="toolwire"), pytest.raises(LifespanError):
        async with server.serving():
            pytest.fail("serving must not begin")
    (record,) = caplog.records
    assert record.getMessage() == (
        "server 'bad' did not start: its lifespan failed: TypeError: lifespan(server) must "
        "return an async context manager (e.g. from an @asynccontextmanager function), not str"
    )


async def test_without_serving_a_session_gives_no_context() -> None:
    seen: list[Any] = []
    server = Server("bare", context={"user": "ada"})

    @server.tool
    def look(ctx: ToolContext[Any]) -> str:
        """Record the context."""
        seen.append(ctx.context)
        return "ok"

    peer = Peer()
    async with ServerSession(server, peer.send) as session:
        peer.session = session
        await peer.request(0, "initialize", {"protocolVersion": "2025-06-18"})
        assert _text(await _call(peer, 1, "look")) == "ok"
        session.close()
    assert seen == [None]


async def test_an_agents_sdk_tool_sees_the_context() -> None:
    from .._sdk_tools import sdk_user

    server = Server("sdk", context={"user": "ada"})
    server.add_tool(sdk_user)
    server.add_tool(sdk_user, name="sdk_user_again")
    async with handshake(server) as peer:
        assert _text(await _call(peer, 1, "sdk_user")) == "ada"
        assert _text(await _call(peer, 2, "sdk_user_again")) == "ada"


async def test_the_readme_tool_reads_the_context_through_add_tool() -> None:
    @function_tool
    async def whoami(ctx: ToolContext[dict[str, str]], greeting: str) -> str:
        """Greet the current user.

        Args:
            greeting: How to say hello.
        """
        return f"{greeting}, {ctx.context['user']}"

    server = Server("readme", context={"user": "ada"}, tools=[whoami])
    async with handshake(server) as peer:
        assert _text(await _call(peer, 1, "whoami", greeting="hello")) == "hello, ada"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"context": {}, "context_factory": lambda info: {}},
            "Server() got both context= and context_factory=",
        ),
        ({"context_factory": "user"}, "context_factory must be callable, not str"),
        ({"context_factory": lambda: {}}, "context_factory must accept one positional argument"),
        ({"lifespan": 3}, "lifespan must be callable, not int"),
    ],
)
def test_bad_serving_options_are_rejected_when_the_server_is_made(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        Server("bad", **options)


def test_an_undecorated_async_generator_lifespan_gets_a_hint() -> None:
    async def lifespan(server: Server) -> AsyncIterator[None]:
        yield

    with pytest.raises(TypeError, match=re.escape("@contextlib.asynccontextmanager")):
        Server("bad", lifespan=lifespan)
