"""Connections that outlive tasks, restarts, many servers, names, and HTTP headers.

- connect in one task, call in a second, clean up in a third (a web app's lifespan and its
  requests), with no "cancel scope in a different task" error and no process left;
- a stdio server killed between calls, a streamable HTTP server restarted (its session is
  gone: 404) and an SSE server restarted are reconnected on the next call;
- `MCPServerManager` connects and cleans up a group, recording a server that fails;
- two servers with the same tool name: prefixes on request, a clear error otherwise;
- headers computed per request and a bearer token provider reach the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import Any

import pytest
from tests.client._procs import network_server, script_argv, toolwire_argv
from tests.client._support import SERVERS, bounded, kitchen_params, run_config, script_params

import toolwire
from toolwire import ToolContext, UserError


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_connect_call_and_cleanup_in_three_different_tasks() -> None:
    async def main() -> tuple[str, int]:
        server = toolwire.MCPServerStdio(params=kitchen_params(), client_session_timeout_seconds=30)
        await asyncio.get_running_loop().create_task(server.connect())
        result = await asyncio.get_running_loop().create_task(
            server.call_tool("add", {"a": 1, "b": 2})
        )
        pid = server.process_id
        assert pid is not None
        await asyncio.get_running_loop().create_task(server.cleanup())
        return result.content[0].text, pid

    text, pid = bounded(main, 60)
    assert text == "3"
    assert _gone(pid) or _wait_gone(pid)


def _wait_gone(pid: int) -> bool:
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_killed_stdio_server_is_restarted_on_the_next_call() -> None:
    async def main() -> tuple[list[str], list[int]]:
        texts, pids = [], []
        async with toolwire.MCPServerStdio(
            params=kitchen_params(), client_session_timeout_seconds=30
        ) as server:
            for n in range(3):
                result = await server.call_tool("add", {"a": n, "b": 1})
                texts.append(result.content[0].text)
                assert server.process_id is not None
                pids.append(server.process_id)
                if n == 0:
                    os.kill(server.process_id, signal.SIGKILL)
                    await asyncio.sleep(0.5)
        return texts, pids

    texts, pids = bounded(main, 90)
    assert texts == ["1", "2", "3"]
    assert pids[0] != pids[1] == pids[2]


def test_cleanup_during_a_reconnect_leaves_no_connection_and_no_process() -> None:
    async def main() -> tuple[str, int, bool]:
        server = toolwire.MCPServerStdio(
            params=script_params("faulty", "slow_start"),
            max_retry_attempts=1,  # a call that meets the dead server reconnects
            retry_backoff_seconds_base=0,
        )
        await server.connect()
        first = server.process_id
        assert first is not None
        os.kill(first, signal.SIGKILL)
        call = asyncio.ensure_future(server.call_tool("work", {}))
        while server.process_id in (first, None):  # the call started a new server
            await asyncio.sleep(0.01)
        second = server.process_id
        await server.cleanup()  # while the new server is still starting
        with pytest.raises(UserError) as caught:
            await call
        return str(caught.value), second, server.client is None

    text, second, unlinked = bounded(main, 60)
    assert text == "Server not initialized. Make sure you call `connect()` first."
    assert unlinked
    assert _wait_gone(second), second


def test_concurrent_connects_start_one_server(tmp_path: Any) -> None:
    record = tmp_path / "received.jsonl"

    async def main() -> None:
        server = toolwire.MCPServerStdio(params=script_params("faulty", "ok", str(record)))
        await asyncio.gather(server.connect(), server.connect())
        await server.call_tool("work", {})
        await server.cleanup()

    bounded(main, 60)
    methods = [json.loads(line).get("method") for line in record.read_text().splitlines()]
    assert methods.count("initialize") == 1, methods  # a second would have been left running


SECRET_URL = "http://user:hunter2@127.0.0.1:{port}/mcp?api_key=sk-secret#frag"


def test_messages_logs_and_prefixed_names_leave_a_urls_credentials_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import agents.mcp
    from tests._listening import free_port

    port = free_port()
    closed = SECRET_URL.format(port=port)

    async def refused(cls: Any) -> str:
        server = cls(params={"url": closed, "timeout": 5})
        with pytest.raises(Exception) as caught:
            await server.connect()
        await server.cleanup()
        return str(caught.value)

    with network_server(toolwire_argv, "http") as running:

        async def main() -> tuple[str, str, list[str], str, str]:
            theirs = await refused(agents.mcp.MCPServerStreamableHttp)
            ours = await refused(toolwire.MCPServerStreamableHttp)
            url = SECRET_URL.format(port=running.port)
            async with toolwire.MCPServerStreamableHttp(params={"url": url}) as server:
                tools = await server.function_tools(prefix_tool_names=True)
                with pytest.raises(toolwire.MCPCallError) as failed:
                    await server.call_tool("no_such_tool_here", {})
                return theirs, ours, [tool.name for tool in tools], str(failed.value), repr(server)

        with caplog.at_level("DEBUG", logger="toolwire"):
            theirs, ours, names, failed, shown = bounded(main, 90)

    # The name as the Agents SDK shows it: scheme, host, port and path.
    name = f"streamable_http: http://127.0.0.1:{port}/mcp"
    assert theirs.startswith(f"Failed to connect to MCP server '{name}': ")
    assert ours.startswith(f"Failed to connect to MCP server '{name}': ")
    assert failed.startswith("Failed to call tool 'no_such_tool_here' on MCP server ")
    assert all(name.startswith("mcp_streamable_http__http___127_0_0_1_") for name in names)
    for text in (ours, failed, shown, caplog.text, *names):
        assert "hunter2" not in text and "sk-secret" not in text and "frag" not in text


@pytest.mark.parametrize(
    "transport, retries, mode",
    [("http", 0, "handshake"), ("http", 0, "auto"), ("sse", 1, "auto"), ("sse", 1, "handshake")],
)
def test_a_restarted_network_server_is_reconnected(transport: str, retries: int, mode: str) -> None:
    cls = toolwire.MCPServerStreamableHttp if transport == "http" else toolwire.MCPServerSse
    with network_server(toolwire_argv, transport) as running:

        async def main() -> tuple[list[str], list[Any]]:
            texts, sessions = [], []
            async with cls(
                params={"url": running.url}, max_retry_attempts=retries,
                retry_backoff_seconds_base=0.05, protocol_mode=mode,
                client_session_timeout_seconds=30,
            ) as server:  # fmt: skip
                for n in range(2):
                    result = await server.call_tool("add", {"a": n, "b": 10})
                    texts.append(result.content[0].text)
                    sessions.append(getattr(server, "session_id", None))
                    if n == 0:
                        await asyncio.to_thread(running.restart)
            return texts, sessions

        texts, sessions = bounded(main, 120)
    assert texts == ["10", "11"]
    if transport == "http" and mode == "handshake":
        assert None not in sessions and sessions[0] != sessions[1]


def test_the_manager_connects_many_and_records_failures() -> None:
    async def main() -> tuple[Any, ...]:
        good = toolwire.MCPServerStdio(params=kitchen_params(), name="good")
        other = toolwire.MCPServerStdio(params=script_params("faulty", "ok"), name="other")
        broken = toolwire.MCPServerStdio(params={"command": "/nonexistent/x"}, name="broken")
        manager = toolwire.MCPServerManager([good, broken, other, good])
        # enter in one task, leave in another
        await asyncio.get_running_loop().create_task(manager.__aenter__())
        active = [server.name for server in manager.active_servers]
        failed = [server.name for server in manager.failed_servers]
        errors = {server.name: str(error) for server, error in manager.errors.items()}
        text = (await good.call_tool("add", {"a": 2, "b": 2})).content[0].text
        pids = [good.process_id, other.process_id]
        await asyncio.get_running_loop().create_task(manager.__aexit__(None, None, None))
        return active, failed, errors, text, pids

    active, failed, errors, text, pids = bounded(main, 90)
    assert active == ["good", "other"]
    assert failed == ["broken"]
    assert errors["broken"].startswith("Failed to connect to MCP server 'broken': ")
    assert text == "4"
    assert all(pid is not None and _wait_gone(pid) for pid in pids)


@pytest.mark.parametrize("option", ["connect_timeout_seconds", "cleanup_timeout_seconds"])
@pytest.mark.parametrize(
    "value",
    ["5", -1, 0, float("nan"), float("inf"), 10**400, True],
    ids=["str", "negative", "zero", "nan", "inf", "huge-int", "bool"],
)
def test_the_manager_refuses_a_bad_bound_as_the_sdk_does(option: str, value: Any) -> None:
    # Accepted, a bad cleanup bound made every cleanup fail and left each server running.
    from agents.mcp import MCPServerManager as SdkManager
    from agents.mcp import MCPServerStdio as SdkStdio

    with pytest.raises((TypeError, ValueError)) as expected:
        SdkManager([SdkStdio(params=kitchen_params())], **{option: value})
    server = toolwire.MCPServerStdio(params=kitchen_params())
    with pytest.raises((TypeError, ValueError)) as caught:
        toolwire.MCPServerManager([server], **{option: value})
    assert (type(caught.value), str(caught.value)) == (type(expected.value), str(expected.value))
    assert option in str(caught.value)
    manager = toolwire.MCPServerManager([server], **{option: 0.5})
    assert getattr(manager, option) == 0.5


def test_same_tool_names_prefix_or_fail_clearly() -> None:
    from toolwire.client import all_function_tools

    async def main() -> tuple[str, list[str], str]:
        # The loop below spins while the listing runs: on a loaded machine the two servers
        # may need longer than the 5 s default to answer.
        one = toolwire.MCPServerStdio(
            params=kitchen_params(), name="one", client_session_timeout_seconds=30
        )
        two = toolwire.MCPServerStdio(
            params=kitchen_params(), name="two", client_session_timeout_seconds=30
        )
        async with toolwire.MCPServerManager([one, two]) as manager:
            with pytest.raises(UserError) as clash:
                await all_function_tools(manager.active_servers)
            # The override is for these tools only: the servers' own setting never changes,
            # not even while the listing is on its way (another task may read it meanwhile).
            seen: set[bool] = set()
            listing = asyncio.ensure_future(
                all_function_tools(manager.active_servers, prefix_tool_names=True)
            )
            while not listing.done():
                seen.update((one.prefix_tool_names, two.prefix_tool_names))
                await asyncio.sleep(0)
            tools = listing.result()
            by_name = {tool.name: tool for tool in tools}
            ctx = ToolContext(None, tool_name="x", tool_call_id="c", tool_arguments="")
            out = await by_name["mcp_two__add"].on_invoke_tool(ctx, '{"a": 3, "b": 4}')
            assert seen == {False}
            return str(clash.value), sorted(by_name), out

    clash, names, out = bounded(main, 90)
    assert clash.startswith("Duplicate tool names across MCP servers: 'add' on 'one', 'two'; ")
    assert "prefix_tool_names=True" in clash
    assert "mcp_one__add" in names and "mcp_two__add" in names
    assert len(names) == len(set(names))
    assert out == "7"


def test_prefixed_names_are_the_sdks_for_odd_server_and_tool_names() -> None:
    import agents.mcp
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message

    params = script_params("faulty", "odd_names")

    async def main() -> tuple[list[str], list[str]]:
        async with agents.mcp.MCPServerStdio(params=params, name="my-server_") as sdk:
            model = ScriptedModel([[assistant_message("ok")]])
            config: Any = {"include_server_in_tool_names": True}
            agent = Agent(name="a", model=model, mcp_servers=[sdk], mcp_config=config)
            await Runner.run(agent, "go", run_config=run_config())
            assert model.last_call is not None
            theirs = [tool.name for tool in model.last_call.tools]
        async with toolwire.MCPServerStdio(params=params, name="my-server_") as ours:
            mine = [tool.name for tool in await ours.function_tools(prefix_tool_names=True)]
        return sorted(theirs), sorted(mine)

    theirs, ours = bounded(main, 60)
    assert ours == theirs == ["mcp_my-server__ode", "mcp_my-server__plain", "mcp_my-server__tool"]


def test_headers_provider_and_bearer_token_reach_the_server() -> None:
    calls = {"headers": 0, "token": 0}

    def headers() -> dict[str, str]:
        calls["headers"] += 1
        return {"X-Request-Count": str(calls["headers"]), "X-Tenant": "acme"}

    async def token() -> str:
        calls["token"] += 1
        return f"tok-{calls['token']}"

    with network_server(script_argv("official"), "http") as running:

        async def main() -> list[dict[str, str]]:
            seen = []
            async with toolwire.MCPServerStreamableHttp(
                params={"url": running.url, "headers": {"X-Static": "yes"}},
                headers_provider=headers,
                bearer_token=token,
                client_session_timeout_seconds=30,
            ) as server:
                for _ in range(2):
                    result = await server.call_tool("seen_headers", {})
                    seen.append(json.loads(result.content[0].text))
            return seen

        first, second = bounded(main, 90)
    assert first["x-static"] == "yes" and first["x-tenant"] == "acme"
    assert first["authorization"].startswith("Bearer tok-")
    assert int(second["x-request-count"]) > int(first["x-request-count"])
    assert second["authorization"] != first["authorization"]


def test_an_unknown_stdio_command_in_sys_path_style() -> None:
    server = toolwire.MCPServerStdio(
        params={"command": sys.executable, "args": [str(SERVERS / "missing.py")]}, name="gone"
    )

    async def main() -> str:
        with pytest.raises(toolwire.MCPCallError) as caught:
            await server.connect()
        return str(caught.value)

    text = bounded(main, 60)
    assert "Failed to connect to MCP server 'gone'" in text
    assert "can't open file" in text and "exited with status 2" in text


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"drop_failed_servers": False},
        {"strict": True},
        {"connect_in_parallel": True},
        {"connect_in_parallel": True, "strict": True},
    ],
    ids=repr,
)
@pytest.mark.parametrize("good_first", [False, True])
def test_the_manager_behaves_as_the_sdks(options: dict[str, Any], good_first: bool) -> None:
    import agents.mcp

    async def run(module: Any) -> tuple[Any, ...]:
        good = module.MCPServerStdio(
            params=kitchen_params(), name="good", client_session_timeout_seconds=30
        )
        bad = module.MCPServerStdio(params={"command": "/nonexistent/x"}, name="bad")
        manager = module.MCPServerManager([good, bad] if good_first else [bad, good], **options)
        try:
            async with manager:
                seen = (
                    [server.name for server in manager.active_servers],
                    [server.name for server in manager.failed_servers],
                    sorted(server.name for server in manager.errors),
                    [server.name for server in manager.all_servers],
                )
                again = [server.name for server in await manager.reconnect()]
                return (*seen, again)
        except Exception as error:
            # The failure itself (not a group), and where each server is.
            state = [server.name for server in manager.active_servers]
            failed = sorted(server.name for server in manager.errors)
            left_open = good.session is not None  # nobody would close it
            await manager.cleanup_all()
            return ("raised", isinstance(error, BaseExceptionGroup), state, failed, left_open)

    async def main() -> tuple[Any, Any]:
        return await run(agents.mcp), await run(toolwire)

    theirs, ours = bounded(main, 120)
    assert ours == theirs
