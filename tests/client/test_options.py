"""The SDK's options through `function_tools()` and the direct methods, checked on the wire.

The faulty server in its `ok` mode records every message it receives, so these tests see
what the adapter actually sent: how often it listed tools, the `_meta` it attached, and
whether a denied call reached the server at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from tests.client._procs import network_server, script_argv
from tests.client._support import bounded, kitchen_params, script_params

import toolwire
from toolwire import ToolContext, ToolOutputImage


def _received(record: Path, method: str) -> list[dict[str, Any]]:
    messages = [json.loads(line) for line in record.read_text().splitlines()]
    return [message for message in messages if message.get("method") == method]


def _ctx(arguments: str = "{}") -> ToolContext[Any]:
    return ToolContext(None, tool_name="work", tool_call_id="c", tool_arguments=arguments)


def test_cache_tools_list_lists_once_until_invalidated(tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"

    async def main() -> tuple[int, int]:
        async with toolwire.MCPServerStdio(
            params=script_params("faulty", "ok", str(record)), cache_tools_list=True
        ) as server:
            for _ in range(3):
                await server.list_tools()
            cached = len(_received(record, "tools/list"))
            server.invalidate_tools_cache()
            await server.list_tools()
            assert server.cached_tools is not None
            assert server.cached_tools[0].name == "work"
            return cached, len(_received(record, "tools/list"))

    assert bounded(main) == (1, 2)


def test_tool_meta_resolver_reaches_the_server(tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    seen: list[Any] = []

    def resolver(context: Any) -> dict[str, Any]:
        seen.append((context.server_name, context.tool_name, context.arguments))
        return {"tenant": "acme"}

    async def main() -> Any:
        async with toolwire.MCPServerStdio(
            params=script_params("faulty", "ok", str(record)), name="f", tool_meta_resolver=resolver
        ) as server:
            (tool,) = await server.function_tools()
            return await tool.on_invoke_tool(_ctx('{"n": 2}'), '{"n": 2}')

    assert bounded(main) == "worked"
    assert seen == [("f", "work", {"n": 2})]
    (call,) = _received(record, "tools/call")
    assert call["params"]["_meta"]["tenant"] == "acme"


def test_a_denied_call_never_reaches_the_server(tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    asked: list[Any] = []

    def deny(request: Any) -> dict[str, Any]:
        asked.append((request.data.name, request.data.server_label, request.data.arguments))
        return {"approve": False, "reason": "not on a Friday"}

    async def main() -> Any:
        async with toolwire.MCPServerStdio(
            params=script_params("faulty", "ok", str(record)), name="f", require_approval="always"
        ) as server:
            (tool,) = await server.function_tools(on_approval_request=deny)
            return await tool.on_invoke_tool(_ctx('{"n": 1}'), '{"n": 1}')

    output = bounded(main)
    assert "'work'" in output and "not on a Friday" in output
    assert asked == [("work", "f", '{"n": 1}')]
    assert _received(record, "tools/call") == []


@pytest.mark.parametrize("structured", [False, True])
def test_results_map_to_local_outputs(structured: bool) -> None:
    async def main() -> dict[str, Any]:
        async with toolwire.MCPServerStdio(
            params=kitchen_params(), use_structured_content=structured,
            client_session_timeout_seconds=30,
        ) as server:  # fmt: skip
            tools = {tool.name: tool for tool in await server.function_tools()}
            out = {}
            for name, arguments in {
                "pixel": "{}",
                "profile": '{"name": "Ada", "age": 36, "tags": []}',
                "boom_loud": '{"reason": "why"}',
                "add": "not json",
            }.items():
                out[name] = await tools[name].on_invoke_tool(_ctx(arguments), arguments)
            return out

    out = bounded(main, 60)
    assert isinstance(out["pixel"], ToolOutputImage)
    profile = json.loads(out["profile"])
    assert profile == {"name": "Ada", "age": 36, "tags": []}
    assert out["boom_loud"] == "boom_loud failed: why"  # isError: the model reads the text
    assert out["add"] == "An error occurred while running the tool. Please try again."


def test_a_custom_httpx_auth_and_the_bearer_token_both_apply() -> None:
    class Stamp(httpx2.Auth):
        def auth_flow(self, request: httpx2.Request) -> Any:
            request.headers["X-Auth-Flow"] = "stamped"
            yield request

    with network_server(script_argv("official"), "http") as running:

        async def main() -> dict[str, str]:
            async with toolwire.MCPServerStreamableHttp(
                params={"url": running.url, "auth": Stamp()}, bearer_token="static-token"
            ) as server:
                result = await server.call_tool("seen_headers", {})
                return dict(json.loads(result.content[0].text))

        seen = bounded(main, 60)
    assert seen["x-auth-flow"] == "stamped"
    assert seen["authorization"] == "Bearer static-token"


@pytest.mark.parametrize("mode", ["handshake", "auto"])
def test_elicitation_and_sampling_callbacks_answer_the_server(mode: str) -> None:
    import mcp.types as mt
    from tests.interop._support import SERVERS as INTEROP_SERVERS

    asked: list[str] = []

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return mt.ElicitResult(action="accept", content={"name": "Ada"})

    async def sample(context: Any, params: Any) -> Any:
        return mt.CreateMessageResult(
            role="assistant", model="stub", content=mt.TextContent(type="text", text="hi there")
        )

    async def main() -> Any:
        async with toolwire.MCPServerStdio(
            params={"command": sys.executable, "args": [str(INTEROP_SERVERS / "asker.py")]},
            protocol_mode=mode, elicitation_callback=elicit, sampling_callback=sample,
            client_session_timeout_seconds=30,
        ) as server:  # fmt: skip
            (tool,) = await server.function_tools()
            return await tool.on_invoke_tool(_ctx('{"question": "Who?"}'), '{"question": "Who?"}')

    out = bounded(main, 60)
    assert asked == ["Who?"]
    assert out.startswith("accept") and "Ada" in out and out.endswith("hi there")


def test_converted_tools_send_the_meta_the_sdks_do(tmp_path: Any) -> None:
    import agents.mcp
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call
    from tests.client._support import run_config

    def resolve(context: Any) -> dict[str, Any]:
        context.arguments["n"] = 99  # careless: what is sent must not change
        return {"example.com/trace": "t-1", "example.com/shared": "resolved"}

    async def sent(record: Any, tools_of: Any, server: Any) -> tuple[Any, Any]:
        async with server:
            model = ScriptedModel(
                [[function_call("work", {"n": 1}, call_id="c")], [assistant_message("ok")]]
            )
            agent = Agent(name="a", model=model, **await tools_of(server))
            await Runner.run(agent, "go", run_config=run_config())
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        (call,) = [line["params"] for line in lines if line.get("method") == "tools/call"]
        return call["arguments"], {k: v for k, v in call["_meta"].items() if "example" in k}

    async def mcp_servers(server: Any) -> dict[str, Any]:
        return {"mcp_servers": [server]}

    async def converted(server: Any) -> dict[str, Any]:
        return {"tools": [tool.to_agents() for tool in await server.function_tools()]}

    async def main() -> tuple[Any, Any]:
        records = [tmp_path / "theirs.jsonl", tmp_path / "ours.jsonl"]
        sdk, ours = (script_params("faulty", "listed_meta", str(r)) for r in records)
        options = {"tool_meta_resolver": resolve}
        theirs = await sent(records[0], mcp_servers, agents.mcp.MCPServerStdio(sdk, **options))
        mine = await sent(records[1], converted, toolwire.MCPServerStdio(ours, **options))
        return theirs, mine

    theirs, ours = bounded(main, 90)
    assert (
        ours
        == theirs
        == (
            {"n": 1},
            {
                "example.com/trace": "t-1",
                "example.com/shared": "listed",
                "example.com/ui": "ui://work",
            },
        )
    )


def test_a_tool_filter_that_is_neither_dict_nor_function_fails_as_in_the_sdk() -> None:
    # It used to be called on each tool, fail, and so leave every tool out without a word.
    import agents
    import agents.mcp

    from toolwire.context import RunContextWrapper

    async def refusal(module: Any) -> tuple[type[BaseException], str]:
        server = module.MCPServerStdio(params=kitchen_params(), tool_filter=5)
        async with server:
            with pytest.raises(Exception) as caught:
                await server.list_tools(RunContextWrapper(None), agents.Agent(name="a"))
        return type(caught.value), str(caught.value)

    async def main() -> list[tuple[type[BaseException], str]]:
        return [await refusal(toolwire), await refusal(agents.mcp)]

    ours, theirs = bounded(main, 60)
    assert ours == theirs == (ValueError, "Tool filter must be callable for dynamic filtering")
