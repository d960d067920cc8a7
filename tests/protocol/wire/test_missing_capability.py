"""A 2026-07-28 call that needs a capability the client did not declare is refused with -32021.

The tool asks (`ctx.sample`, `ctx.elicit`, `ctx.list_roots`) and lets `ClientCapabilityError`
through: the call is answered with MissingRequiredClientCapability naming the capability, as
the 2026-07-28 specification requires (the conformance harness's server-stateless scenario
checks it), instead of the `isError` result the handshake era keeps.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import ClientCapabilityError, ToolContext
from toolwire.server import Server

from ..harness import handshake, meta, modern

pytestmark = pytest.mark.anyio

DEFAULT_FAILURE = "An error occurred while running the tool. Please try again."


def _server() -> Server:
    server = Server("needy")

    @server.tool
    async def needs_sampling(ctx: ToolContext[Any]) -> str:
        """Asks the client's model."""
        reply = await ctx.sample("hi", max_tokens=5)
        return reply.text

    @server.tool
    async def needs_roots(ctx: ToolContext[Any]) -> str:
        """Asks for the roots."""
        return str(await ctx.list_roots())

    @server.tool
    async def copes(ctx: ToolContext[Any]) -> str:
        """Asks, and manages without the answer."""
        try:
            await ctx.elicit("name?", {"type": "object", "properties": {}})
        except ClientCapabilityError:
            return "managed without"
        return "asked"

    return server


@pytest.mark.parametrize(
    ("tool", "capability", "method"),
    [
        ("needs_sampling", "sampling", "sampling/createMessage"),
        ("needs_roots", "roots", "roots/list"),
    ],
)
async def test_modern_call_is_refused_with_32021(tool: str, capability: str, method: str) -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": tool, "arguments": {}, "_meta": meta()}
        )
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": -32021,
            "message": f"Cannot send '{method}': the client did not declare the "
            f"'{capability}' capability.",
            "data": {"requiredCapabilities": {capability: {}}},
        },
    }


async def test_a_tool_that_catches_the_error_answers_normally() -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": "copes", "arguments": {}, "_meta": meta()}
        )
    assert reply["result"]["content"] == [{"type": "text", "text": "managed without"}]
    assert reply["result"]["isError"] is False


async def test_handshake_era_keeps_the_is_error_result() -> None:
    async with handshake(_server()) as peer:
        reply = await peer.request(1, "tools/call", {"name": "needs_sampling", "arguments": {}})
    assert reply["result"] == {
        "content": [{"type": "text", "text": DEFAULT_FAILURE}],
        "isError": True,
    }
