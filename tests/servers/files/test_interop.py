"""The files server in its own process, used by real clients: the official `mcp` client
(both eras, stdio and streamable HTTP, with and without roots), the MCP Inspector CLI, and
the Agents SDK through toolwire's client adapter with a scripted model and approvals."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests._listening import free_port, listening
from tests.interop._inspector import EXIT_TOOL_ERROR, first_json, inspector_or_skip, run_inspector

from ._support import SECRET, make_tree

LAUNCH = Path(__file__).with_name("_launch.py")
EXPECTED_TOOLS = 17


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def _stdio(root: Path, *flags: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[str(LAUNCH), str(root), *flags])


async def _exercise(client: Any, root: Path) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert len(tools) == EXPECTED_TOOLS
    assert tools["edit_file"].annotations.destructive_hint is True
    assert tools["read_text_file"].annotations.read_only_hint is True
    assert tools["read_text_file"].output_schema["properties"]["content"]["type"] == "string"
    read = await client.call_tool("read_text_file", {"path": "a.txt", "head": 1})
    assert read.is_error is False
    assert read.structured_content["content"] == "alpha\n"
    assert json.loads(read.content[0].text)["content"] == "alpha\n"
    dry = await client.call_tool(
        "edit_file",
        {"path": "a.txt", "edits": [{"oldText": "beta", "newText": "BETA"}], "dryRun": True},
    )
    assert dry.is_error is False and "+BETA" in dry.structured_content["content"]
    outside = await client.call_tool(
        "read_text_file", {"path": str(root.parent / "root_evil" / "secret.txt")}
    )
    assert outside.is_error is True and SECRET not in outside.content[0].text
    wrote = await client.call_tool("write_file", {"path": "w.txt", "content": "written"})
    assert wrote.is_error is False
    assert (root / "w.txt").read_text() == "written"
    assert (root / "a.txt").read_text() == "alpha\nbeta\ngamma\n"
    # The client checks structured content against the listed output schema.
    (root / "m.bin").write_bytes(b"\x00\xff")
    media = await client.call_tool("read_media_file", {"path": "m.bin"})
    assert media.is_error is False
    block = {"uri": (root / "m.bin").as_uri(), "mimeType": "application/octet-stream"}
    block["blob"] = "AP8="
    assert media.structured_content == {"content": [{"type": "resource", "resource": block}]}


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_official_client_over_stdio(root: Path, mode: str, version: str) -> None:
    from mcp import Client

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(_stdio(root), mode=mode) as client:
                assert client.protocol_version == version
                assert client.server_info.name == "toolwire-files"
                await _exercise(client, root)

    anyio.run(main)


def test_official_client_roots_narrow_and_are_reread(root: Path) -> None:
    import mcp_types as types
    from mcp import Client

    answer = [(root / "sub").as_uri()]

    async def roots(context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in answer])

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(_stdio(root), mode="legacy", list_roots_callback=roots) as client:
                allowed = await client.call_tool("list_allowed_directories", {})
                assert allowed.structured_content["directories"] == [str(root / "sub")]
                denied = await client.call_tool("read_text_file", {"path": str(root / "a.txt")})
                assert denied.is_error is True
                answer[:] = [root.as_uri()]
                allowed = await client.call_tool("list_allowed_directories", {})
                assert allowed.structured_content["directories"] == [str(root)]
                answer[:] = ["file:///"]
                allowed = await client.call_tool("list_allowed_directories", {})
                assert allowed.structured_content["directories"] == [str(root)]
                answer[:] = []
                allowed = await client.call_tool("list_allowed_directories", {})
                assert allowed.structured_content["directories"] == []

    anyio.run(main)


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_official_client_over_streamable_http(root: Path, mode: str, version: str) -> None:
    from mcp import Client

    port = free_port()
    command = [sys.executable, str(LAUNCH), str(root), "--transport", "http", "--port", str(port)]

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                assert client.protocol_version == version
                await _exercise(client, root)

    with listening(command, port):
        anyio.run(main)


def test_inspector_cli_over_stdio_and_http(root: Path) -> None:
    inspector = inspector_or_skip()
    # The Inspector declares roots and lists none: an empty list would revoke access.
    refused = run_inspector(
        inspector,
        [sys.executable, str(LAUNCH), str(root)],
        "--method",
        "tools/call",
        "--tool-name",
        "read_text_file",
        "--tool-arg",
        "path=a.txt",
    )
    assert refused.returncode == EXIT_TOOL_ERROR and "--client-roots nonempty" in refused.stdout
    target = [sys.executable, str(LAUNCH), str(root), "--client-roots", "nonempty"]
    call = ("--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", "path=a.txt")
    result = first_json(run_inspector(inspector, target, *call))["result"]
    assert result["structuredContent"]["content"] == "alpha\nbeta\ngamma\n"
    listed = first_json(run_inspector(inspector, target, "--method", "tools/list"))["result"]
    assert len(listed["tools"]) == EXPECTED_TOOLS

    port = free_port()
    command = [*target, "--transport", "http", "--port", str(port)]
    with listening(command, port):
        remote = [f"http://127.0.0.1:{port}/mcp", "--transport", "http"]
        result = first_json(run_inspector(inspector, remote, *call))["result"]
    assert result["structuredContent"]["content"] == "alpha\nbeta\ngamma\n"


def _scripted_write(path: str) -> Any:
    testing = pytest.importorskip("agents.testing")
    return testing.ScriptedModel(
        [
            testing.ModelStep(
                output=[
                    testing.function_call(
                        "write_file", {"path": path, "content": "from the agent"}, call_id="c1"
                    )
                ]
            ),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )


def _told(model: Any) -> str:
    outputs = [
        item
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    return str(outputs[-1]["output"])


@pytest.mark.parametrize("approve", [False, True])
def test_agents_sdk_run_with_an_approval_callback(root: Path, approve: bool) -> None:
    agents = pytest.importorskip("agents")
    from toolwire.client import MCPServerStdio

    asked: list[str] = []

    def decide(request: Any) -> Any:
        asked.append(request.data.name)
        return {"approve": approve, "reason": "not on my disk"}

    async def main() -> tuple[Any, Any]:
        server = MCPServerStdio(
            params={"command": sys.executable, "args": [str(LAUNCH), str(root)]},
            name="files",
            client_session_timeout_seconds=30,
        )
        async with server:
            tools = {tool.name: tool for tool in await server.function_tools(decide)}
            assert len(tools) == EXPECTED_TOOLS
            model = _scripted_write("agent.txt")
            agent = agents.Agent(name="a", model=model, tools=[tools["write_file"].to_agents()])
            result = await agents.Runner.run(agent, "write it")
            return result, model

    before = sorted(p.name for p in root.iterdir())
    result, model = asyncio.run(main())
    assert asked == ["write_file"]
    assert result.final_output == "done"
    if approve:
        assert (root / "agent.txt").read_text() == "from the agent"
        assert "Successfully wrote to agent.txt" in _told(model)
    else:
        assert sorted(p.name for p in root.iterdir()) == before
        assert "not on my disk" in _told(model)


def test_toolwire_install_writes_an_entry_that_serves(root: Path) -> None:
    import os
    import subprocess

    from mcp import Client, StdioServerParameters

    checkout = LAUNCH.resolve().parents[3]
    path = os.pathsep.join([str(checkout / "src"), str(checkout / "servers" / "files" / "src")])
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "install", "mcp-json", "toolwire_files.app", "--env",
         f"TOOLWIRE_FILES_ARGS='{root}' --read-only"],
        capture_output=True, text=True, timeout=60, check=True,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    entry = json.loads(done.stdout)["mcpServers"]["toolwire-files"]
    assert entry["args"][:4] == ["-m", "toolwire", "run", "toolwire_files.app"]
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**entry["env"], "PYTHONPATH": path}
    )

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(params, mode="legacy") as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert "write_file" not in names and "read_text_file" in names
                read = await client.call_tool("read_text_file", {"path": "a.txt"})
                assert read.structured_content["content"] == "alpha\nbeta\ngamma\n"

    anyio.run(main)


def _reference_or_skip() -> Path:
    """The npm reference server's entry point, when it is installed here (no network use)."""
    import os

    from tests._node_tools import PREFIX
    from tests.benchmarks._files_peers import REFERENCE

    given = os.environ.get("FILES_REFERENCE_DIR")
    for prefix in [Path(given)] if given else [PREFIX, PREFIX / "files-reference"]:
        entry = prefix / "node_modules" / REFERENCE / "dist" / "index.js"
        if entry.exists():
            return entry
    pytest.skip("the npm server-filesystem is not installed (set FILES_REFERENCE_DIR)")


def test_read_media_file_matches_the_npm_server(root: Path) -> None:
    from tests.benchmarks._files_peers import Stdio, node

    entry = _reference_or_skip()
    (root / "p.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "s.wav").write_bytes(b"RIFF0000WAVE")
    (root / "d.bin").write_bytes(b"\x00\x01")
    seen: dict[str, Any] = {}
    for label, argv in (
        ("ours", [sys.executable, str(LAUNCH), str(root)]),
        ("npm", [node(), str(entry), str(root)]),
    ):
        server = Stdio(argv)
        try:
            server.handshake()
            listed = server.ask("tools/list")["result"]["tools"]
            schema = next(t for t in listed if t["name"] == "read_media_file")["outputSchema"]
            calls = [
                server.call("read_media_file", {"path": str(root / name)})["result"]
                for name in ("p.png", "s.wav", "d.bin")
            ]
        finally:
            server.close()
        schema.pop("$schema", None)
        seen[label] = (schema, calls)

    def bare(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: bare(v) for k, v in value.items() if k != "description"}
        return [bare(item) for item in value] if isinstance(value, list) else value

    assert bare(seen["ours"][0]) == bare(seen["npm"][0])
    for ours, theirs in zip(seen["ours"][1], seen["npm"][1], strict=True):
        assert ours["structuredContent"] == theirs["structuredContent"]
        assert ours["content"] == theirs["content"]


def test_names_that_are_not_utf8_reach_the_official_client(root: Path) -> None:
    """Names with bytes that are not UTF-8 come back with U+FFFD in their place: sent as the
    lone surrogates Python decodes them to, the official client dropped each reply unparsed
    and the call never ended."""
    from mcp import Client

    bad_dir = os.fsencode(root) + b"/dir\xff"
    os.mkdir(bad_dir)
    with open(bad_dir + b"/note\xfe.txt", "wb") as file:
        file.write(b"needle here\n")
    calls = [
        ("list_directory", {"path": "."}, "dir\ufffd"),
        ("list_directory_with_sizes", {"path": "."}, "dir\ufffd"),
        ("directory_tree", {"path": "."}, "note\ufffd.txt"),
        ("search_files", {"path": ".", "pattern": "**/note*"}, "dir\ufffd/note\ufffd.txt"),
        ("search_file_contents", {"path": ".", "pattern": "needle"}, "note\ufffd.txt"),
    ]

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(_stdio(root), mode="legacy") as client:
                for name, arguments, shown in calls:
                    with anyio.fail_after(10):
                        result = await client.call_tool(name, arguments)
                    assert result.is_error is False, (name, result)
                    assert shown in json.dumps(result.structured_content, ensure_ascii=False)
                    text = json.loads(result.content[0].text)
                    assert shown in json.dumps(text, ensure_ascii=False)

    anyio.run(main)


def test_agents_sdk_parallel_appends_to_one_file_all_land(root: Path) -> None:
    """A model's parallel tool calls reach the server at once: ten appends to one file in one
    model turn must leave ten lines."""
    agents = pytest.importorskip("agents")
    testing = pytest.importorskip("agents.testing")
    from toolwire.client import MCPServerStdio

    (root / "log.txt").write_text("")
    calls = [
        testing.function_call(
            "append_file", {"path": "log.txt", "content": f"entry {i}\n"}, call_id=f"c{i}"
        )
        for i in range(10)
    ]
    model = testing.ScriptedModel(
        [
            testing.ModelStep(output=calls),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )

    async def main() -> Any:
        server = MCPServerStdio(
            params={"command": sys.executable, "args": [str(LAUNCH), str(root)]},
            name="files",
            client_session_timeout_seconds=30,
        )
        async with server:
            tools = {tool.name: tool for tool in await server.function_tools()}
            agent = agents.Agent(name="a", model=model, tools=[tools["append_file"].to_agents()])
            return await agents.Runner.run(agent, "log it")

    result = asyncio.run(main())
    assert result.final_output == "done"
    lines = (root / "log.txt").read_text().splitlines()
    assert sorted(lines) == sorted(f"entry {i}" for i in range(10))


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="runs the server as another user: needs root and setpriv",
)
def test_a_file_its_owner_made_read_only_is_not_replaced(tmp_path: Path) -> None:
    """Renaming over a file needs only the directory's permission: a server running as an
    ordinary user replaced a file that user had made read-only (chmod a-w)."""
    from mcp import Client, StdioServerParameters

    nobody = 65534
    base = Path(tempfile.mkdtemp(prefix="tw-files-owner-"))
    try:
        root = base / "root"
        root.mkdir()
        (root / "locked.txt").write_text("keep\n")
        (root / "open.txt").write_text("old\n")
        os.chmod(root / "locked.txt", 0o444)
        for path in (base, root, root / "locked.txt", root / "open.txt"):
            os.chown(path, nobody, nobody)
        os.chmod(base, 0o755)
        as_nobody = [f"--reuid={nobody}", f"--regid={nobody}", "--clear-groups"]
        params = StdioServerParameters(
            command="setpriv", args=[*as_nobody, sys.executable, str(LAUNCH), str(root)]
        )
        calls = [
            ("write_file", {"path": "locked.txt", "content": "PWNED"}),
            ("append_file", {"path": "locked.txt", "content": "PWNED"}),
            ("edit_file", {"path": "locked.txt", "edits": [{"oldText": "keep", "newText": "X"}]}),
        ]

        async def main() -> list[Any]:
            with anyio.fail_after(60):
                async with Client(params, mode="legacy") as client:
                    answers = [await client.call_tool(name, args) for name, args in calls]
                    answers.append(
                        await client.call_tool("write_file", {"path": "open.txt", "content": "new"})
                    )
                    return answers

        *refused, wrote = anyio.run(main)
        for (name, _), answer in zip(calls, refused, strict=True):
            assert answer.is_error, name
            assert answer.content[0].text == (
                "Error: 'locked.txt': it is read-only (-r--r--r--), so it is not replaced"
            ), name
        assert wrote.is_error is False
        assert (root / "locked.txt").read_text() == "keep\n"
        assert (root / "open.txt").read_text() == "new"
    finally:
        shutil.rmtree(base)
