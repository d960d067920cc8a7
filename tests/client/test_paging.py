"""Listings that span several pages: every page is read, and `max_list_pages` bounds them.

A toolwire server hands out 100 tools or prompts per page; the server here has 230 of each, so
a listing takes three pages, through the real protocol session and the `mcp` client.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import toolwire
from toolwire import Server
from toolwire.client import MCPServerInMemory
from toolwire.errors import UserError

COUNT = 230


def _server() -> Server:
    server = Server("many")
    for index in range(COUNT):

        def echo(text: str) -> str:
            """Say it back.

            Args:
                text: What to say.
            """
            return text

        server.tool(name=f"echo_{index:03}")(echo)
        server.prompt(name=f"ask_{index:03}")(lambda: "Hello!")
    return server


@pytest.mark.parametrize("mode", ["handshake", "modern"])
def test_every_page_is_read(mode: str) -> None:
    async def go() -> tuple[list[str], list[str]]:
        async with MCPServerInMemory(_server(), protocol_mode=mode) as client:
            tools = await client.list_tools()
            prompts = await client.list_prompts()
        return [tool.name for tool in tools], [prompt.name for prompt in prompts.prompts]

    tools, prompts = asyncio.run(go())
    assert tools == [f"echo_{index:03}" for index in range(COUNT)]
    assert prompts == [f"ask_{index:03}" for index in range(COUNT)]


@pytest.mark.parametrize(("pages", "fits"), [(2, False), (3, True)])
def test_max_list_pages_bounds_a_listing(pages: int, fits: bool) -> None:
    async def go() -> list[Any]:
        outcomes: list[Any] = []
        async with MCPServerInMemory(_server(), max_list_pages=pages) as client:
            for listing in (client.list_tools, client.list_prompts):
                try:
                    outcomes.append(await listing())
                except UserError as error:
                    outcomes.append(str(error))
            outcomes.append(client.cached_tools)
        return outcomes

    tools, prompts, cached = asyncio.run(go())
    if fits:
        assert len(tools) == COUNT and len(prompts.prompts) == COUNT
        assert prompts.next_cursor is None
        assert cached is not None and len(cached) == COUNT
        return
    assert tools == (
        "MCP tool listing exceeded max_list_pages. Increase max_list_pages to allow more "
        "pages, or check the server pagination."
    )
    assert prompts == (
        "MCP prompt listing exceeded max_list_pages. Increase max_list_pages to allow more "
        "pages, or check the server pagination."
    )
    assert cached is None


async def _listing_errors(server: Any) -> list[str]:
    """What listing the tools, then the prompts, of `server` raised (each its own UserError)."""
    texts = []
    async with server:
        for listing in (server.list_tools, server.list_prompts):
            with pytest.raises(Exception) as caught:
                await listing()
            texts.append(str(caught.value))
    return texts


def test_max_list_pages_says_what_the_sdk_says() -> None:
    import agents.mcp
    from tests.client._support import bounded, script_params

    params = script_params("faulty", "endless_cursor")

    async def main() -> tuple[list[str], list[str]]:
        theirs = await _listing_errors(agents.mcp.MCPServerStdio(params=params, max_list_pages=3))
        ours = await _listing_errors(toolwire.MCPServerStdio(params=params, max_list_pages=3))
        return theirs, ours

    theirs, ours = bounded(main, 60)
    assert ours == theirs
    assert theirs[0].startswith("MCP tool listing exceeded max_list_pages.")


def test_a_repeated_cursor_ends_the_listing_as_in_the_sdk(tmp_path: Any) -> None:
    import agents.mcp
    from tests.client._support import bounded, script_params

    record = tmp_path / "received.jsonl"
    params = script_params("faulty", "loop_cursor", str(record))

    async def main() -> tuple[list[str], list[str]]:
        theirs = await _listing_errors(agents.mcp.MCPServerStdio(params=params, name="looping"))
        ours = await _listing_errors(toolwire.MCPServerStdio(params=params, name="looping"))
        return theirs, ours

    theirs, ours = bounded(main, 60)
    assert (
        ours
        == theirs
        == [
            "MCP server 'looping' returned a repeated cursor while listing tools.",
            "MCP server 'looping' returned a repeated cursor while listing prompts.",
        ]
    )
    listed = [json.loads(line).get("method") for line in record.read_text().splitlines()]
    # Each client read two pages of each list (no cursor, then "again"), not 10,000.
    assert listed.count("tools/list") == listed.count("prompts/list") == 4
