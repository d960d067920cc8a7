"""A server that misbehaves gives a clear error naming the server and the tool.

The misbehaving server is tests/client/servers/faulty.py (stdlib only, starts fast). The
checks are on the error text, on what the model reads inside an Agents SDK run, on what
reached the server (`notifications/cancelled`), and on the process table.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.client._support import ROOT, bounded, run_config, script_params

import toolwire
from toolwire import MCPCallError, ToolContext


def _faulty(mode: str, record: Path | None = None, **kwargs: Any) -> toolwire.MCPServerStdio:
    args = [mode] if record is None else [mode, str(record)]
    return toolwire.MCPServerStdio(
        params=script_params("faulty", *args), name=f"faulty-{mode}", **kwargs
    )


EXPECTED = {
    "die": "connection lost (Connection closed) (the server process exited with status 3)",
    "garbage": "(timed out) (the server wrote a line that is not JSON-RPC: 'this is not json')",
    "wrong_id": "no answer within 1 seconds (timed out)",
    "hang": "no answer within 1 seconds (timed out)",
    "close": "connection lost (Connection closed) (the server process is still running)",
}


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_each_fault_names_the_server_and_the_tool(mode: str) -> None:
    async def main() -> str:
        async with _faulty(mode, client_session_timeout_seconds=1) as server:
            with pytest.raises(MCPCallError) as caught:
                await server.call_tool("work", {"n": 1})
            return str(caught.value)

    text = bounded(main, 60)
    assert text.startswith(f"Failed to call tool 'work' on MCP server 'faulty-{mode}': ")
    assert EXPECTED[mode] in text


MALFORMED = {
    "null_result": "the server's answer is not valid JSON-RPC: its 'result' is not an object",
    "deep": "the server's answer is not valid JSON-RPC: Invalid JSON: recursion limit exceeded",
}


@pytest.mark.parametrize("mode", sorted(MALFORMED))
def test_a_malformed_answer_fails_its_request_at_once_without_a_timeout(mode: str) -> None:
    # No request timeout: a request whose answer was dropped as junk would wait forever.
    async def main() -> str:
        async with _faulty(mode, client_session_timeout_seconds=None) as server:
            with pytest.raises(MCPCallError) as caught:
                if mode == "deep":
                    await server.list_tools()
                else:
                    await server.call_tool("work", {"n": 1})
            assert await server.list_tools() if mode != "deep" else [None]  # still connected
            return str(caught.value)

    text = bounded(main, 30)
    target = "send 'tools/list' to" if mode == "deep" else "call tool 'work' on"
    assert text.startswith(f"Failed to {target} MCP server 'faulty-{mode}': {MALFORMED[mode]}")
    assert "timed out" not in text


async def _two_calls(server: toolwire.MCPServerStdio) -> tuple[list[str], int | None, int | None]:
    """The texts of two calls, and the server's process id before and after them."""
    async with server:
        first = server.process_id
        texts = []
        for n in (1, 2):
            result = await server.call_tool("work", {"n": n})
            texts.append(result.content[0].text)
        return texts, first, server.process_id


def test_a_line_that_is_not_utf8_is_skipped_and_the_connection_stays() -> None:
    async def main() -> tuple[list[str], int | None, int | None]:
        return await _two_calls(_faulty("bad_bytes", client_session_timeout_seconds=10))

    texts, first, last = bounded(main, 60)
    assert texts == ["worked", "worked"]
    assert first is not None and first == last  # the same process: no reconnect


def test_a_junk_line_cannot_forge_or_restyle_the_clients_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> str:
        async with _faulty("forging", client_session_timeout_seconds=10) as server:
            result = await server.call_tool("work", {"n": 1})
            return str(result.content[0].text)

    with caplog.at_level("WARNING", logger="toolwire"):
        assert bounded(main, 60) == "worked"
    [line] = [r.getMessage() for r in caplog.records if "not JSON-RPC" in r.getMessage()]
    assert line.endswith(": junk\\rERROR:toolwire:forged record\\x1b[2K\\u2028more")


def test_a_stderr_line_of_any_length_leaves_the_connection_whole() -> None:
    async def main() -> tuple[list[str], int | None, int | None]:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            return await _two_calls(_faulty("loud", client_session_timeout_seconds=30, errlog=sink))

    texts, first, last = bounded(main, 120)
    assert texts == ["worked", "worked"]
    assert first is not None and first == last  # the same process: no reconnect


def test_a_dying_servers_stderr_is_cut_to_its_last_lines_and_their_starts() -> None:
    async def main() -> str:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            async with _faulty("loud_die", errlog=sink) as server:
                with pytest.raises(MCPCallError) as caught:
                    await server.call_tool("work", {"n": 1})
        return str(caught.value)

    text = bounded(main, 60)
    assert "exited with status 5; its stderr ended with:" in text
    assert text.endswith("\nlast words)")
    # 40 lines at most, each cut to 2,000 characters: not 5 MB of one server's noise.
    assert len(text) < 40 * 2_001 + 500


@pytest.mark.parametrize("mode", ["huge", "huge_id_last"])
def test_an_answer_over_the_line_limit_fails_its_call_at_once(mode: str) -> None:
    # No request timeout: the call would wait forever for an answer that was dropped.
    async def main() -> tuple[str, str, bool]:
        async with _faulty(mode, client_session_timeout_seconds=None) as server:
            first = server.process_id
            with pytest.raises(MCPCallError) as caught:
                await server.call_tool("work", {"n": 1})
            small = await server.call_tool("work", {})  # no arguments: a short answer
            return str(caught.value), small.content[0].text, first == server.process_id

    text, small, same_process = bounded(main, 120)
    assert text.startswith(
        f"Failed to call tool 'work' on MCP server 'faulty-{mode}': "
        "the server's answer is longer than the 64 MiB limit"
    )
    assert small == "worked" and same_process


SERVERS_OWN = {
    "server_error": "rate limited: try again in a minute",
    "server_timeout": "the upstream API did not answer in 30 s",
}


@pytest.mark.parametrize("mode", sorted(SERVERS_OWN))
def test_a_servers_own_32000_or_32001_error_is_its_message(mode: str) -> None:
    async def main() -> tuple[list[str], int | None, int | None]:
        async with _faulty(mode, max_retry_attempts=1) as server:
            first = server.process_id
            texts = []
            for _ in range(2):
                with pytest.raises(MCPCallError) as caught:
                    await server.call_tool("work", {"n": 1})
                texts.append(str(caught.value))
            return texts, first, server.process_id

    texts, first, last = bounded(main, 60)
    expected = f"Failed to call tool 'work' on MCP server 'faulty-{mode}': {SERVERS_OWN[mode]}"
    assert texts == [expected, expected]
    assert first is not None and first == last  # the server was not restarted


@pytest.mark.parametrize("tool", ["resource", "prompt", "method"])
def test_a_tool_named_like_a_request_kind_is_named_as_a_tool(tool: str) -> None:
    async def main() -> str:
        async with _faulty("hang", client_session_timeout_seconds=1) as server:
            with pytest.raises(MCPCallError) as caught:
                await server.call_tool(tool, {"n": 1})
            return str(caught.value)

    text = bounded(main, 60)
    assert text.startswith(f"Failed to call tool '{tool}' on MCP server 'faulty-hang': ")


def test_a_server_that_never_starts() -> None:
    code = "import sys; sys.stderr.write('cannot start: no config\\n'); sys.exit(4)"
    server = toolwire.MCPServerStdio(
        params={"command": sys.executable, "args": ["-c", code]}, name="quitter"
    )
    missing = toolwire.MCPServerStdio(params={"command": "/nonexistent/toolwire-test-cmd"})

    async def main() -> tuple[str, str]:
        with pytest.raises(MCPCallError) as first:
            await server.connect()
        with pytest.raises(MCPCallError) as second:
            await missing.connect()
        return str(first.value), str(second.value)

    quitter, ghost = bounded(main, 60)
    assert quitter.startswith("Failed to connect to MCP server 'quitter': ")
    assert "exited with status 4" in quitter
    assert "cannot start: no config" in quitter
    assert ghost.startswith(
        "Failed to connect to MCP server 'stdio: /nonexistent/toolwire-test-cmd': "
    )
    assert "No such file or directory" in ghost


@pytest.mark.parametrize("mode", ["die", "hang", "garbage"])
def test_the_model_reads_the_failure_and_the_run_goes_on(mode: str) -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    def tell(ctx: Any, error: Exception) -> str:
        return f"tool failed: {error}"

    async def main() -> Any:
        async with _faulty(
            mode, client_session_timeout_seconds=1, failure_error_function=tell
        ) as server:
            model = ScriptedModel(
                [[function_call("work", {"n": 1}, call_id="c")], [assistant_message("sorry")]]
            )
            agent = Agent(name="a", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "go", run_config=run_config())
            assert result.final_output == "sorry"
            assert model.last_call is not None
            return model.last_call.input[-1]["output"]

    output = bounded(main, 60)
    assert output.startswith("tool failed: ")
    assert "'work' on MCP server 'faulty-" in output


def test_function_tool_failure_goes_through_failure_error_function() -> None:
    async def main() -> tuple[Any, Any]:
        async with _faulty("die", client_session_timeout_seconds=5) as server:
            (tool,) = await server.function_tools()
            ctx = ToolContext(None, tool_name="work", tool_call_id="c", tool_arguments="{}")
            default = await tool.on_invoke_tool(ctx, "{}")
        loud = _faulty("die", failure_error_function=lambda ctx, e: f"said: {e}")
        async with loud:
            (tool,) = await loud.function_tools()
            custom = await tool.on_invoke_tool(ctx, "{}")
        return default, custom

    default, custom = bounded(main, 60)
    assert default == "An error occurred while running the tool. Please try again."
    assert custom.startswith("said: Failed to call tool 'work' on MCP server 'faulty-die': ")


def _cancelled_ids(record: Path) -> tuple[list[Any], list[Any]]:
    calls, cancelled = [], []
    for line in record.read_text().splitlines():
        message = json.loads(line)
        if message.get("method") == "tools/call":
            calls.append(message["id"])
        if message.get("method") == "notifications/cancelled":
            cancelled.append(message["params"]["requestId"])
    return calls, cancelled


def _wait_for(predicate: Any, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.parametrize("how", ["timeout", "caller cancelled"])
def test_cancelling_a_call_sends_notifications_cancelled(tmp_path: Path, how: str) -> None:
    record = tmp_path / "received.jsonl"
    timeout = 1 if how == "timeout" else None

    async def main() -> None:
        async with _faulty("hang", record, client_session_timeout_seconds=timeout) as server:
            if how == "timeout":
                with pytest.raises(MCPCallError):
                    await server.call_tool("work", {})
            else:
                with anyio.move_on_after(1):
                    await server.call_tool("work", {})
            await anyio.sleep(0.3)  # the notice is written before cleanup closes stdin

    bounded(main, 60)
    assert _wait_for(lambda: bool(_cancelled_ids(record)[1]))
    calls, cancelled = _cancelled_ids(record)
    assert calls and cancelled == calls


@pytest.mark.parametrize("where", ["in the call", "in the approval callback"])
def test_cancelling_an_agent_run_mid_call_leaves_nothing_behind(tmp_path: Path, where: str) -> None:
    from agents import Agent, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    record = tmp_path / "received.jsonl"
    asked = anyio.Event()

    async def undecided(request: Any) -> Any:  # never answers
        asked.set()
        await anyio.sleep_forever()

    callback = undecided if where == "in the approval callback" else None

    def sent() -> list[str]:
        lines = record.read_text().splitlines() if record.exists() else []
        return [json.loads(line).get("method") for line in lines]

    async def main() -> tuple[int, set[Any]]:
        before = set(asyncio.all_tasks())
        server = _faulty("hang", record, client_session_timeout_seconds=None)
        async with server:
            pid = server.process_id
            assert pid is not None
            model = ScriptedModel(
                [[function_call("work", {"n": 1}, call_id="c")], [assistant_message("done")]]
            )
            server.on_approval_request = callback
            agent = Agent(name="a", model=model, mcp_servers=[server])
            run = asyncio.ensure_future(Runner.run(agent, "go", run_config=run_config()))
            while "tools/call" not in sent() and not asked.is_set():
                await anyio.sleep(0.02)
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            # The connection is still whole: the next request is answered.
            assert [tool.name for tool in await server.list_tools()] == ["work"]
        return pid, set(asyncio.all_tasks()) - before

    pid, left = bounded(main, 60)
    assert not [task for task in left if not task.done()]
    assert _wait_for(lambda: not _alive(pid)), pid
    methods = sent()
    if where == "in the call":
        assert _wait_for(lambda: "notifications/cancelled" in sent())
    else:
        assert "tools/call" not in methods  # asked, never answered: never sent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has ended; only its parent's bookkeeping is left
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


STUBBORN = "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \
    "sys.stdin.close(); time.sleep(60)"  # fmt: skip


def test_no_process_left_after_cleanup_even_a_stubborn_one() -> None:
    async def main() -> list[int]:
        pids = []
        async with _faulty("ok") as server:
            assert server.process_id is not None
            pids.append(server.process_id)
        stubborn = toolwire.MCPServerStdio(
            params={"command": sys.executable, "args": ["-c", STUBBORN]},
            connect_timeout_seconds=1,
        )
        with pytest.raises(MCPCallError):
            await stubborn.connect()
        assert stubborn.process_id is not None
        pids.append(stubborn.process_id)
        return pids

    for pid in bounded(main, 60):
        assert _wait_for(lambda pid=pid: not _alive(pid)), pid


def test_no_process_left_after_the_caller_is_cancelled() -> None:
    async def main() -> int:
        server = _faulty("hang")
        pid: list[int] = []
        with anyio.move_on_after(1):
            async with server:
                assert server.process_id is not None
                pid.append(server.process_id)
                await server.call_tool("work", {})
        return pid[0]

    pid = bounded(main, 60)
    assert _wait_for(lambda: not _alive(pid)), pid


EXITING = """
import asyncio, os, sys
sys.path.insert(0, {src!r})
import toolwire

async def main():
    server = toolwire.MCPServerStdio(params={params!r})
    await server.connect()
    os._exit(0)  # no cleanup at all

asyncio.run(main())
"""


def _run_and_exit(params: dict[str, Any], connect: str) -> None:
    code = EXITING.format(src=str(ROOT / "src"), params=params).replace(
        "await server.connect()", connect
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=ROOT)


def test_no_process_left_after_the_python_process_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    _run_and_exit(script_params("faulty", "ok"), "await server.connect()")
    # A server that never reads stdin (so never sees its end) and never initializes: only
    # the parent-death signal ends it.
    written = str(pid_file) + ".tmp"
    deaf = (
        f"import os, time; open({written!r}, 'w').write(str(os.getpid())); "
        f"os.rename({written!r}, {str(pid_file)!r}); time.sleep(60)"
    )
    _run_and_exit(
        {"command": sys.executable, "args": ["-c", deaf]},
        "asyncio.ensure_future(server.connect())\n"
        f"    for _ in range(600):  # until the child has started (bounded: 30 s)\n"
        f"        if os.path.exists({str(pid_file)!r}): break\n"
        "        await asyncio.sleep(0.05)\n"
        "    await asyncio.sleep(0.2)",
    )
    deaf_pid = int(pid_file.read_text())
    assert _wait_for(lambda: not _alive(deaf_pid)), deaf_pid


def test_other_requests_name_what_they_asked_for() -> None:
    async def main() -> list[str]:
        texts = []
        async with toolwire.MCPServerStdio(
            params=script_params("faulty", "ok"), name="f", client_session_timeout_seconds=5
        ) as server:
            for request in (
                server.list_prompts(),
                server.get_prompt("greet", {}),
                server.read_resource("memo://x"),
            ):
                with pytest.raises(MCPCallError) as caught:
                    await request
                texts.append(str(caught.value))
        return texts

    listing, prompt, resource = bounded(main, 60)
    assert listing.startswith("Failed to send 'prompts/list' to MCP server 'f': ")
    assert prompt.startswith("Failed to get prompt 'greet' from MCP server 'f': ")
    assert resource.startswith("Failed to read resource 'memo://x' from MCP server 'f': ")
