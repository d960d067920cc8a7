"""Real MCP clients against a toolwire server over the network: streamable HTTP and the
legacy HTTP+SSE transport.

The kitchen server runs in its own process (`server.run(transport, port=N)`, or
`toolwire run kitchen.py --transport http|sse --port N`), listening on 127.0.0.1. The
clients: the official `mcp` client (`ClientSession` after the `initialize` handshake, and
`Client` in auto mode, which speaks 2026-07-28), the Agents SDK's `MCPServerStreamableHttp` /
`MCPServerSse` driving an agent with `ScriptedModel`, and FastMCP's `Client`. Every
assertion is on what the client got back.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import pytest
from tests.interop._served_http import served_http
from tests.interop._support import (
    ADD_INPUT_SCHEMA,
    DEFAULT_FAILURE,
    KITCHEN_TOOLS,
    PIXEL_PNG,
    SERVERS,
)

T = TypeVar("T")

TRANSPORTS = ["http", "sse"]
LAUNCHERS = ["script", "cli"]
PATHS = {"http": "/mcp", "sse": "/sse"}


def _bounded(main: Callable[[], Awaitable[T]], seconds: float = 60) -> T:
    async def run() -> T:
        with anyio.fail_after(seconds):
            return await main()

    return anyio.run(run)


@asynccontextmanager
async def _streams(transport: str, url: str) -> AsyncIterator[tuple[Any, Any]]:
    """The official client's (read, write) streams for `transport`."""
    if transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(url) as (read, write):
            yield read, write
    else:
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(url) as (read, write, *_):
            yield read, write


def _client_target(transport: str, url: str) -> Any:
    """What `mcp.Client` takes to reach `url` over `transport`."""
    if transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(url)
    return url


@pytest.mark.parametrize("launcher", LAUNCHERS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_official_client_session(transport: str, launcher: str) -> None:
    from mcp import ClientSession

    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def main(url: str) -> None:
        async with _streams(transport, url) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocol_version == "2025-11-25"
            assert (init.server_info.name, init.server_info.version) == ("kitchen", "1.2.3")
            assert init.instructions == "Tools for interop tests."
            await session.send_ping()

            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == KITCHEN_TOOLS
            assert tools["add"].input_schema == ADD_INPUT_SCHEMA

            added = await session.call_tool("add", {"a": 5, "b": 6})
            assert added.is_error is False
            assert added.structured_content == {"result": 11}
            assert added.content[0].text == "11"

            profile = await session.call_tool("profile", {"name": "Bo", "tags": ["x"]})
            assert profile.structured_content == {"name": "Bo", "age": 30, "tags": ["x"]}

            image = await session.call_tool("pixel", {})
            assert image.content[0].type == "image"
            assert base64.b64decode(image.content[0].data) == PIXEL_PNG

            failed = await session.call_tool("boom", {"reason": "x"})
            assert failed.is_error is True
            assert failed.content[0].text == DEFAULT_FAILURE

            done = await session.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
            assert done.content[0].text == "done 3"

            # A sync tool in a worker thread and an async one, at once, on one session.
            results: dict[str, str] = {}

            async def call(name: str, seconds: float) -> None:
                reply = await session.call_tool(name, {"seconds": seconds})
                results[name] = reply.content[0].text

            async with anyio.create_task_group() as group:
                group.start_soon(call, "block", 0.2)
                group.start_soon(call, "nap", 0.2)
            assert results == {"block": "blocked 0.2", "nap": "slept 0.2"}

    with served_http(transport, launcher) as server:
        _bounded(lambda: main(server.base + PATHS[transport]))
    assert progress == [(1.0, 3.0, "step 1/3"), (2.0, 3.0, "step 2/3"), (3.0, 3.0, "step 3/3")]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_official_client_in_both_eras(transport: str, mode: str, version: str) -> None:
    from mcp import Client

    seen: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    async def main(url: str) -> None:
        async with Client(_client_target(transport, url), mode=mode) as client:
            assert client.protocol_version == version
            assert client.server_info.name == "kitchen"
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == KITCHEN_TOOLS
            added = await client.call_tool("add", {"a": 2, "b": 3})
            assert added.structured_content == {"result": 5}
            done = await client.call_tool("progress", {"steps": 2}, progress_callback=on_progress)
            assert done.content[0].text == "done 2"
            failed = await client.call_tool("boom_loud", {"reason": "disk full"})
            assert failed.is_error is True
            assert failed.content[0].text == "boom_loud failed: disk full"

    with served_http(transport) as server:
        _bounded(lambda: main(server.base + PATHS[transport]))
    assert seen == [1.0, 2.0]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_cancelling_a_call_cancels_the_tool(transport: str) -> None:
    from mcp import ClientSession

    async def main(url: str) -> dict[str, Any]:
        async with _streams(transport, url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with anyio.move_on_after(0.5):  # the client sends notifications/cancelled
                await session.call_tool("nap", {"seconds": 30})
            for _ in range(200):  # bounded: the cancellation reaches the tool shortly
                stats = (await session.call_tool("stats", {})).structured_content
                assert stats is not None
                if stats["nap"]:
                    return stats
                await anyio.sleep(0.02)
            return stats

    with served_http(transport) as server:
        stats = _bounded(lambda: main(server.base + PATHS[transport]))
    assert stats == {"nap": 1}


def _agents_server(transport: str, url: str) -> Any:
    from agents.mcp import MCPServerSse, MCPServerStreamableHttp

    kind = MCPServerSse if transport == "sse" else MCPServerStreamableHttp
    return kind(params={"url": url, "timeout": 30}, client_session_timeout_seconds=30)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_agents_sdk_runs_an_agent_on_the_server(transport: str) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main(url: str) -> tuple[Any, Any, dict[str, Any]]:
        async with _agents_server(transport, url) as server:
            model = ScriptedModel(
                [
                    [function_call("add", {"a": 2, "b": 40}, call_id="c1")],
                    [function_call("boom", {"reason": "x"}, call_id="c2")],
                    [
                        function_call(
                            "profile", {"name": "Ada", "age": 36, "tags": []}, call_id="c3"
                        )
                    ],
                    [assistant_message("the answer is 42")],
                ]
            )
            agent = Agent(name="calc", model=model, mcp_servers=[server])
            run_config = RunConfig(tracing_disabled=True)
            result = await Runner.run(agent, "add them", run_config=run_config)
            model.assert_complete()
            assert model.last_call is not None
            tools = {tool.name: tool for tool in model.last_call.tools}
            return result.final_output, model.last_call.input, tools

    with served_http(transport) as server:
        final, model_input, tools = _bounded(lambda: main(server.base + PATHS[transport]), 90)
    assert final == "the answer is 42"
    outputs = {item["call_id"]: item["output"] for item in model_input if "output" in item}
    assert outputs["c1"] == [{"type": "input_text", "text": "42"}]
    assert outputs["c2"] == [{"type": "input_text", "text": DEFAULT_FAILURE}]
    assert json.loads(outputs["c3"][0]["text"]) == {"name": "Ada", "age": 36, "tags": []}
    assert tools["add"].params_json_schema == ADD_INPUT_SCHEMA
    assert tools["add"].description == "Add two integers."


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_fastmcp_client(transport: str) -> None:
    from fastmcp import Client
    from fastmcp.client.transports import SSETransport, StreamableHttpTransport
    from fastmcp.exceptions import ToolError

    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async def main(url: str) -> None:
        kind = SSETransport if transport == "sse" else StreamableHttpTransport
        async with Client(kind(url), timeout=30) as client:
            assert client.server_info.name == "kitchen"
            tools = {tool.name: tool for tool in await client.list_tools()}
            assert set(tools) == KITCHEN_TOOLS
            assert tools["wipe"].annotations.destructive_hint is True
            added = await client.call_tool("add", {"a": 5, "b": 6})
            assert added.structured_content == {"result": 11}
            done = await client.call_tool("progress", {"steps": 4}, progress_handler=on_progress)
            assert done.content[0].text == "done 4"
            with pytest.raises(ToolError, match="An error occurred while running the tool"):
                await client.call_tool("boom", {"reason": "x"})

    with served_http(transport) as server:
        _bounded(lambda: main(server.base + PATHS[transport]))
    assert progress == [1.0, 2.0, 3.0, 4.0]


def test_sigterm_with_an_sse_client_connected_ends_its_stream_and_exits_0() -> None:
    from mcp import ClientSession

    async def main(url: str, stop: Callable[[], int]) -> int:
        async with _streams("sse", url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            code = await anyio.to_thread.run_sync(stop)
            # The stream ended with the server: the next request fails instead of hanging.
            with anyio.fail_after(30), pytest.raises(Exception):  # noqa: B017
                await session.call_tool("add", {"a": 1, "b": 2})
            return code

    with served_http("sse") as server:
        code = _bounded(lambda: main(server.base + "/sse", server.stop))
    assert code == 0, server.stderr()


def test_sigterm_with_an_http_client_connected_exits_promptly() -> None:
    from mcp import ClientSession

    async def main(url: str, stop: Callable[[], int]) -> int:
        async with _streams("http", url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await anyio.sleep(0.3)  # the client has opened its GET stream by now
            return await anyio.to_thread.run_sync(stop)

    with served_http("http") as server:
        code = _bounded(lambda: main(server.base + "/mcp", server.stop))
    assert code == 0, server.stderr()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_tool_asks_the_client_back(transport: str) -> None:
    from toolwire import ToolContext

    if not hasattr(ToolContext, "elicit"):
        pytest.skip("needs ctx.elicit / ctx.sample (branch elicit, not merged here yet)")
    from mcp import ClientSession, types

    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def on_sample(context: Any, params: Any) -> Any:
        text = types.TextContent(type="text", text="sampled")
        return types.CreateMessageResult(role="assistant", content=text, model="scripted")

    async def main(url: str) -> str:
        async with (
            _streams(transport, url) as (read, write),
            ClientSession(
                read, write, elicitation_callback=on_elicit, sampling_callback=on_sample
            ) as session,
        ):
            await session.initialize()
            result = await session.call_tool("ask", {"question": "Your name?"})
            return str(result.content[0].text)

    with served_http(transport, target=SERVERS / "asker.py") as server:
        text = _bounded(lambda: main(server.base + PATHS[transport]))
    assert text == "accept {'name': 'Ada'} sampled"
    assert asked == ["Your name?"]
