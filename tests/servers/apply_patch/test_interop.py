"""toolwire-patch through real clients: the official `mcp` client over stdio (`python -m`)
and over streamable HTTP (the `toolwire-patch` command), and one MCP Inspector CLI call."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests._listening import free_port, listening
from tests.interop._inspector import first_json, inspector_or_skip, run_inspector
from tests.servers.apply_patch._support import envelope, write

pytestmark = pytest.mark.anyio

PATCH = envelope("*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** Add File: d/n.txt\n+new")
BAD = envelope("*** Update File: a.txt\n@@\n-gamma\n+GAMMA")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    write(root, {"a.txt": "alpha\nbeta\n"})
    return root


def _env() -> dict[str, str]:
    return {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ.get("PATH", "")}


async def _exercise(target: Any, mode: str, root: Path) -> None:
    from mcp import Client

    with anyio.fail_after(60):
        async with Client(target, mode=mode) as client:
            assert client.server_info.name == "toolwire-patch"
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {"apply_patch", "apply_patch_operations"}
            for tool in tools.values():
                assert tool.annotations is not None
                assert tool.annotations.destructive_hint is True
                assert tool.annotations.open_world_hint is False
            assert tools["apply_patch"].input_schema["required"] == ["input"]
            operation = tools["apply_patch_operations"].input_schema["$defs"]["PatchOperation"]
            assert operation["properties"]["type"]["enum"] == [
                "create_file",
                "update_file",
                "delete_file",
            ]

            dry = await client.call_tool("apply_patch", {"input": PATCH, "dry_run": True})
            assert dry.is_error is False
            assert "-beta\n+BETA" in dry.content[0].text
            assert (root / "a.txt").read_text() == "alpha\nbeta\n"

            done = await client.call_tool("apply_patch", {"input": PATCH})
            assert done.is_error is False
            assert (
                done.content[0].text == "Success. Updated the following files:\nM a.txt\nA d/n.txt"
            )
            assert (root / "a.txt").read_text() == "alpha\nBETA\n"

            failed = await client.call_tool("apply_patch", {"input": BAD})
            assert failed.is_error is True
            assert failed.content[0].text.startswith("Failed to find expected lines in a.txt")

            ops = [{"type": "update_file", "path": "a.txt", "diff": "@@\n-BETA\n+beta"}]
            undone = await client.call_tool("apply_patch_operations", {"operations": ops})
            assert undone.is_error is False
            assert undone.content[0].text == "Updated a.txt"
            assert (root / "a.txt").read_text() == "alpha\nbeta\n"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_official_client_over_stdio(tmp_path: Path, mode: str) -> None:
    from mcp import StdioServerParameters

    root = _root(tmp_path)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolwire_patch", "--root", str(root)], env=_env()
    )
    await _exercise(params, mode, root)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_official_client_over_streamable_http(tmp_path: Path, mode: str) -> None:
    root = _root(tmp_path)
    port = free_port()
    command = Path(sys.executable).parent / "toolwire-patch"
    if not command.exists():
        pytest.skip(f"{command} is not installed: pip install -e servers/apply_patch")
    argv = [str(command), "--root", str(root), "--transport", "http", "--port", str(port)]
    with listening(argv, port, env={**os.environ, **_env()}):
        await _exercise(f"http://127.0.0.1:{port}/mcp", mode, root)


def test_inspector_cli_applies_a_patch(tmp_path: Path) -> None:
    inspector = inspector_or_skip()
    root = _root(tmp_path)
    target = [sys.executable, "-m", "toolwire_patch", "--root", str(root)]
    done = run_inspector(
        inspector,
        # This checkout's toolwire, whichever the environment would import.
        ["-e", f"PYTHONPATH={Path(__file__).resolve().parents[3] / 'src'}", *target],
        "--method",
        "tools/call",
        "--tool-name",
        "apply_patch",
        "--tool-arg",
        f"input={PATCH}",
    )
    result = first_json(done)["result"]
    assert result["isError"] is False, json.dumps(result)
    assert result["content"][0]["text"].endswith("M a.txt\nA d/n.txt")
    assert (root / "a.txt").read_text() == "alpha\nBETA\n"
    assert (root / "d/n.txt").read_text() == "new\n"


def test_inspector_cli_applies_a_patch_over_streamable_http(tmp_path: Path) -> None:
    inspector = inspector_or_skip()
    root = _root(tmp_path)
    port = free_port()
    argv = [sys.executable, "-m", "toolwire_patch", "--root", str(root)]
    argv += ["--transport", "http", "--port", str(port)]
    with listening(argv, port, env={**os.environ, **_env()}):
        remote = [f"http://127.0.0.1:{port}/mcp", "--transport", "http"]
        done = run_inspector(
            inspector,
            remote,
            "--method",
            "tools/call",
            "--tool-name",
            "apply_patch",
            "--tool-arg",
            f"input={PATCH}",
        )
    result = first_json(done)["result"]
    assert result["isError"] is False, json.dumps(result)
    assert (root / "a.txt").read_text() == "alpha\nBETA\n"
    assert (root / "d/n.txt").read_text() == "new\n"
