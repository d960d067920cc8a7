"""The conformance harness's client under test: toolwire's adapter (`toolwire.client`).

The harness (client mode) starts a mock MCP server per scenario and runs this program with
the server's URL as the last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO
(from the 0.2 alpha on, MCP_CONFORMANCE_PROTOCOL_VERSION says which spec version it plays). Every
scenario goes through the adapter as an application would use it: connect, take the remote
tools as `FunctionTool`s (`function_tools()`), invoke them, clean up. Exit status 0 means the
client did its part; the harness judges the wire.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from toolwire import FunctionTool, ToolContext
from toolwire.client import MCPServerStreamableHttp

logger = logging.getLogger("toolwire.conformance.client")


async def accept_with_defaults(_context: Any, params: Any) -> Any:
    """Accept every form, filling each field that declares a default (SEP-1034, client side).

    A field without a default is left out: the form's fields are optional in every scenario,
    and inventing values would hide whether the defaults were applied.
    """
    from mcp import types

    schema = getattr(params, "requested_schema", None) or {}
    content = {
        name: spec["default"]
        for name, spec in (schema.get("properties") or {}).items()
        if isinstance(spec, dict) and "default" in spec
    }
    return types.ElicitResult(action="accept", content=content)


async def invoke(tools: dict[str, FunctionTool], name: str, arguments: dict[str, Any]) -> Any:
    """Run one converted tool the way an agent run does: a context, JSON arguments."""
    payload = json.dumps(arguments)
    context: ToolContext[None] = ToolContext(
        None, tool_name=name, tool_call_id=f"call_{name}", tool_arguments=payload
    )
    output = await tools[name].on_invoke_tool(context, payload)
    logger.info("%s -> %r", name, output)
    return output


async def _list_only(_tools: dict[str, FunctionTool]) -> None:
    """initialize / request-metadata: connecting and listing is the whole exchange."""


async def _tools_call(tools: dict[str, FunctionTool]) -> None:
    await invoke(tools, "add_numbers", {"a": 5, "b": 3})


async def _elicitation_defaults(tools: dict[str, FunctionTool]) -> None:
    await invoke(tools, "test_client_elicitation_defaults", {})


async def _sse_retry(tools: dict[str, FunctionTool]) -> None:
    await invoke(tools, "test_reconnection", {})


async def _request_state(tools: dict[str, FunctionTool]) -> None:
    # In the harness's order: two multi-round calls, one plain call between flows, and a
    # result without resultType that must count as complete.
    for name in ("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated"):
        await invoke(tools, name, {})
    await invoke(tools, "test_mrtr_no_result_type", {})


SCENARIOS: dict[str, Callable[[dict[str, FunctionTool]], Awaitable[None]]] = {
    "initialize": _list_only,
    "request-metadata": _list_only,
    "tools_call": _tools_call,
    "elicitation-sep1034-client-defaults": _elicitation_defaults,
    "sse-retry": _sse_retry,
    "sep-2322-client-request-state": _request_state,
}


async def run(url: str, scenario: str) -> None:
    """Connect to the scenario's mock server through the adapter and play the scenario.

    The adapter keeps its default protocol mode ("auto"): it asks for the 2026-07-28 era and
    falls back to the initialize handshake, so the same client passes both harness legs.
    TOOLWIRE_CONFORMANCE_MODE picks another one ("modern": pinned to 2026-07-28).
    """
    play = SCENARIOS[scenario]
    server = MCPServerStreamableHttp(
        params={"url": url, "timeout": 10, "sse_read_timeout": 30},
        name=f"conformance-{scenario}",
        client_session_timeout_seconds=20,
        elicitation_callback=accept_with_defaults,
        protocol_mode=os.environ.get("TOOLWIRE_CONFORMANCE_MODE", "auto"),
    )
    async with server:
        tools = {tool.name: tool for tool in await server.function_tools()}
        logger.info("tools: %s", sorted(tools))
        await play(tools)


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(argv) < 2 or scenario not in SCENARIOS:
        print(
            f"usage: MCP_CONFORMANCE_SCENARIO=<one of {', '.join(sorted(SCENARIOS))}> "
            f"{argv[0]} <server-url> (got scenario {scenario!r})",
            file=sys.stderr,
        )
        return 2
    logger.info(
        "scenario %s, spec version %s",
        scenario,
        os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "(not set: harness 0.1.x)"),
    )
    asyncio.run(run(argv[-1], scenario))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
