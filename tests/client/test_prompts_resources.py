"""Prompts and resources of a toolwire server, read through the adapter and through the
Agents SDK's own `MCPServerStdio`: the same `mcp` result types, the same contents.

The adapter runs in both protocol modes (stdio and streamable HTTP); the SDK's class is the
oracle over stdio. `_meta` is left out of the comparison: it carries the server's identity
only in the 2026-07-28 era.
"""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest
from tests.client._procs import network_server
from tests.client._support import SERVERS, bounded, script_params

import toolwire


def _notes_argv(transport: str, port: int) -> list[str]:
    return [sys.executable, "-m", "toolwire", "run", str(SERVERS / "notes.py"),
            "--transport", transport, "--port", str(port)]  # fmt: skip


async def _read_all(server: Any) -> dict[str, Any]:
    async with server:
        return {
            "list_prompts": await server.list_prompts(),
            "get_prompt": await server.get_prompt("summarise", {"note_id": "2"}),
            "get_prompt_defaults": await server.get_prompt("hello"),
            "list_resources": await server.list_resources(),
            "read_resource": await server.read_resource("notes://index"),
            "read_template": await server.read_resource("notes://1"),
            "list_resource_templates": await server.list_resource_templates(),
        }


def _shape(results: dict[str, Any]) -> dict[str, tuple[type, dict[str, Any]]]:
    return {
        key: (type(value), value.model_dump(mode="json", by_alias=True, exclude={"meta"}))
        for key, value in results.items()
    }


@pytest.fixture(scope="module")
def oracle() -> dict[str, tuple[type, dict[str, Any]]]:
    import agents.mcp

    sdk = agents.mcp.MCPServerStdio(params=script_params("notes"))
    return _shape(bounded(lambda: _read_all(sdk), 60))


@pytest.mark.parametrize("mode", ["auto", "handshake"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_adapter_returns_what_the_sdk_returns(
    oracle: dict[str, tuple[type, dict[str, Any]]], transport: str, mode: str
) -> None:
    common: dict[str, Any] = {"protocol_mode": mode, "client_session_timeout_seconds": 30}
    if transport == "stdio":
        made = toolwire.MCPServerStdio(
            params=script_params("notes"), errlog=io.StringIO(), **common
        )
        ours = _shape(bounded(lambda: _read_all(made), 60))
    else:
        with network_server(_notes_argv, "http") as running:
            made = toolwire.MCPServerStreamableHttp(params={"url": running.url}, **common)
            ours = _shape(bounded(lambda: _read_all(made), 60))
    assert ours == oracle
    import mcp.types

    assert oracle["list_prompts"][0] is mcp.types.ListPromptsResult
    assert oracle["read_resource"][0] is mcp.types.ReadResourceResult
    prompts = oracle["list_prompts"][1]["prompts"]
    assert [prompt["name"] for prompt in prompts] == ["summarise", "hello"]
    assert oracle["get_prompt"][1]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Summarise in a short way: Call Ada",
                                     "annotations": None, "_meta": None}},
    ]  # fmt: skip
    assert oracle["read_template"][1]["contents"][0]["text"] == "Buy milk"


@pytest.mark.parametrize("mode", ["auto", "handshake"])
def test_a_missing_prompt_or_resource_names_the_server_and_what_was_asked(mode: str) -> None:
    async def main() -> list[str]:
        said: list[str] = []
        async with toolwire.MCPServerStdio(
            params=script_params("notes"), name="notes", errlog=io.StringIO(), protocol_mode=mode
        ) as server:
            for ask in (
                lambda: server.get_prompt("nope"),
                lambda: server.read_resource("notes://9"),
            ):
                with pytest.raises(toolwire.UserError) as raised:
                    await ask()
                said.append(str(raised.value))
        return said

    prompt, resource = bounded(main, 60)
    assert prompt.startswith("Failed to get prompt 'nope' from MCP server 'notes': ")
    assert resource.startswith("Failed to read resource 'notes://9' from MCP server 'notes': ")
