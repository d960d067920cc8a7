"""The npm reference server `@modelcontextprotocol/server-everything` through the adapter,
over stdio, streamable HTTP and legacy SSE.

It runs on Node 22 installed by `scripts/install_node_tools.sh` under `.tw-tools/` (or
`$TW_TOOLS_PREFIX`). Without it the tests skip, except in CI (`CI=true`), where a missing
tool is a failure.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests._node_tools import PREFIX, tool_missing
from tests.client._procs import network_server
from tests.client._support import bounded, run_config

import toolwire
from toolwire import ToolContext, ToolOutputImage, ToolOutputText

EVERYTHING = PREFIX / "bin" / "mcp-server-everything"
TRANSPORT_NAMES = {"http": "streamableHttp", "sse": "sse"}


@pytest.fixture(scope="module", autouse=True)
def _needs_the_server() -> None:
    if not EVERYTHING.exists():
        reason = f"{EVERYTHING} is missing: run scripts/install_node_tools.sh"
        tool_missing(reason)


def _argv(transport: str, port: int) -> list[str]:
    return ["env", f"PORT={port}", str(EVERYTHING), TRANSPORT_NAMES[transport]]


async def _exercise(server: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with server:
        names = {tool.name for tool in await server.list_tools()}
        seen["tools"] = {"echo", "get-sum", "get-tiny-image"} <= names
        tools = {tool.name: tool for tool in await server.function_tools()}

        async def call(name: str, arguments: str) -> Any:
            ctx = ToolContext(None, tool_name=name, tool_call_id="c", tool_arguments=arguments)
            return await tools[name].on_invoke_tool(ctx, arguments)

        seen["echo"] = await call("echo", '{"message": "héllo"}')
        seen["sum"] = await call("get-sum", '{"a": 2, "b": 40}')
        seen["image"] = await call("get-tiny-image", "{}")
        prompts = await server.list_prompts()
        seen["prompt"] = "simple-prompt" in {prompt.name for prompt in prompts.prompts}
        resources = await server.list_resources()
        first = resources.resources[0]
        seen["resource"] = (await server.read_resource(str(first.uri))).contents[0].uri
        seen["first_uri"] = str(first.uri)
    return seen


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
def test_the_reference_server_through_the_adapter(transport: str) -> None:
    common: dict[str, Any] = {"client_session_timeout_seconds": 30}
    if transport == "stdio":
        params = {"command": str(EVERYTHING), "args": ["stdio"]}
        seen = bounded(lambda: _exercise(toolwire.MCPServerStdio(params=params, **common)), 90)
    else:
        cls = toolwire.MCPServerStreamableHttp if transport == "http" else toolwire.MCPServerSse
        with network_server(_argv, transport) as running:
            seen = bounded(lambda: _exercise(cls(params={"url": running.url}, **common)), 90)
    assert seen["tools"]
    assert seen["echo"] == "Echo: héllo"
    assert seen["sum"] == "The sum of 2 and 40 is 42."
    text, image = seen["image"][0], seen["image"][1]
    assert isinstance(text, ToolOutputText)
    assert isinstance(image, ToolOutputImage)
    assert image.image_url is not None and image.image_url.startswith("data:image/png;base64,")
    assert seen["prompt"]
    assert str(seen["resource"]) == seen["first_uri"]


def test_the_reference_server_in_an_agents_run() -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    async def main() -> Any:
        async with toolwire.MCPServerStdio(
            params={"command": str(EVERYTHING), "args": ["stdio"]},
            client_session_timeout_seconds=30,
        ) as server:
            model = ScriptedModel(
                [
                    [function_call("get-sum", {"a": 1, "b": 2}, call_id="c")],
                    [assistant_message("3")],
                ]
            )
            agent = Agent(name="a", model=model, mcp_servers=[server])
            await Runner.run(agent, "go", run_config=run_config())
            assert model.last_call is not None
            return model.last_call.input[-1]["output"]

    assert bounded(main, 90) == [{"type": "input_text", "text": "The sum of 1 and 2 is 3."}]


def test_strict_conversion_falls_back_with_a_logged_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> dict[str, Any]:
        async with toolwire.MCPServerStdio(
            params={"command": str(EVERYTHING), "args": ["stdio"]}, name="every",
            client_session_timeout_seconds=30,
        ) as server:  # fmt: skip
            tools = await server.function_tools(convert_schemas_to_strict=True)
            return {tool.name: tool for tool in tools}

    with caplog.at_level("INFO", logger="toolwire.client"):
        tools = bounded(main, 90)
    assert tools["get-sum"].strict_json_schema
    assert tools["get-sum"].params_json_schema["additionalProperties"] is False
    image = tools["get-tiny-image"]
    assert not image.strict_json_schema  # an object with no properties stays open
    reasons = [r.getMessage() for r in caplog.records if "get-tiny-image" in r.getMessage()]
    assert reasons and "keeps its non-strict schema" in reasons[0]
