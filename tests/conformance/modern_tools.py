"""The fixture tools that only the 2026-07-28 scenarios of the alpha harness call.

Contracts from the scenario sources of `@modelcontextprotocol/conformance` 0.2.0-alpha.12
(input-required results, stateless serving, standard and custom `Mcp-*` headers). The
input-required tools are ordinary toolwire tools that ask with `ctx.elicit` / `ctx.sample`
/ `ctx.list_roots`: in the 2026-07-28 era toolwire ends the call with an input-required
result keyed by `key=`, seals what the run has used into `requestState`, and runs the tool
again from the start when the client retries with the answers. The harness's keys
(`user_name`, `capital_question`, `client_roots`, `confirm`, ...) are the ones its checks
look for.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Annotated, Any, TypeVar

from pydantic import Field

from toolwire import ClientCapabilityError, Server, ToolContext

T = TypeVar("T")

NAME_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Your name"}},
    "required": ["name"],
}
COLOR_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {"color": {"type": "string", "description": "Your favourite colour"}},
    "required": ["color"],
}
CONFIRM_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "description": "Go ahead?"}},
    "required": ["ok"],
}


def _field(content: Any, name: str) -> Any:
    return content.get(name) if isinstance(content, dict) else None


async def _unless_undeclared(asking: Awaitable[T]) -> T | None:
    """The answer, or None when the client did not declare the capability asked for."""
    try:
        return await asking
    except ClientCapabilityError:
        return None


def add_modern_tools(server: Server) -> None:
    """Publish every tool the alpha harness's 2026-07-28 scenarios call on `server`."""

    @server.tool
    async def test_input_required_result_elicitation(ctx: ToolContext[Any]) -> str:
        """Asks the user's name (input request `user_name`)."""
        answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
        return f"Hello, {_field(answer.content, 'name') or 'stranger'}!"

    @server.tool
    async def test_input_required_result_sampling(ctx: ToolContext[Any]) -> str:
        """Asks the client's model a question (input request `capital_question`)."""
        reply = await ctx.sample(
            "What is the capital of France?", max_tokens=100, key="capital_question"
        )
        return f"The model said: {reply.text}"

    @server.tool
    async def test_input_required_result_list_roots(ctx: ToolContext[Any]) -> str:
        """Asks for the client's roots (input request `client_roots`)."""
        roots = await ctx.list_roots(key="client_roots")
        return "Roots: " + ", ".join(str(root.get("uri")) for root in roots)

    @server.tool
    async def test_input_required_result_request_state(ctx: ToolContext[Any]) -> str:
        """Asks for a confirmation; the answer comes back with the sealed request state."""
        answer = await ctx.elicit("Please confirm", CONFIRM_FORM, key="confirm")
        return f"state-ok: confirmed={_field(answer.content, 'ok')}"

    @server.tool
    async def test_input_required_result_multiple_inputs(ctx: ToolContext[Any]) -> str:
        """Asks three things in one round: a name, a model's greeting and the roots."""
        name, greeting, roots = await asyncio.gather(
            ctx.elicit("What is your name?", NAME_FORM, key="user_name"),
            ctx.sample("Write a short greeting", max_tokens=50, key="greeting"),
            ctx.list_roots(key="client_roots"),
        )
        return (
            f"All inputs received: name={_field(name.content, 'name')}, "
            f"greeting={greeting.text!r}, roots={len(roots)}"
        )

    @server.tool
    async def test_input_required_result_multi_round(ctx: ToolContext[Any]) -> str:
        """Asks in two rounds: the second question needs the first answer."""
        first = await ctx.elicit("Step 1: what is your name?", NAME_FORM, key="step1")
        name = _field(first.content, "name") or "stranger"
        second = await ctx.elicit(
            f"Step 2: {name}, your favourite colour?", COLOR_FORM, key="step2"
        )
        return f"{name} likes {_field(second.content, 'color')}."

    @server.tool
    async def test_input_required_result_tampered_state(ctx: ToolContext[Any]) -> str:
        """Asks for a confirmation; a retry whose request state was altered is refused."""
        answer = await ctx.elicit("Please confirm", CONFIRM_FORM, key="confirm")
        return f"state-ok: confirmed={_field(answer.content, 'ok')}"

    @server.tool
    async def test_input_required_result_capabilities(ctx: ToolContext[Any]) -> str:
        """Asks the model and the user, each only if the client declared that capability."""
        reply, answer = await asyncio.gather(
            _unless_undeclared(ctx.sample("Say hello", max_tokens=50, key="sample")),
            _unless_undeclared(ctx.elicit("What is your name?", NAME_FORM, key="ask")),
        )
        said = reply.text if reply is not None else None
        named = _field(answer.content, "name") if answer is not None else None
        return f"model={said!r}, name={named!r}"

    @server.tool
    async def test_missing_capability(ctx: ToolContext[Any]) -> str:
        """Needs the client's sampling capability: asks the model to say hello."""
        reply = await ctx.sample("Say hello", max_tokens=20, key="hello")
        return f"The model said: {reply.text}"

    @server.tool
    def test_x_mcp_header(
        region: Annotated[
            str,
            Field(
                description="Also sent as the Mcp-Param-Region header",
                json_schema_extra={"x-mcp-header": "Region"},
            ),
        ] = "<none>",
    ) -> str:
        """Echoes `region`, a parameter mirrored into an HTTP header (SEP-2243)."""
        return f"region={region}"

    @server.tool
    def test_trigger_tool_change() -> str:
        """Adds a tool and removes it again, so list-changed notifications go out."""
        server.add_tool(_dynamic_tool, name="test_dynamic_tool")
        server.remove_tool("test_dynamic_tool")
        return "tool list changed"

    @server.tool
    async def test_streaming_elicitation(ctx: ToolContext[Any]) -> str:
        """Asks the user's name while the call's response stream is open."""
        answer = await ctx.elicit("What is your name?", NAME_FORM, key="streamed_name")
        return f"Hello, {_field(answer.content, 'name') or 'stranger'}!"

    @server.tool
    async def test_logging_tool(ctx: ToolContext[Any]) -> str:
        """Sends one log message to the client, then answers."""
        await ctx.info("test_logging_tool ran")
        return json.dumps({"logged": True})


def _dynamic_tool() -> str:
    """Exists only for a moment, inside test_trigger_tool_change."""
    return "dynamic"
