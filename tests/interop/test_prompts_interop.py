"""Prompts and completion as real clients see them: the official `mcp` Client in both eras
and pinned to each handshake version, FastMCP's Client, and the MCP Inspector CLI over
streamable HTTP and SSE (tests/interop/servers/prompting.py in its own process)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.interop._inspector import first_json, run_inspector
from tests.interop._served_http import served_http
from tests.interop._support import ROOT, session_at_version

SERVER = Path(__file__).resolve().parent / "servers" / "prompting.py"
LAUNCHERS = {"script": [str(SERVER)], "cli": ["-m", "toolwire", "run", str(SERVER)]}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params(launcher: str = "script") -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=LAUNCHERS[launcher], cwd=str(ROOT))


@pytest.mark.anyio
@pytest.mark.parametrize("launcher", ["script", "cli"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_official_client_lists_gets_and_completes(mode: str, launcher: str) -> None:
    from mcp import Client, types

    with anyio.fail_after(60):
        async with Client(_params(launcher), mode=mode) as client:
            assert client.server_capabilities is not None
            assert client.server_capabilities.prompts is not None
            assert client.server_capabilities.completions is not None
            listed = {p.name: p for p in (await client.list_prompts()).prompts}
            assert list(listed) == ["review", "picture", "repeat"]
            review = listed["review"]
            assert review.title == "Code review"
            assert review.description == "Review a piece of code."
            assert [(a.name, a.required, a.description) for a in review.arguments or []] == [
                ("code", True, "The code to review."),
                ("language", False, "The language it is written in."),
            ]

            got = await client.get_prompt("review", {"code": "print(1)", "language": "python"})
            assert got.description == "Review a piece of code."
            assert [m.role for m in got.messages] == ["user", "user", "assistant"]
            assert got.messages[0].content == types.TextContent(
                type="text", text="Please review this python code."
            )
            embedded = got.messages[1].content
            assert isinstance(embedded, types.EmbeddedResource)
            assert str(embedded.resource.uri) == "file:///snippet"
            assert getattr(embedded.resource, "text", None) == "print(1)"

            image = (await client.get_prompt("picture", {"caption": "a pixel"})).messages[0]
            assert isinstance(image.content, types.ImageContent)
            assert image.content.mime_type == "image/png"

            repeated = await client.get_prompt("repeat", {"text": "ha", "times": "3"})
            assert repeated.messages[0].content == types.TextContent(type="text", text="ha ha ha")

            completed = await client.complete(
                types.PromptReference(type="ref/prompt", name="review"),
                {"name": "language", "value": "p"},
            )
            assert completed.completion.values == ["python", "perl"]
            assert completed.completion.total == 2
            assert completed.completion.has_more is False

            with pytest.raises(Exception) as missing:
                await client.get_prompt("review", {})
            assert "Missing required argument(s) for prompt 'review': code" in str(missing.value)
            with pytest.raises(Exception) as wrong:
                await client.get_prompt("repeat", {"text": "x", "times": "often"})
            assert "Invalid argument(s) for prompt 'repeat': 'times'" in str(wrong.value)
            with pytest.raises(Exception) as unknown:
                await client.get_prompt("nope", {})
            assert "Unknown prompt: nope" in str(unknown.value)


@pytest.mark.anyio
@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
async def test_each_handshake_version_validates(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import types

    with anyio.fail_after(60):
        async with session_at_version(version, _params(), monkeypatch) as (session, init):
            assert init.protocol_version == version
            icons = getattr(init.server_info, "icons", None)
            assert bool(icons) is (version == "2025-11-25")
            listed = await session.list_prompts()
            assert [p.name for p in listed.prompts] == ["review", "picture", "repeat"]
            got = await session.get_prompt("repeat", {"text": "yo"})
            assert got.messages[0].content == types.TextContent(type="text", text="yo yo")


@pytest.mark.anyio
async def test_fastmcp_client_lists_gets_and_completes() -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command=sys.executable, args=LAUNCHERS["script"], cwd=str(ROOT), keep_alive=False
    )
    with anyio.fail_after(60):
        async with Client(transport, timeout=30) as client:
            prompts = {p.name: p for p in await client.list_prompts()}
            assert set(prompts) == {"review", "picture", "repeat"}
            got = await client.get_prompt("review", {"code": "x = 1"})
            assert got.messages[0].content.text == "Please review this python code."
            assert got.messages[1].content.type == "resource"
            completed = await client.complete(
                {"type": "ref/prompt", "name": "review"}, {"name": "language", "value": "r"}
            )
            assert completed.values == ["rust"]


# ---------------------------------------------------------------- the Inspector CLI


def _inspect(inspector: Path, url: str, transport: str, *args: str) -> dict[str, Any]:
    return first_json(run_inspector(inspector, [url, "--transport", transport], *args))


@pytest.mark.parametrize(("transport", "path"), [("http", "/mcp"), ("sse", "/sse")])
def test_inspector_cli_lists_and_gets_prompts(
    inspector_cli: Path, transport: str, path: str
) -> None:
    with served_http(transport, target=SERVER) as server:
        url = server.base + path
        listed = _inspect(inspector_cli, url, transport, "--method", "prompts/list")
        assert [p["name"] for p in listed["result"]["prompts"]] == ["review", "picture", "repeat"]
        got = _inspect(
            inspector_cli,
            url,
            transport,
            "--method",
            "prompts/get",
            "--prompt-name",
            "review",
            "--prompt-args",
            "code=print(2)",
            "language=rust",
        )
    messages = got["result"]["messages"]
    assert messages[0]["content"] == {"type": "text", "text": "Please review this rust code."}
    assert messages[1]["content"]["resource"]["text"] == "print(2)"
