"""The `shell` tool over stdio: results in the SDK's shape, timeouts, stdin, pagers, bounded
output, environment and concurrency, checked on the wire and in the process table."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.servers.shell._harness import ShellServer, tagged_processes, wait_until, zombies_of


@pytest.fixture(scope="module")
def server() -> Iterator[ShellServer]:
    with ShellServer(env=None) as running:
        yield running


def sdk_rendering(structured: dict[str, Any]) -> str:
    """What the Agents SDK writes for the model from these shell outputs."""
    from agents import ShellCallOutcome, ShellCommandOutput
    from agents.run_internal.tool_execution import render_shell_outputs

    return str(
        render_shell_outputs(
            [
                ShellCommandOutput(
                    command=entry["command"],
                    stdout=entry["stdout"],
                    stderr=entry["stderr"],
                    outcome=ShellCallOutcome(
                        type=entry["outcome"]["type"],
                        exit_code=entry["outcome"].get("exit_code"),
                    ),
                )
                for entry in structured["output"]
            ]
        )
    )


def outputs(result: dict[str, Any]) -> list[dict[str, Any]]:
    assert result["isError"] is False, result
    structured = result["structuredContent"]
    [block] = result["content"]
    assert block == {"type": "text", "text": sdk_rendering(structured)}
    return list(structured["output"])


def test_listing_is_destructive_with_schemas(server: ShellServer) -> None:
    tools = {tool["name"]: tool for tool in server.request("tools/list", {})["tools"]}
    assert set(tools) == {"shell", "exec_command", "write_stdin", "kill_session", "list_sessions"}
    for name in ("shell", "exec_command", "write_stdin", "kill_session"):
        assert tools[name]["annotations"]["destructiveHint"] is True
        assert tools[name]["annotations"]["readOnlyHint"] is False
    assert tools["list_sessions"]["annotations"]["readOnlyHint"] is True
    shell = tools["shell"]
    assert shell["inputSchema"]["required"] == ["commands"]
    assert shell["outputSchema"]["required"] == ["output"]
    assert tools["write_stdin"]["inputSchema"]["properties"]["session_id"]["type"] == "integer"


def test_exit_codes_and_streams(server: ShellServer) -> None:
    result = server.call(
        "shell", {"commands": ["echo out; echo err >&2; exit 3", "true", "exit 255"]}
    )
    first, second, third = outputs(result)
    assert result["content"][0]["text"] == (
        "$ echo out; echo err >&2; exit 3\nout\n\nstderr:\nerr\nexit code: 3\n\n"
        "$ true\n\n$ exit 255\nexit code: 255"
    )
    assert first == {
        "command": "echo out; echo err >&2; exit 3",
        "stdout": "out\n",
        "stderr": "err\n",
        "outcome": {"type": "exit", "exit_code": 3},
    }
    assert second["outcome"] == {"type": "exit", "exit_code": 0}
    assert third["outcome"] == {"type": "exit", "exit_code": 255}


def test_timeout_kills_and_skips_the_rest(server: ShellServer, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    result = server.call(
        "shell",
        {"commands": ["echo before; sleep 30", f"touch {marker}"], "timeout_ms": 500},
        timeout=10,
    )
    (only,) = outputs(result)
    assert result["content"][0]["text"] == "$ echo before; sleep 30\nbefore\nstatus: timeout"
    assert only["outcome"] == {"type": "timeout"}
    assert only["stdout"] == "before\n"
    assert not marker.exists()
    assert tagged_processes(server.token()) == []


def test_model_errors_name_the_problem(server: ShellServer) -> None:
    empty = server.call("shell", {"commands": []})
    assert empty["isError"] is True
    assert empty["content"][0]["text"] == "Shell call action must include at least one command."
    negative = server.call("shell", {"commands": ["true"], "timeout_ms": -5})
    assert negative["isError"] is True
    assert "timeout must be a positive integer" in negative["content"][0]["text"]


def test_stdin_is_at_end_of_file(server: ShellServer) -> None:
    result = server.call("shell", {"commands": ["cat", "read line; echo status=$?"]}, timeout=10)
    cat, read = outputs(result)
    assert cat["stdout"] == "" and cat["outcome"]["exit_code"] == 0
    assert read["stdout"] == "status=1\n"


def test_git_pager_and_editor_do_not_wait(server: ShellServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (
        ["init", "-q"],
        [
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=A",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "first",
        ],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    result = server.call(
        "shell",
        {
            "commands": [
                "git -p log --oneline; less .git/HEAD",
                "git -c user.email=a@b -c user.name=A commit --allow-empty",
                "echo $PAGER $GIT_PAGER $TERM $GIT_TERMINAL_PROMPT",
            ],
            "workdir": str(repo),
        },
        timeout=20,
    )
    log, commit, env = outputs(result)
    assert log["stdout"].endswith(" first\nref: refs/heads/master\n") or log["stdout"].endswith(
        " first\nref: refs/heads/main\n"
    ), log
    assert log["outcome"]["exit_code"] == 0
    assert commit["outcome"]["type"] == "exit"  # the editor (true) left an empty message
    assert "empty commit message" in commit["stderr"].lower()
    assert env["stdout"] == "cat cat dumb 0\n"


def test_200_mb_of_output_is_bounded_while_read(server: ShellServer) -> None:
    result = server.call(
        "shell",
        {"commands": ["head -c 200000000 /dev/zero | tr '\\0' a; echo END"]},
        timeout=120,
    )
    (only,) = outputs(result)
    stdout = only["stdout"]
    assert only["outcome"] == {"type": "exit", "exit_code": 0}
    assert stdout.startswith("aaaa") and stdout.endswith("aaaaEND\n")
    head, _, tail = stdout.partition("\n…")
    count, _, rest = tail.partition(" bytes cut…\n")
    assert set(head) == {"a"} and rest.endswith("aEND\n") and set(rest[:-4]) == {"a"}
    assert len(head) + int(count) + len(rest) == 200_000_004
    assert len(stdout) == 1 << 20
    peak_kib = int(
        next(
            line.split()[1]
            for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines()
            if line.startswith("VmHWM:")
        )
    )
    assert peak_kib < 150 * 1024, peak_kib


def test_max_output_length_is_one_budget_head_and_tail(server: ShellServer) -> None:
    result = server.call(
        "shell",
        {
            "commands": ["seq 1 1000", "echo second; echo second-err >&2"],
            "max_output_length": 200,
        },
    )
    first, second = outputs(result)
    assert len(first["stdout"]) == 200
    assert first["stdout"].startswith("1\n2\n") and first["stdout"].endswith("999\n1000\n")
    assert "bytes cut" in first["stdout"]
    assert second["stdout"] == "" and second["stderr"] == ""
    assert result["structuredContent"]["max_output_length"] == 200


def test_environment_is_an_allow_list(tmp_path: Path) -> None:
    from tests.servers.shell._harness import env_for_server

    # The worktree's sources stay first on PYTHONPATH: this server must be the code under test.
    full = env_for_server(SHELL_TEST_SECRET="s3cret", SHELL_TEST_SHARED="shared")
    with ShellServer("--env", "SHELL_TEST_SHARED", env=full) as server:
        result = server.call(
            "shell", {"commands": ["echo [$SHELL_TEST_SECRET] [$SHELL_TEST_SHARED]"]}
        )
        assert outputs(result)[0]["stdout"] == "[] [shared]\n"


def test_background_children_end_with_the_call(server: ShellServer) -> None:
    token = server.token()
    script = (
        "sleep 300 & setsid sleep 301 & nohup sleep 302 >/dev/null 2>&1 & "
        "(sleep 303 &) ; sh -c 'setsid sh -c \"sleep 304 &\" &'; sleep 0.2; echo started"
    )
    result = server.call("shell", {"commands": [script]}, timeout=20)
    assert outputs(result)[0]["stdout"] == "started\n"
    assert tagged_processes(token) == []
    assert wait_until(lambda: not zombies_of(server.proc.pid))


def test_fork_loop_is_ended_at_the_process_limit() -> None:
    with ShellServer("--max-processes", "30") as server:
        token = server.token()
        result = server.call(
            "shell",
            {"commands": ["while :; do sleep 100 & done"], "timeout_ms": 60000},
            timeout=60,
        )
        (only,) = outputs(result)
        assert "more than 30 processes at once" in only["stderr"]
        assert tagged_processes(token) == []


def test_fifty_concurrent_commands(server: ShellServer) -> None:
    ids = [
        server.start(
            "tools/call",
            {"name": "shell", "arguments": {"commands": [f"sleep 0.3; echo {n}"]}},
        )
        for n in range(50)
    ]
    for n, number in enumerate(ids):
        reply = server.wait_reply(number, timeout=60)
        assert outputs(reply["result"])[0]["stdout"] == f"{n}\n"
    assert tagged_processes(server.token()) == []


def test_progress_carries_the_tail(server: ShellServer) -> None:
    server.notifications.clear()
    result = server.call(
        "shell", {"commands": ["echo tick-one; sleep 2.5; echo tock"]}, progress=True
    )
    assert outputs(result)[0]["stdout"] == "tick-one\ntock\n"
    progress = [n for n in server.notifications if n.get("method") == "notifications/progress"]
    assert progress, server.notifications
    assert all(n["params"]["progressToken"] == "p1" for n in progress)
    assert "tick-one" in progress[0]["params"]["message"]
    values = [n["params"]["progress"] for n in progress]
    assert values == sorted(set(values))


def test_cancelling_the_call_kills_the_command(server: ShellServer) -> None:
    token = server.token()
    number = server.start(
        "tools/call", {"name": "shell", "arguments": {"commands": ["sleep 300 & sleep 301"]}}
    )
    assert wait_until(lambda: len(tagged_processes(token)) >= 2)
    server.notify("notifications/cancelled", {"requestId": number, "reason": "test"})
    assert wait_until(lambda: tagged_processes(token) == [])
    # The server still answers (and the cancelled call gets no reply).
    assert outputs(server.call("shell", {"commands": ["echo alive"]}))[0]["stdout"] == "alive\n"
    time.sleep(0.2)
    server.call("list_sessions", {})
    assert number not in server.replies


def test_yes_and_binary_output_stay_bounded(server: ShellServer) -> None:
    result = server.call(
        "shell",
        {
            "commands": ["head -c 3000000 /dev/urandom; printf 'a\\0b'", "yes"],
            "timeout_ms": 1500,
            "max_output_length": 4000,
        },
        timeout=30,
    )
    binary, yes = outputs(result)
    assert binary["outcome"] == {"type": "exit", "exit_code": 0}
    assert binary["stdout"].endswith("a\0b") and "bytes cut" in binary["stdout"]
    assert len(binary["stdout"]) <= 4000
    assert yes["outcome"] == {"type": "timeout"}
    head, _, rest = yes["stdout"].partition("\n…")
    tail = rest.partition(" bytes cut…\n")[2]
    assert set(head + tail) <= {"y", "\n"}
    assert len(binary["stdout"]) + len(yes["stdout"]) <= 4000
    assert tagged_processes(server.token()) == []


def test_text_no_program_can_receive_is_refused_by_name(
    server: ShellServer, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    for bad, named in (("echo a\0b", "a NUL character at offset 6"), ("echo \ud800", "'\\ud800'")):
        result = server.call("shell", {"commands": [f"touch {marker}", bad]})
        assert result["isError"] is True, result
        text = result["content"][0]["text"]
        assert named in text and repr(bad) in text, text
        assert not marker.exists()  # refused before anything ran
    session = server.call("exec_command", {"cmd": "cat", "yield_time_ms": 250})
    number = session["structuredContent"]["session_id"]
    refused = server.call("write_stdin", {"session_id": number, "chars": "a\ud800b\n"})
    assert refused["isError"] is True
    assert "'\\ud800' at offset 1" in refused["content"][0]["text"], refused
    echoed = server.call("write_stdin", {"session_id": number, "chars": "still here\n"})
    assert echoed["structuredContent"]["output"] == "still here\n"
    server.call("kill_session", {"session_id": number})


def test_an_empty_command_runs_as_the_sdks_executor_would(server: ShellServer) -> None:
    # The SDK takes any list of strings with at least one; "" is a shell doing nothing.
    first, empty, blank = outputs(server.call("shell", {"commands": ["echo a", "", "  "]}))
    assert first["stdout"] == "a\n"
    for done in (empty, blank):
        assert (done["stdout"], done["stderr"], done["outcome"]) == (
            "",
            "",
            {"type": "exit", "exit_code": 0},
        )
    refused = server.call("exec_command", {"cmd": ""})  # the sandbox's min_length=1
    assert refused["isError"] is True
    assert refused["content"][0]["text"] == "Invalid JSON input for tool exec_command"


@pytest.mark.parametrize("budget", [1, 5, 10, 20, 30])
def test_a_budget_too_small_for_the_marker_keeps_the_start(
    server: ShellServer, budget: int
) -> None:
    # As the SDK does; a piece of "…N bytes cut…" would read as output.
    result = server.call(
        "shell", {"commands": ["seq 1 1000", "echo more"], "max_output_length": budget}
    )
    first, second = outputs(result)
    assert first["stdout"] == "".join(f"{n}\n" for n in range(1, 1001))[:budget]
    assert second["stdout"] == ""
