"""What `toolwire tools` / `toolwire call` say when the URL lacks its endpoint path, and the
advice `toolwire tools` gives about schemas: for a client, never for the server's author.
Real servers: over HTTP and SSE in their own process, and over stdio."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import toolwire
from tests.interop._served_http import Running, served_http

SERVER = Path(__file__).with_name("_remote_server.py")
LOOSE = f"{sys.executable} {Path(__file__).with_name('_loose_server.py')}"

pytest.importorskip("mcp")


@pytest.fixture(scope="module", params=["http", "sse"])
def running(request: pytest.FixtureRequest) -> Iterator[tuple[str, Running]]:
    with served_http(request.param, "cli", target=SERVER) as serving:
        yield request.param, serving


@pytest.mark.parametrize("command", [["tools"], ["call", "add"]])
@pytest.mark.parametrize("path", ["", "/"])
def test_a_url_without_the_endpoint_path_gets_a_hint(
    running: tuple[str, Running], command: list[str], path: str
) -> None:
    _, serving = running
    url = serving.base + path
    done = toolwire(command[0], url, *command[1:], "--timeout", "10")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"toolwire {command[0]}: {url} answered 404 Not Found: the URL needs the endpoint's "
        f"path: try {serving.base}/mcp (streamable HTTP; toolwire's default) or "
        f"{serving.base}/sse (legacy SSE)\n"
    )


def test_the_wrong_endpoint_gets_a_hint(running: tuple[str, Running]) -> None:
    transport, serving = running
    wrong = f"{serving.base}/{'sse' if transport == 'http' else 'mcp'}"
    done = toolwire("tools", wrong, "--timeout", "10")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"toolwire tools: {wrong} answered 404 Not Found: is the path right? toolwire serves "
        "streamable HTTP at /mcp and legacy SSE at /sse, under the mount's prefix when mounted "
        "in an app\n"
    )
    right = f"{serving.base}/{'mcp' if transport == 'http' else 'sse'}"
    assert toolwire("tools", right).returncode == 0


def test_tools_advice_is_for_a_client() -> None:
    done = toolwire("tools", LOOSE)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    search, store = out.split("\n\n")[1:3]
    assert search.splitlines()[4:] == [
        '    warning [openai-strict] (root): objects need "additionalProperties": false',
        "    warning [openai-strict] (root): every property must be required; missing from "
        "required: limit",
        "    for a client [openai-strict]: toolwire's client adapter sends a strict version "
        "with convert_schemas_to_strict=True (function_tools(), or Agent(mcp_config=...)); "
        "without it the tool is sent non-strict, which OpenAI accepts",
        "    accepted as is by: gemini, anthropic",
    ]
    assert "convert_schemas_to_strict=True cannot make this schema strict" in store
    # Nothing addressed to whoever wrote the server.
    for advice in ("strict_mode", "serve the tool", "use a model with fixed fields"):
        assert advice not in out


def test_tools_advice_holds_for_the_client_adapter() -> None:
    """What the advice promises is what the adapter does with these tools."""
    import asyncio

    from toolwire.client import MCPServerStdio

    async def converted() -> dict[str, bool]:
        command, script = LOOSE.split(" ", 1)
        async with MCPServerStdio({"command": command, "args": [script]}) as server:
            tools = await server.function_tools(convert_schemas_to_strict=True)
            plain = await server.function_tools()
        assert not any(tool.strict_json_schema for tool in plain)
        return {tool.name: tool.strict_json_schema for tool in tools}

    assert asyncio.run(converted()) == {"search": True, "store": False}
    data = json.loads(toolwire("tools", LOOSE, "--json").stdout)
    advice = {tool["name"]: tool["client_advice"] for tool in data["tools"]}
    assert "sends a strict version" in advice["search"]["openai-strict"]
    assert "cannot make this schema strict" in advice["store"]["openai-strict"]
