"""The client adapter beside the raw `mcp` client and the Agents SDK's own MCP client.

Run: `python -m tests.benchmarks.bench_client` from the repository root (`--quick` for a
short run). One run, ratios printed; it asserts nothing about time (machines are shared and
noisy). Against the same toolwire stdio server (tests/interop/servers/kitchen.py):

1. Per-call overhead: `CALLS` calls of `add` through the raw `mcp.ClientSession` (the
   handshake era) and `mcp.Client` (negotiated), then through toolwire's adapter in the same
   era: `server.call_tool()` and a converted `FunctionTool`'s `on_invoke_tool`. Target: the
   adapter within +10 % of the raw client.
2. Start-up: connect + list_tools + one call, `REPEATS` times each, toolwire's
   `MCPServerStdio` beside `agents.mcp.MCPServerStdio` (medians).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tests.interop._support import KITCHEN, ROOT

QUICK = "--quick" in sys.argv
CALLS = 100 if QUICK else 500
REPEATS = 2 if QUICK else 7
WARMUP = 20


def _params() -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(KITCHEN)], "cwd": str(ROOT)}


async def _per_call(call: Callable[[], Awaitable[Any]]) -> float:
    for _ in range(WARMUP):
        await call()
    started = time.perf_counter()
    for _ in range(CALLS):
        await call()
    return (time.perf_counter() - started) / CALLS * 1e6


async def raw_session() -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(**_params())
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        return await _per_call(lambda: session.call_tool("add", {"a": 1, "b": 2}))


async def raw_client() -> float:
    from mcp import Client, StdioServerParameters

    async with Client(StdioServerParameters(**_params())) as client:
        await client.list_tools()
        return await _per_call(lambda: client.call_tool("add", {"a": 1, "b": 2}))


async def adapter(mode: str, converted: bool) -> float:
    import toolwire
    from toolwire import ToolContext

    async with toolwire.MCPServerStdio(
        params=_params(), protocol_mode=mode, client_session_timeout_seconds=60
    ) as server:
        if not converted:
            await server.list_tools()
            return await _per_call(lambda: server.call_tool("add", {"a": 1, "b": 2}))
        tools = {tool.name: tool for tool in await server.function_tools()}
        add = tools["add"]
        ctx = ToolContext(None, tool_name="add", tool_call_id="c", tool_arguments="")
        return await _per_call(lambda: add.on_invoke_tool(ctx, '{"a": 1, "b": 2}'))


async def _startup(make: Callable[[], Any]) -> float:
    started = time.perf_counter()
    async with make() as server:
        await server.list_tools()
        await server.call_tool("add", {"a": 1, "b": 2})
    return (time.perf_counter() - started) * 1e3


async def startups() -> tuple[float, float]:
    import agents.mcp

    import toolwire

    ours, theirs = [], []
    for _ in range(REPEATS):  # interleaved, so that load drifts hit both alike
        ours.append(
            await _startup(
                lambda: toolwire.MCPServerStdio(params=_params(), client_session_timeout_seconds=60)
            )
        )
        theirs.append(
            await _startup(
                lambda: agents.mcp.MCPServerStdio(
                    params=_params(), client_session_timeout_seconds=60
                )
            )
        )
    return statistics.median(ours), statistics.median(theirs)


async def main() -> None:
    print(f"per call, {CALLS} calls of `add` on the kitchen server over stdio (us/call)")
    session = await raw_session()
    handshake = await adapter("handshake", converted=False)
    handshake_tool = await adapter("handshake", converted=True)
    print(f"  mcp ClientSession (2025-11-25)          {session:9.0f}")
    print(f"  toolwire call_tool (handshake)          {handshake:9.0f}  x{handshake / session:.2f}")
    print(
        f"  toolwire FunctionTool (handshake)       {handshake_tool:9.0f}"
        f"  x{handshake_tool / session:.2f}"
    )
    client = await raw_client()
    auto = await adapter("auto", converted=False)
    auto_tool = await adapter("auto", converted=True)
    print(f"  mcp Client (negotiated)                 {client:9.0f}")
    print(f"  toolwire call_tool (auto)               {auto:9.0f}  x{auto / client:.2f}")
    print(f"  toolwire FunctionTool (auto)            {auto_tool:9.0f}  x{auto_tool / client:.2f}")
    ours, theirs = await startups()
    print(f"connect + list_tools + call, median of {REPEATS} (ms)")
    print(f"  agents.mcp.MCPServerStdio               {theirs:9.0f}")
    print(f"  toolwire.MCPServerStdio                 {ours:9.0f}  x{ours / theirs:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
