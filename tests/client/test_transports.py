"""The adapter against real servers over every transport, in both protocol eras.

Servers: toolwire's kitchen server, an official `mcp` `MCPServer`, and a FastMCP server, each
over stdio, streamable HTTP and legacy SSE. The adapter lists the tools, calls one directly
and through `function_tools()`, and reads prompts and resources where the server has them.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from tests.client._procs import network_server, script_argv, toolwire_argv
from tests.client._support import SERVERS, bounded, kitchen_params

import toolwire
from toolwire import ToolContext

KINDS = {
    "toolwire": toolwire_argv,
    "official": script_argv("official"),
    "fastmcp": script_argv("fastmcp_server"),
}


def _stdio_params(kind: str) -> dict[str, Any]:
    if kind == "toolwire":
        return kitchen_params()
    script = {"official": "official", "fastmcp": "fastmcp_server"}[kind]
    return {"command": sys.executable, "args": [str(SERVERS / f"{script}.py"), "stdio"]}


async def _exercise(server: Any) -> dict[str, Any]:
    async with server:
        seen: dict[str, Any] = {"version": server.protocol_version}
        names = [tool.name for tool in await server.list_tools()]
        seen["has_add"] = "add" in names
        result = await server.call_tool("add", {"a": 20, "b": 22})
        seen["direct"] = result.content[0].text
        tools = {tool.name: tool for tool in await server.function_tools()}
        ctx = ToolContext(None, tool_name="add", tool_call_id="c", tool_arguments="")
        seen["converted"] = await tools["add"].on_invoke_tool(ctx, '{"a": 1, "b": 2}')
        return seen


CASES = [(kind, transport) for kind in KINDS for transport in ("stdio", "http", "sse")]


@pytest.mark.parametrize("mode", ["auto", "handshake"])
@pytest.mark.parametrize("kind, transport", CASES)
def test_list_and_call_everywhere(kind: str, transport: str, mode: str) -> None:
    common = {"client_session_timeout_seconds": 30, "protocol_mode": mode}
    if transport == "stdio":
        seen = bounded(
            lambda: _exercise(toolwire.MCPServerStdio(params=_stdio_params(kind), **common)), 90
        )
    else:
        cls = toolwire.MCPServerStreamableHttp if transport == "http" else toolwire.MCPServerSse
        with network_server(KINDS[kind], transport) as running:
            seen = bounded(lambda: _exercise(cls(params={"url": running.url}, **common)), 90)
    assert seen["has_add"]
    assert seen["direct"] == "42"
    assert seen["converted"] == "3"
    if mode == "handshake":
        assert seen["version"] == "2025-11-25"
    else:
        assert seen["version"] in {"2025-11-25", "2026-07-28"}


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_prompts_and_resources_of_an_official_server(transport: str) -> None:
    async def main(server: Any) -> tuple[Any, ...]:
        async with server:
            prompts = await server.list_prompts()
            got = await server.get_prompt("greet", {"name": "Ada"})
            resources = await server.list_resources()
            memo = await server.read_resource("memo://today")
            templates = await server.list_resource_templates()
            return prompts, got, resources, memo, templates

    if transport == "stdio":
        made = toolwire.MCPServerStdio(params=_stdio_params("official"))
        prompts, got, resources, memo, templates = bounded(lambda: main(made), 90)
    else:
        with network_server(KINDS["official"], "http") as running:
            made = toolwire.MCPServerStreamableHttp(params={"url": running.url})
            prompts, got, resources, memo, templates = bounded(lambda: main(made), 90)
    assert [prompt.name for prompt in prompts.prompts] == ["greet"]
    assert got.messages[0].content.text == "Hello, Ada!"
    assert [str(item.uri) for item in resources.resources] == ["memo://today"]
    assert memo.contents[0].text == "nothing planned"
    assert templates.resource_templates == []


def test_pinning_the_modern_era() -> None:
    async def main() -> str | None:
        async with toolwire.MCPServerStdio(
            params=kitchen_params(), protocol_mode="modern", client_session_timeout_seconds=30
        ) as server:
            await server.call_tool("add", {"a": 1, "b": 1})
            return server.protocol_version

    assert bounded(main, 60) == "2026-07-28"
