"""`MCPServerInMemory`: a `toolwire.Server` reached in memory through the client adapter.

Every test drives the real protocol session (the one stdio and HTTP serve) through the real
`mcp` client; nothing is mocked. The server's lifespan, both protocol eras, the adapter's
whole surface (tools, resources, prompts, `function_tools()`, an Agents SDK run) and the
errors a test author needs to see are checked on what comes back.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from toolwire import Server, ToolContext
from toolwire.client import MCPCallError, MCPServerInMemory
from toolwire.errors import UserError

MODES = ["auto", "handshake", "modern"]


def _server(events: list[str]) -> Server:
    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[dict[str, int]]:
        events.append("enter")
        try:
            yield {"base": 40}
        finally:
            events.append("exit")

    server = Server("mem", lifespan=lifespan)

    @server.tool
    def add(ctx: ToolContext[dict[str, int]], a: int, b: int) -> int:
        """Add two integers to the lifespan's base.

        Args:
            a: The first.
            b: The second.
        """
        return ctx.context["base"] + a + b

    @server.resource("notes://today")
    def today() -> str:
        """Today's note."""
        return "water the plants"

    @server.resource("notes://broken")
    def broken() -> str:
        """A note that cannot be read."""
        raise RuntimeError("the disk is on fire")

    @server.prompt
    def greet(name: str) -> str:
        """Greet someone."""
        return f"Hello, {name}!"

    @server.prompt
    def fail(name: str) -> str:
        """A prompt that fails."""
        raise KeyError(name)

    return server


@pytest.mark.parametrize("mode", MODES)
def test_the_whole_surface_in_each_era(mode: str) -> None:
    events: list[str] = []
    server = _server(events)

    async def go() -> dict[str, Any]:
        async with MCPServerInMemory(server, protocol_mode=mode) as client:
            assert events == ["enter"]
            tools = await client.list_tools()
            result = await client.call_tool("add", {"a": 1, "b": 1})
            note = await client.read_resource("notes://today")
            prompt = await client.get_prompt("greet", {"name": "Ada"})
            converted = {tool.name: tool for tool in await client.function_tools()}
            return {
                "version": client.protocol_version,
                "tools": [tool.name for tool in tools],
                "result": (result.content[0].text, result.is_error),
                "note": note.contents[0].text,
                "prompt": prompt.messages[0].content.text,
                "converted": sorted(converted),
            }

    seen = asyncio.run(go())
    assert events == ["enter", "exit"]
    expected_version = "2025-11-25" if mode == "handshake" else "2026-07-28"
    assert seen == {
        "version": expected_version,
        "tools": ["add"],
        "result": ("42", False),
        "note": "water the plants",
        "prompt": "Hello, Ada!",
        "converted": ["add"],
    }


@pytest.mark.parametrize("mode", ["handshake", "modern"])
def test_a_failing_resource_or_prompt_reaches_the_caller_with_its_cause(mode: str) -> None:
    server = _server([])

    async def go() -> tuple[str, str]:
        async with MCPServerInMemory(server, protocol_mode=mode) as client:
            with pytest.raises(MCPCallError) as read:
                await client.read_resource("notes://broken")
            with pytest.raises(MCPCallError) as rendered:
                await client.get_prompt("fail", {"name": "Ada"})
            return str(read.value), str(rendered.value)

    read, rendered = asyncio.run(go())
    assert "Error reading resource notes://broken: RuntimeError: the disk is on fire" in read
    assert "Error rendering prompt 'fail': KeyError: 'Ada'" in rendered


def test_a_failing_lifespan_fails_connect_with_its_cause() -> None:
    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[None]:
        raise ConnectionRefusedError("database is down")
        yield

    server = Server("down", lifespan=lifespan)

    async def go() -> None:
        async with MCPServerInMemory(server):
            pass

    with pytest.raises(Exception) as raised:
        asyncio.run(go())
    assert "database is down" in f"{raised.value} {raised.value.__cause__}"


def test_an_agents_sdk_run_uses_it_as_an_mcp_server() -> None:
    agents = pytest.importorskip("agents")
    testing = pytest.importorskip("agents.testing")
    server = _server([])
    model = testing.ScriptedModel(
        [
            testing.ModelStep(
                output=[testing.function_call("add", {"a": 1, "b": 2}, call_id="c1")]
            ),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )

    async def go() -> Any:
        async with MCPServerInMemory(server) as client:
            agent = agents.Agent(name="a", model=model, mcp_servers=[client])
            return await agents.Runner.run(agent, "add them")

    result = asyncio.run(go())
    outputs = [
        item["output"]
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert outputs == [[{"type": "input_text", "text": "43"}]]
    assert result.final_output == "done"


def _sockets_and_children() -> tuple[set[str], set[str]]:
    """The sockets this process holds and its child processes, by identity: what ends in the
    meantime (a loop or child left by an earlier test) is not counted as opened."""
    sockets: set[str] = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target.startswith("socket:"):
            sockets.add(target)
    children: set[str] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as listed:
                children.update(listed.read().split())
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    return sockets, children


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc (Linux)")
def test_no_socket_and_no_process_is_opened() -> None:
    server = _server([])

    async def go() -> tuple[tuple[set[str], set[str]], tuple[set[str], set[str]]]:
        before = _sockets_and_children()
        async with MCPServerInMemory(server) as client:
            await client.call_tool("add", {"a": 0, "b": 0})
            during = _sockets_and_children()
        return before, during

    (sockets_before, children_before), (sockets_during, children_during) = asyncio.run(go())
    assert sockets_during - sockets_before == set()
    assert children_during - children_before == set()


def test_only_a_toolwire_server_is_accepted() -> None:
    with pytest.raises(UserError, match="needs a toolwire Server, not str"):
        MCPServerInMemory("python -m myserver")


def test_calls_in_flight_are_cancelled_at_cleanup_and_the_lifespan_still_exits() -> None:
    events: list[str] = []
    server = _server(events)
    started = asyncio.Event()
    finished: list[str] = []

    @server.tool
    async def nap() -> str:
        """Sleep for a long time."""
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            finished.append("nap's finally ran")
        return "rested"

    async def go() -> None:
        async with MCPServerInMemory(server) as client:
            call = asyncio.ensure_future(client.call_tool("nap", {}))
            await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)

    asyncio.run(go())
    assert finished == ["nap's finally ran"]
    assert events == ["enter", "exit"]


def test_a_failed_sync_tool_logs_a_warning_that_carries_its_exception(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The README's first example: a sqlite connection opened in the lifespan (on the event
    # loop's thread) used by a sync tool (on a worker thread). What the author sees first is
    # the WARNING line, so it must say what went wrong, not only the model's generic text.
    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[sqlite3.Connection]:
        connection = sqlite3.connect(":memory:")
        try:
            yield connection
        finally:
            connection.close()

    server = Server("todo", lifespan=lifespan)

    @server.tool
    def count(ctx: ToolContext[sqlite3.Connection]) -> int:
        """Count the todos."""
        return int(ctx.context.execute("select 1").fetchone()[0])

    async def go() -> Any:
        async with MCPServerInMemory(server) as client:
            return await client.call_tool("count", {})

    caplog.set_level(logging.WARNING, logger="toolwire")
    result = asyncio.run(go())
    assert result.is_error is True
    assert result.content[0].text.startswith("An error occurred while running the tool.")
    [warning] = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "count" in warning.getMessage()
    assert "SQLite objects created in a thread can only be used in that same thread" in (
        warning.getMessage()
    )


def test_reading_pauses_while_the_sessions_backlog_is_full_and_resumes() -> None:
    """Past `CALLS_LIMIT` calls running, the transport reads no more requests; once they end,
    the rest are read and every call is answered."""
    from toolwire.protocol.session.requests_in_flight import CALLS_LIMIT

    server = Server("held")
    release = asyncio.Event()
    started: list[int] = []

    @server.tool
    async def hold(n: int) -> int:
        """Wait for the release, then answer `n`.

        Args:
            n: The call's number.
        """
        started.append(n)
        await release.wait()
        return n

    total = CALLS_LIMIT + 50

    async def go() -> tuple[int, list[Any]]:
        async with MCPServerInMemory(server, client_session_timeout_seconds=None) as client:
            calls = [
                asyncio.ensure_future(client.call_tool("hold", {"n": n})) for n in range(total)
            ]
            while len(started) < CALLS_LIMIT:
                await asyncio.sleep(0.01)
            for _ in range(50):  # time for any call past the limit to start, were it read
                await asyncio.sleep(0)
            await asyncio.sleep(0.1)
            peak = len(started)
            release.set()
            results = await asyncio.gather(*calls)
        return peak, results

    peak, results = asyncio.run(go())
    assert peak == CALLS_LIMIT
    assert [result.structured_content["result"] for result in results] == list(range(total))
