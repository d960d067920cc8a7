"""What `call_tool` checks before sending, and what `call_tool_unchecked` leaves to the server."""

from __future__ import annotations

from typing import Any

import pytest
from tests.client._support import bounded, kitchen_params

import toolwire


def test_missing_required_arguments_are_refused_before_sending() -> None:
    async def main() -> tuple[str, Any, str]:
        async with toolwire.MCPServerStdio(params=kitchen_params(), name="kitchen") as server:
            await server.list_tools()
            with pytest.raises(toolwire.UserError) as refused:
                await server.call_tool("add", {"a": 1})
            judged = await server.call_tool_unchecked("add", {"a": 1})
            fine = await server.call_tool("echo", {"text": "Ada"})
            return str(refused.value), judged, fine.content[0].text

    refused, judged, fine = bounded(main, 60)
    assert refused == (
        "Failed to call tool 'add' on MCP server 'kitchen': missing required parameters: b"
    )
    assert judged.is_error is True and "b" in judged.content[0].text
    assert "Ada" in fine


def test_a_relisting_replaces_what_is_required() -> None:
    async def main() -> str:
        async with toolwire.MCPServerStdio(
            params=kitchen_params(), tool_filter={"allowed_tool_names": ["echo"]}
        ) as server:
            await server.list_tools()  # the filter hides `add`; the check still knows it
            with pytest.raises(toolwire.UserError) as refused:
                await server.call_tool("add", {})
            return str(refused.value)

    assert bounded(main, 60).endswith("missing required parameters: a, b")


@pytest.mark.parametrize("unchecked", [True, False])
def test_calls_before_connect_say_so_when_awaited(unchecked: bool) -> None:
    server = toolwire.MCPServerStdio(params=kitchen_params())

    async def main() -> str:
        call = server.call_tool_unchecked if unchecked else server.call_tool
        pending = call("add", {"a": 1, "b": 2})
        with pytest.raises(toolwire.UserError) as refused:
            await pending
        return str(refused.value)

    assert bounded(main, 30) == "Server not initialized. Make sure you call `connect()` first."


def test_the_check_is_the_sdks_sorted_object_only_and_off_once_invalidated() -> None:
    import agents.mcp
    from tests.client._support import script_params

    params = script_params("faulty", "required")

    async def attempts(server: Any) -> list[str]:
        seen = []
        async with server:
            await server.list_tools()
            for arguments in ({"n": 1}, ["zeta", "alpha"]):
                with pytest.raises(Exception) as refused:  # each its own UserError
                    await server.call_tool("work", arguments)
                seen.append(str(refused.value))
            server.invalidate_tools_cache()  # the tool may have changed: the server judges
            seen.append((await server.call_tool("work", {"n": 1})).content[0].text)
        return seen

    async def main() -> tuple[list[str], list[str]]:
        theirs = await attempts(agents.mcp.MCPServerStdio(params=params, name="picky"))
        ours = await attempts(toolwire.MCPServerStdio(params=params, name="picky"))
        return theirs, ours

    theirs, ours = bounded(main, 60)
    failed = "Failed to call tool 'work' on MCP server 'picky': "
    assert (
        ours
        == theirs
        == [
            failed + "missing required parameters: alpha, zeta",
            failed + "arguments must be an object.",
            "worked",
        ]
    )
