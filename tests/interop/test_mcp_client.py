"""toolwire servers driven by the official `mcp` client over real stdio subprocesses.

`mcp.Client` in mode "auto" (the 2026-07-28 era, probed with `server/discover`) and "legacy"
(its name for the handshake era, opened by `initialize`), with the server started both by its own `server.run()` and by
`python -m toolwire run`; then `ClientSession.initialize` pinned to each handshake version.
"""

from __future__ import annotations

import base64
import sys
from typing import Any

import anyio
import pytest
from tests.interop._support import (
    ADD_INPUT_SCHEMA,
    DEFAULT_FAILURE,
    KITCHEN_TOOLS,
    NOISY,
    PIXEL_PNG,
    ROOT,
    RawClient,
    command,
    session_at_version,
)

pytestmark = pytest.mark.anyio

HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params(launcher: str = "script") -> Any:
    from mcp import StdioServerParameters

    executable, args = command(launcher)
    return StdioServerParameters(command=executable, args=args, cwd=str(ROOT))


def _text(result: Any) -> str:
    assert len(result.content) == 1, result.content
    assert result.content[0].type == "text", result.content
    return str(result.content[0].text)


@pytest.mark.parametrize("launcher", ["script", "cli"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_tools(mode: str, launcher: str) -> None:
    from mcp import Client

    with anyio.fail_after(60):
        async with Client(_params(launcher), mode=mode) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            assert client.server_info.name == "kitchen"
            assert client.server_info.version == "1.2.3"
            assert client.instructions == "Tools for interop tests."
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == KITCHEN_TOOLS

            add = tools["add"]
            assert add.description == "Add two integers."
            assert add.input_schema == ADD_INPUT_SCHEMA
            assert add.output_schema == {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
            }
            assert add.annotations is not None
            assert add.annotations.read_only_hint is True
            assert add.annotations.idempotent_hint is True
            assert add.annotations.destructive_hint is None

            profile = tools["profile"]
            assert profile.title == "Make a profile"
            assert profile.output_schema is not None
            assert profile.output_schema["type"] == "object"
            assert profile.output_schema["required"] == ["name", "age", "tags"]
            assert profile.input_schema["properties"]["name"]["description"] == "The person's name."

            wipe = tools["wipe"]
            assert wipe.annotations is not None
            assert wipe.annotations.destructive_hint is True
            assert wipe.annotations.read_only_hint is False
            # A plain `-> str` tool has no structured output: no outputSchema.
            assert tools["echo"].output_schema is None


@pytest.mark.parametrize("launcher", ["script", "cli"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_call_every_kind_of_result(mode: str, launcher: str) -> None:
    from mcp import Client

    with anyio.fail_after(60):
        async with Client(_params(launcher), mode=mode) as client:
            added = await client.call_tool("add", {"a": 2, "b": 40})
            assert added.is_error is False
            assert _text(added) == "42"
            assert added.structured_content == {"result": 42}

            # Non-ASCII text survives the round trip; the prints inside the tool do not
            # reach the wire (they would break the client's JSON parsing).
            echoed = await client.call_tool("echo", {"text": "héllo ✓ 😀"})
            assert echoed.is_error is False
            assert _text(echoed) == "héllo ✓ 😀"
            assert echoed.structured_content is None

            profile = await client.call_tool("profile", {"name": "Ada", "age": 36, "tags": ["x"]})
            assert profile.is_error is False
            assert profile.structured_content == {"name": "Ada", "age": 36, "tags": ["x"]}
            # The text mirror carries the same object.
            import json

            assert json.loads(_text(profile)) == {"name": "Ada", "age": 36, "tags": ["x"]}

            image = await client.call_tool("pixel", {})
            assert image.is_error is False
            assert len(image.content) == 1
            block = image.content[0]
            assert block.type == "image"
            assert block.mime_type == "image/png"
            assert base64.b64decode(block.data) == PIXEL_PNG


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_failures_are_is_error_results(mode: str) -> None:
    from mcp import Client

    with anyio.fail_after(60):
        async with Client(_params(), mode=mode) as client:
            failed = await client.call_tool("boom", {"reason": "x"})
            assert failed.is_error is True
            assert _text(failed) == DEFAULT_FAILURE  # the exception text is not leaked

            loud = await client.call_tool("boom_loud", {"reason": "disk full"})
            assert loud.is_error is True
            assert _text(loud) == "boom_loud failed: disk full"

            # Arguments that fail validation: a tool error the model can act on, not a
            # protocol error.
            invalid = await client.call_tool("add", {"a": 1, "b": "two"})
            assert invalid.is_error is True
            assert "add" in _text(invalid)
            assert "two" not in _text(invalid)  # values sent are not echoed back

            # The session is still healthy.
            assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {
                "result": 2
            }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_unknown_tool_is_a_protocol_error(mode: str) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    with anyio.fail_after(60):
        async with Client(_params(), mode=mode) as client:
            with pytest.raises(MCPError, match="Unknown tool: nope") as caught:
                await client.call_tool("nope", {})
            assert caught.value.error.code == -32602
            assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {
                "result": 3
            }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_callback_sees_increasing_progress(mode: str) -> None:
    from mcp import Client

    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    with anyio.fail_after(60):
        async with Client(_params(), mode=mode) as client:
            result = await client.call_tool("progress", {"steps": 5}, progress_callback=on_progress)
            assert _text(result) == "done 5"
    assert seen == [(float(i), 5.0, f"step {i}/5") for i in range(1, 6)]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_read_timeout_cancels_the_call_on_the_server(mode: str) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    with anyio.fail_after(60):
        async with Client(_params(), mode=mode) as client:
            with pytest.raises(MCPError):
                await client.call_tool("nap", {"seconds": 30}, read_timeout_seconds=0.5)
            # The client sent notifications/cancelled; the server cancelled the task.
            counts: Any = None
            for _ in range(100):
                counts = (await client.call_tool("stats", {})).structured_content
                if counts == {"nap": 1}:
                    break
                await anyio.sleep(0.05)
            assert counts == {"nap": 1}
            # A sync tool abandoned the same way does not wedge the server either.
            with pytest.raises(MCPError):
                await client.call_tool("block", {"seconds": 2}, read_timeout_seconds=0.3)
            assert _text(await client.call_tool("echo", {"text": "still here"})) == "still here"


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_client_session_with_each_handshake_version(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ClientSession.initialize` offers `LATEST_HANDSHAKE_VERSION`: pin it to `version`."""
    with anyio.fail_after(60):
        async with session_at_version(version, _params(), monkeypatch) as (session, init):
            assert init.protocol_version == version
            assert init.server_info.name == "kitchen"
            assert init.capabilities.tools is not None
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == KITCHEN_TOOLS
            assert tools["add"].input_schema == ADD_INPUT_SCHEMA
            # outputSchema exists from 2025-06-18, annotations from 2025-03-26.
            assert (tools["add"].output_schema is not None) == (version >= "2025-06-18")
            assert (tools["add"].annotations is not None) == (version >= "2025-03-26")
            added = await session.call_tool("add", {"a": 20, "b": 22})
            assert added.is_error is False
            assert added.content[0].text == "42"
            expected_structured = {"result": 42} if version >= "2025-06-18" else None
            assert added.structured_content == expected_structured
            failed = await session.call_tool("boom", {"reason": "x"})
            assert failed.is_error is True
            assert failed.content[0].text == DEFAULT_FAILURE
            image = await session.call_tool("pixel", {})
            assert image.content[0].type == "image"
            assert base64.b64decode(image.content[0].data) == PIXEL_PNG
            await session.send_ping()


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, "2026-07-28"])
async def test_raw_results_validate_against_mcp_types_for_the_version(version: str) -> None:
    """Every result must validate against the official per-version wire models, and carry
    nothing that version's schema does not know (serialize_server_result drops such fields)."""
    from mcp_types.methods import serialize_server_result

    modern = version == "2026-07-28"
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    }

    def params(extra: dict[str, Any]) -> dict[str, Any]:
        return {**extra, "_meta": meta} if modern else extra

    proc = await anyio.open_process([sys.executable, *command("script")[1]], cwd=str(ROOT))
    async with proc:
        raw = RawClient(proc)
        with anyio.fail_after(60):
            if modern:
                await raw.send(
                    {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": params({})}
                )
                first = await raw.reply(1)
                assert first["result"]["supportedVersions"] == ["2026-07-28"]
                checked = serialize_server_result("server/discover", version, first["result"])
            else:
                await raw.send(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {
                            "protocolVersion": version,
                            "capabilities": {},
                            "clientInfo": {"name": "raw", "version": "1"},
                        },
                    }
                )
                first = await raw.reply(1)
                assert first["result"]["protocolVersion"] == version
                checked = serialize_server_result("initialize", version, first["result"])
                await raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            assert checked == first["result"]

            calls: list[tuple[str, dict[str, Any]]] = [
                ("add", {"a": 1, "b": 2}),
                ("profile", {"name": "Ada", "age": 3, "tags": []}),
                ("pixel", {}),
                ("boom", {"reason": "x"}),
                ("echo", {"text": "ü"}),
            ]
            await raw.send(
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params({})}
            )
            listed = (await raw.reply(2))["result"]
            assert serialize_server_result("tools/list", version, listed) == listed
            for number, (name, arguments) in enumerate(calls, start=3):
                await raw.send(
                    {
                        "jsonrpc": "2.0",
                        "id": number,
                        "method": "tools/call",
                        "params": params({"name": name, "arguments": arguments}),
                    }
                )
                result = (await raw.reply(number))["result"]
                assert serialize_server_result("tools/call", version, result) == result, name
                assert result["isError"] is (name == "boom")
                if modern:
                    assert result["resultType"] == "complete"
                    server_info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
                    assert server_info["name"] == "kitchen"
                else:
                    assert "resultType" not in result
        assert proc.stdin is not None
        await proc.stdin.aclose()
        with anyio.fail_after(10):
            assert await proc.wait() == 0
    # stdout carried only JSON-RPC 2.0 frames.
    import json

    for line in raw.lines:
        assert json.loads(line)["jsonrpc"] == "2.0"


async def test_demo_server_runs_under_the_official_client() -> None:
    """The README's demo (`python -m servers.demo`) lists and calls under mcp.Client."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "servers.demo"], cwd=str(ROOT)
    )
    with anyio.fail_after(60):
        async with Client(params, mode="legacy") as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert {"shout", "word_stats", "swatch", "countdown", "delete_note"} <= tools
            assert _text(await client.call_tool("shout", {"text": "héllo"})) == "HÉLLO"


async def test_prints_at_import_and_in_tools_do_not_reach_the_wire() -> None:
    """`toolwire run` protects stdout before importing the module, so a module that prints
    at import time and inside its tool still speaks clean JSON-RPC to a real client."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolwire", "run", str(NOISY)], cwd=str(ROOT)
    )
    with anyio.fail_after(60):
        async with Client(params, mode="legacy") as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["shout"]
            assert _text(await client.call_tool("shout", {"text": "quiet"})) == "QUIET"


async def test_noisy_module_stdout_carries_only_frames() -> None:
    """The same, byte for byte: every stdout line is a JSON-RPC frame (a client library
    might skip a bad line silently; this does not)."""
    import json

    proc = await anyio.open_process(
        [sys.executable, "-m", "toolwire", "run", str(NOISY)], cwd=str(ROOT)
    )
    async with proc:
        raw = RawClient(proc)
        with anyio.fail_after(60):
            await raw.send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {}},
                }
            )
            await raw.reply(1)
            await raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            await raw.send(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "shout", "arguments": {"text": "x"}},
                }
            )
            called = await raw.reply(2)
            assert called["result"]["content"] == [{"type": "text", "text": "X"}]
            assert proc.stdin is not None
            await proc.stdin.aclose()
            assert proc.stdout is not None
            rest = b""
            async for chunk in proc.stdout:
                rest += chunk
            assert await proc.wait() == 0
    assert rest == b""
    assert raw.buffered == b""
    assert [json.loads(line)["id"] for line in raw.lines] == [1, 2]


LONE_SURROGATES = '''
from toolwire import Server

server = Server("halves")


@server.tool
def names() -> str:
    """A file name with an undecodable byte, and half an emoji."""
    return b"caf\\xe9.txt".decode("utf-8", "surrogateescape") + " \\ud83d" + "\\ude00!" + "\\ud83d"
'''


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_lone_surrogates_reach_the_official_client_as_replacement_characters(
    tmp_path: Any, mode: str
) -> None:
    """Escaped as `\\udcXX`, a lone surrogate is JSON that pydantic's strict parser refuses:
    the official client dropped the reply and the call hung. It arrives as U+FFFD instead."""
    from mcp import Client, StdioServerParameters

    script = tmp_path / "halves.py"
    script.write_text(LONE_SURROGATES)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolwire", "run", str(script)], cwd=str(ROOT)
    )
    with anyio.fail_after(60):
        async with Client(params, mode=mode) as client:
            assert _text(await client.call_tool("names", {})) == "caf\ufffd.txt \U0001f600!\ufffd"
