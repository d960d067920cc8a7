"""A tool that forks without exec (multiprocessing's default start method on Linux before
3.14) and terminates its child: the SIGTERM ends the child, not the server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from tests.transports._proc import INIT, call, frame, read_message, send, spawn, toolwire_run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork")

FORKER = Path(__file__).resolve().parents[1] / "servers" / "forker.py"


@pytest.mark.parametrize(
    "tool",
    [
        "terminate_a_child",
        # Its SIGTERM reaches the child while it still has the server's handlers (a loaded
        # machine may not run it for a while): it must end the child, not wake the server's loop.
        "terminate_a_slow_starting_child",
    ],
)
def test_terminating_a_forked_child_leaves_the_server_serving(tmp_path: Path, tool: str) -> None:
    err = tmp_path / "server.err"
    proc = spawn(toolwire_run(FORKER), stderr=err.open("wb"), TOOLWIRE_LOG_LEVEL="INFO")
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(proc, call(2, tool))
    assert read_message(proc)["result"]["content"][0]["text"] == "exitcode=-15"
    send(proc, call(3, "pool_squares"))
    assert read_message(proc)["result"]["structuredContent"] == {"result": [0, 1, 4, 9, 16]}
    send(proc, call(4, "ping"))
    assert read_message(proc)["result"]["content"][0]["text"] == "pong"
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert "received SIGTERM" not in err.read_text()


def test_the_agents_sdk_client_keeps_its_server_across_a_fork_pool(tmp_path: Path) -> None:
    import anyio
    from agents import Agent, RunConfig, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call
    from tests.transports._proc import child_env

    command = toolwire_run(FORKER)
    params = {"command": command[0], "args": command[1:], "env": child_env()}

    async def main() -> list[Any]:
        with anyio.fail_after(90):
            async with MCPServerStdio(params=params, client_session_timeout_seconds=30) as mcp:
                model = ScriptedModel(
                    [
                        [function_call("terminate_a_child", {}, call_id="c1")],
                        [function_call("pool_squares", {}, call_id="c2")],
                        [function_call("ping", {}, call_id="c3")],
                        [assistant_message("done")],
                    ]
                )
                agent = Agent(name="forker", model=model, mcp_servers=[mcp])
                config = RunConfig(tracing_disabled=True)
                result = await Runner.run(agent, "go", run_config=config)
                model.assert_complete()
                assert result.final_output == "done"
                assert model.last_call is not None
                return list(model.last_call.input)

    model_input = anyio.run(main)
    outputs = {item["call_id"]: item["output"] for item in model_input if "output" in item}
    assert outputs["c1"] == [{"type": "input_text", "text": "exitcode=-15"}]
    assert outputs["c3"] == [{"type": "input_text", "text": "pong"}]
    assert "16" in str(outputs["c2"])
