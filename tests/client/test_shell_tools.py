"""`toolwire.client.shell_tool` / `local_shell_tool` inside real Agents SDK runs: a
`ScriptedModel` emits `shell_call` / `local_shell_call` items, the SDK's own tools run them on
a toolwire-shell server over stdio. Denied: nothing ran (disk and process table); approved:
the output reaches the model in the SDK's format, the same as from a local executor giving the
same result."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from toolwire.client.approvals import MCPToolApprovalRequest

agents = pytest.importorskip("agents")
testing = pytest.importorskip("agents.testing")

ROOT = Path(__file__).resolve().parents[2]
KEY = b"TOOLWIRE_SHELL_TAG="
# Passed through to this run's commands only, so another toolwire run's shells go unseen.
RUN_VARIABLE = "TOOLWIRE_CLIENT_TEST_RUN"
RUN = uuid.uuid4().hex

if not sys.platform.startswith("linux"):
    pytest.skip("the process-table checks read Linux's /proc", allow_module_level=True)


def tagged() -> list[int]:
    """The live processes a shell command of this test run started."""
    found = []
    run = f"{RUN_VARIABLE}={RUN}".encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
                if run in environ and any(item.startswith(KEY) for item in environ):
                    found.append(int(entry))
            except OSError:
                continue
    return found


def shell_server(*args: str, **options: Any) -> Any:
    from toolwire.client import MCPServerStdio

    paths = [str(ROOT / "src"), str(ROOT / "servers" / "shell"), os.environ.get("PYTHONPATH", "")]
    return MCPServerStdio(
        params={
            "command": sys.executable,
            "args": ["-m", "toolwire_shell", "--env", RUN_VARIABLE, *args],
            "env": {
                "PYTHONPATH": os.pathsep.join(paths),
                "PATH": os.environ["PATH"],
                RUN_VARIABLE: RUN,
            },
        },
        name="shell-server",
        client_session_timeout_seconds=30,
        **options,
    )


def shell_call(commands: list[str], call_id: str = "call_1") -> dict[str, Any]:
    return {
        "type": "shell_call",
        "id": "sh_1",
        "call_id": call_id,
        "status": "completed",
        "action": {"commands": commands, "timeout_ms": 10_000, "max_output_length": None},
    }


def scripted(item: dict[str, Any]) -> Any:
    return testing.ScriptedModel(
        [
            testing.ModelStep(output=[item]),
            testing.ModelStep(output=[testing.assistant_message("done")]),
        ]
    )


def seen_output(model: Any, kind: str) -> dict[str, Any]:
    items = [
        item
        for item in model.calls[-1].input
        if isinstance(item, dict) and item.get("type") == kind
    ]
    assert len(items) == 1, model.calls[-1].input
    return dict(items[0])


async def run_shell(
    commands: list[str], answer: dict[str, Any] | None
) -> tuple[Any, Any, list[Any]]:
    from toolwire.client import shell_tool

    asked: list[MCPToolApprovalRequest] = []

    def decide(request: MCPToolApprovalRequest) -> Any:
        asked.append(request)
        return answer

    async with shell_server() as server:
        tool = shell_tool(server, on_approval_request=decide if answer is not None else None)
        model = scripted(shell_call(commands))
        agent = agents.Agent(name="a", model=model, tools=[tool])
        result = await agents.Runner.run(agent, "go")
        return result, model, asked


def test_denied_call_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    result, model, asked = asyncio.run(
        run_shell([f"touch {marker}; sleep 300 &"], {"approve": False, "reason": "no shells"})
    )
    assert not marker.exists() and tagged() == []
    [request] = asked
    assert request.data.name == "shell" and request.data.server_label == "shell-server"
    assert '"commands"' in request.data.arguments and str(marker) in request.data.arguments
    output = seen_output(model, "shell_call_output")
    assert output["call_id"] == "call_1"
    text = str(output["output"])
    assert "no shells" in text
    assert result.final_output == "done"


def test_approved_call_reaches_the_model_in_the_sdk_format(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    commands = [f"touch {marker}; echo made; echo warn >&2", "exit 3"]
    result, model, asked = asyncio.run(run_shell(commands, {"approve": True}))
    assert marker.exists() and len(asked) == 1 and tagged() == []
    remote = seen_output(model, "shell_call_output")

    async def local(request: Any) -> Any:
        return agents.ShellResult(
            output=[
                agents.ShellCommandOutput(
                    stdout="made\n",
                    stderr="warn\n",
                    command=commands[0],
                    outcome=agents.ShellCallOutcome(type="exit", exit_code=0),
                ),
                agents.ShellCommandOutput(
                    command=commands[1], outcome=agents.ShellCallOutcome(type="exit", exit_code=3)
                ),
            ],
            max_output_length=1 << 20,
        )

    reference = scripted(shell_call(commands))
    asyncio.run(
        agents.Runner.run(
            agents.Agent(name="a", model=reference, tools=[agents.ShellTool(executor=local)]), "go"
        )
    )
    assert remote == seen_output(reference, "shell_call_output")
    assert remote["output"][0]["stdout"] == "made\n"
    assert remote["output"][1]["outcome"] == {"type": "exit", "exit_code": 3}
    assert result.final_output == "done"


def test_the_servers_own_callback_is_asked_once(tmp_path: Path) -> None:
    # The callback given to the server answers the SDK's approval of the shell call, and the
    # server's gate in call_tool does not ask about the same call again.
    from toolwire.client import shell_tool

    marker = tmp_path / "ran"
    asked: list[str] = []

    def approve(request: MCPToolApprovalRequest) -> Any:
        asked.append(request.data.id)
        return {"approve": True}

    async def go() -> Any:
        async with shell_server(on_approval_request=approve) as server:
            model = scripted(shell_call([f"touch {marker}"]))
            agent = agents.Agent(name="a", model=model, tools=[shell_tool(server)])
            return await agents.Runner.run(agent, "go")

    result = asyncio.run(go())
    assert asked == ["call_1"] and marker.exists() and tagged() == []
    assert result.final_output == "done"


def test_without_a_callback_the_run_is_interrupted(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    async def scenario() -> tuple[Any, Any]:
        from toolwire.client import shell_tool

        async with shell_server() as server:
            tool = shell_tool(server)
            model = scripted(shell_call([f"touch {marker}"]))
            agent = agents.Agent(name="a", model=model, tools=[tool])
            first = await agents.Runner.run(agent, "go")
            [item] = first.interruptions
            assert not marker.exists()
            state = first.to_state()
            state.reject(item)
            second = await agents.Runner.run(agent, state)
            return second, model

    result, model = asyncio.run(scenario())
    assert not marker.exists()
    output = seen_output(model, "shell_call_output")
    assert output["output"][0]["stderr"] == "Tool execution was not approved."
    assert result.final_output == "done"


def test_remote_refusal_is_the_failure_text(tmp_path: Path) -> None:
    async def scenario() -> Any:
        from toolwire.client import shell_tool

        async with shell_server("--allow", "echo") as server:
            tool = shell_tool(server, needs_approval=False)
            model = scripted(shell_call(["echo a; touch x"]))
            await agents.Runner.run(agents.Agent(name="a", model=model, tools=[tool]), "go")
            return model

    model = asyncio.run(scenario())
    output = seen_output(model, "shell_call_output")
    [entry] = output["output"]
    assert entry["outcome"] == {"type": "exit", "exit_code": 1}  # the SDK's failed status
    assert "';' (a shell operator) is not allowed" in entry["stdout"]


@pytest.mark.parametrize("approve", [True, False])
def test_local_shell_tool(tmp_path: Path, approve: bool) -> None:
    marker = tmp_path / "ran file"

    async def scenario() -> tuple[Any, list[Any]]:
        from toolwire.client import local_shell_tool

        asked: list[Any] = []

        def decide(request: MCPToolApprovalRequest) -> Any:
            asked.append(request)
            return {"approve": approve}

        async with shell_server() as server:
            tool = local_shell_tool(server, on_approval_request=decide)
            item = {
                "type": "local_shell_call",
                "id": "ls_1",
                "call_id": "call_9",
                "status": "completed",
                "action": {
                    "type": "exec",
                    "command": ["sh", "-c", f"touch '{marker}' && echo made"],
                    "env": {},
                    "timeout_ms": 10_000,
                    "working_directory": str(tmp_path),
                },
            }
            model = scripted(item)
            await agents.Runner.run(agents.Agent(name="a", model=model, tools=[tool]), "go")
            return model, asked

    model, asked = asyncio.run(scenario())
    assert len(asked) == 1 and marker.exists() is approve
    output = seen_output(model, "local_shell_call_output")
    text = output["output"]
    if approve:
        assert text.endswith("\nmade") and text.startswith("$ sh -c")
    else:
        assert text == "Tool execution was not approved."
    assert tagged() == []


def test_a_callback_that_is_not_callable_is_refused() -> None:
    from toolwire import UserError
    from toolwire.client import local_shell_tool, shell_tool

    for make in (shell_tool, local_shell_tool):
        with pytest.raises(UserError, match="on_approval_request must be callable"):
            make(object(), on_approval_request="yes")  # type: ignore[arg-type]


def test_a_needs_approval_that_is_neither_bool_nor_function_is_refused() -> None:
    # Accepted, it failed at the model's first call with "'str' object is not callable".
    from toolwire import UserError
    from toolwire.client import local_shell_tool, shell_tool

    for make in (shell_tool, local_shell_tool):
        with pytest.raises(UserError) as caught:
            make(object(), needs_approval="always")  # type: ignore[arg-type]
        assert str(caught.value) == (
            "needs_approval must be None, a bool or a (run_context, action, call_id) -> bool "
            "function, got 'always'."
        )
        for fine in (None, False, lambda *_: True):
            make(_unconnected(), needs_approval=fine)


def _unconnected() -> Any:
    """A client server never connected: enough to build a tool from."""
    import toolwire

    return toolwire.MCPServerInMemory(toolwire.Server("unconnected"))


_MADE_WRONG: list[tuple[dict[str, Any], str]] = [
    ({"server": None}, "server must be an MCP server with call_tool (toolwire's"),
    ({"server": "http://127.0.0.1/mcp"}, "server must be an MCP server with call_tool"),
    ({"remote_tool": 5}, "remote_tool must be a tool name (a non-empty string), got 5."),
    ({"remote_tool": ""}, "remote_tool must be a tool name (a non-empty string), got ''."),
    ({"name": None}, "name must be a tool name (a non-empty string), got None."),
]


@pytest.mark.parametrize(
    ("which", "options", "message"),
    [
        (which, options, message)
        for which in ("shell_tool", "local_shell_tool")
        for options, message in _MADE_WRONG
        if which == "shell_tool" or "name" not in options  # local_shell_tool takes no name
    ],
)
def test_a_server_or_tool_name_of_the_wrong_kind_is_refused_when_made(
    which: str, options: dict[str, Any], message: str
) -> None:
    """Taken, each failed only at the model's first call (`'NoneType' object has no attribute
    'list_tools'`, or a remote tool that could never be found)."""
    import toolwire.client
    from toolwire import UserError

    arguments: dict[str, Any] = {"server": _unconnected(), **options}
    with pytest.raises(UserError) as caught:
        getattr(toolwire.client, which)(**arguments)
    assert str(caught.value).startswith(message)


MALFORMED_SHELL = {
    "entries that are not objects": (
        ["oops", {"stdout": "x"}],
        {"stdout": '{"output":["oops",{"stdout":"x"}]}', "stderr": "", "outcome": "exit 0"},
    ),
    "fields of the wrong type": (
        [{"stdout": 5, "outcome": "exit", "command": 7}],
        {"stdout": "5", "stderr": "", "outcome": "exit None"},
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_SHELL))
def test_a_remote_shells_malformed_output_reaches_the_model_as_what_it_says(case: str) -> None:
    from toolwire import Server
    from toolwire.client import MCPServerInMemory, shell_tool

    entries, expected = MALFORMED_SHELL[case]
    remote = Server("odd-shell")

    @remote.tool(annotations={"readOnlyHint": True})
    def shell(commands: list[str], timeout_ms: int, max_output_length: int) -> dict[str, Any]:
        """Answer with structured output of an unexpected shape."""
        return {"output": entries}

    async def main() -> dict[str, Any]:
        async with MCPServerInMemory(remote) as server:
            item = shell_call(["ls"])
            item["action"]["max_output_length"] = 1000
            model = scripted(item)
            agent = agents.Agent(name="a", model=model, tools=[shell_tool(server)])
            await agents.Runner.run(agent, "go")
            return seen_output(model, "shell_call_output")

    (output,) = asyncio.run(main())["output"]
    outcome = output["outcome"]
    assert {**output, "outcome": f"{outcome['type']} {outcome.get('exit_code')}"} == expected


def test_a_shell_whose_strict_schema_lists_its_defaults_gets_the_call() -> None:
    from toolwire import Server
    from toolwire.client import MCPServerInMemory, shell_tool

    remote = Server("strict-shell")

    @remote.tool(annotations={"readOnlyHint": True})
    def shell(
        commands: list[str], timeout_ms: int | None = None, max_output_length: int | None = None
    ) -> dict[str, Any]:
        """Say what it was asked to run (toolwire's schema lists every parameter as required)."""
        said = f"{commands} timeout={timeout_ms} limit={max_output_length}"
        return {"output": [{"stdout": said, "outcome": {"type": "exit", "exit_code": 0}}]}

    async def main() -> tuple[list[str], dict[str, Any]]:
        async with MCPServerInMemory(remote) as server:
            (listed,) = await server.list_tools()
            model = scripted(shell_call(["ls"]))  # max_output_length: None, left out
            agent = agents.Agent(name="a", model=model, tools=[shell_tool(server)])
            await agents.Runner.run(agent, "go")
            return listed.input_schema["required"], seen_output(model, "shell_call_output")

    required, seen = asyncio.run(main())
    assert "max_output_length" in required  # what the client-side check would have refused
    (output,) = seen["output"]
    assert output["stdout"] == "['ls'] timeout=10000 limit=None"
