"""`exec_command`, `write_stdin`, `kill_session` and `list_sessions`: an interactive Python,
the SDK sandbox's reply text, bounds on sessions, and process trees that end with the session
or with the server however it dies."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.servers.shell._harness import ShellServer, tagged_processes, wait_until

LEAVERS = (
    "sleep 300 & setsid sleep 301 & nohup sleep 302 >/dev/null 2>&1 & (sleep 303 &); "
    "sh -c 'setsid sh -c \"sleep 304 &\" &'; echo ready; sleep 1000"
)


@pytest.fixture(scope="module")
def server() -> Iterator[ShellServer]:
    with ShellServer("--max-sessions", "3") as running:
        yield running


def reply(result: dict[str, Any]) -> dict[str, Any]:
    """The structured reply; its text is the SDK sandbox's rendering (exec_command,
    write_stdin) or the JSON of the structured reply (kill_session, list_sessions)."""
    assert result["isError"] is False, result
    data = dict(result["structuredContent"])
    [block] = result["content"]
    if "chunk_id" not in data:
        assert json.loads(block["text"]) == data
        return data
    lines = [f"Chunk ID: {data['chunk_id']}", f"Wall time: {data['wall_time_seconds']:.4f} seconds"]
    if data["exit_code"] is not None:
        lines.append(f"Process exited with code {data['exit_code']}")
    if data["session_id"] is not None:
        lines.append(f"Process running with session ID {data['session_id']}")
    if data.get("original_token_count") is not None:
        lines.append(f"Original token count: {data['original_token_count']}")
    assert block["text"] == "\n".join([*lines, "Output:", data["output"]])
    return data


def until(server: ShellServer, session: int, seen: str, wanted: str) -> str:
    """Poll the session (empty writes) until its output so far ends with `wanted`, for up to
    30 s: a loaded machine may take that long to print it."""
    deadline = time.monotonic() + 30
    while not seen.endswith(wanted) and time.monotonic() < deadline:
        seen += reply(server.call("write_stdin", {"session_id": session, "chars": ""}))["output"]
    return seen


def _start_leavers(server: ShellServer) -> dict[str, Any]:
    """Start LEAVERS and read on until its "ready"; returns exec_command's result."""
    started = reply(server.call("exec_command", {"cmd": LEAVERS, "yield_time_ms": 1000}))
    assert until(server, started["session_id"], started["output"], "ready\n") == "ready\n"
    return started


def test_interactive_python(server: ShellServer) -> None:
    first = server.call("exec_command", {"cmd": "python3 -i -q", "yield_time_ms": 1000})
    started = reply(first)
    session = started["session_id"]
    assert isinstance(session, int) and started["exit_code"] is None
    assert f"\nProcess running with session ID {session}\nOutput:\n" in first["content"][0]["text"]
    assert until(server, session, started["output"], ">>> ") == ">>> "
    answer = reply(
        server.call("write_stdin", {"session_id": session, "chars": "x = 6 * 7\nprint(x)\n"})
    )
    assert until(server, session, answer["output"], "42\n>>> ") == ">>> 42\n>>> "
    assert answer["session_id"] == session
    listed = reply(server.call("list_sessions", {}))["sessions"]
    assert [entry["session_id"] for entry in listed] == [session]
    assert listed[0]["command"] == "python3 -i -q" and listed[0]["running"] is True
    done = reply(
        server.call("write_stdin", {"session_id": session, "chars": "raise SystemExit(7)\n"})
    )
    assert done["exit_code"] == 7 and done["session_id"] is None
    assert reply(server.call("list_sessions", {}))["sessions"] == []
    gone = server.call("write_stdin", {"session_id": session, "chars": "1\n"})
    assert gone["isError"] is True
    assert f"session {session} does not exist" in gone["content"][0]["text"]


def test_quick_command_exits_within_the_yield(server: ShellServer) -> None:
    result = server.call("exec_command", {"cmd": "echo one; echo two >&2; exit 4"})
    done = reply(result)
    assert done["exit_code"] == 4 and done["session_id"] is None
    assert done["output"] == "one\ntwo\n"
    text = result["content"][0]["text"]
    assert text.split("\n", 2)[2] == "Process exited with code 4\nOutput:\none\ntwo\n"
    assert text.startswith(f"Chunk ID: {done['chunk_id']}\nWall time: ")


def test_ctrl_d_closes_stdin(server: ShellServer) -> None:
    started = reply(server.call("exec_command", {"cmd": "cat; echo closed", "yield_time_ms": 250}))
    done = reply(
        server.call(
            "write_stdin",
            {"session_id": started["session_id"], "chars": "abc\n\u0004", "yield_time_ms": 2000},
        )
    )
    assert done["output"] == "abc\nclosed\n" and done["exit_code"] == 0


def test_max_output_tokens_keeps_head_and_tail(server: ShellServer) -> None:
    done = reply(server.call("exec_command", {"cmd": "seq 1 5000", "max_output_tokens": 50}))
    from agents.sandbox.util.token_truncation import formatted_truncate_text_with_token_count

    output = done["output"]
    assert output.startswith("Total output lines: 5000\n\n1\n2\n")
    assert output.endswith("4999\n5000\n") and "tokens truncated" in output
    assert len(output) <= 200
    full = "".join(f"{n}\n" for n in range(1, 5001))
    assert (output, done["original_token_count"]) == formatted_truncate_text_with_token_count(
        full, 50
    )


def test_kill_session_ends_the_whole_tree(server: ShellServer) -> None:
    token = server.token()
    started = _start_leavers(server)
    assert len(tagged_processes(token)) >= 6
    killed = reply(server.call("kill_session", {"session_id": started["session_id"]}))
    assert killed["session_id"] == started["session_id"]
    assert tagged_processes(token) == []


def test_sessions_are_bounded_in_number(server: ShellServer) -> None:
    token = server.token()
    ids = [
        reply(server.call("exec_command", {"cmd": f"sleep {500 + n}", "yield_time_ms": 250}))[
            "session_id"
        ]
        for n in range(4)
    ]
    listed = [entry["session_id"] for entry in reply(server.call("list_sessions", {}))["sessions"]]
    assert listed == ids[1:]
    assert server.call("kill_session", {"session_id": ids[0]})["isError"] is True
    for number in ids[1:]:
        reply(server.call("kill_session", {"session_id": number}))
    assert tagged_processes(token) == []


def test_session_idle_expiry() -> None:
    with ShellServer("--session-idle-seconds", "0.5") as server:
        token = server.token()
        started = reply(server.call("exec_command", {"cmd": "sleep 400 & sleep 401"}))
        assert started["session_id"] is not None
        assert wait_until(lambda: tagged_processes(token) == [], 15)
        assert reply(server.call("list_sessions", {}))["sessions"] == []


@pytest.mark.parametrize("how", ["eof", "sigterm", "sigkill"])
def test_server_exit_ends_every_tree(how: str) -> None:
    server = ShellServer()
    token = server.token()
    _start_leavers(server)
    assert len(tagged_processes(token)) >= 6
    if how == "eof":
        server.close()
    elif how == "sigterm":
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(15)
    else:
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(15)
    assert wait_until(lambda: tagged_processes(token) == [], 15), tagged_processes(token)
    server.close()


def test_session_buffer_is_bounded_between_reads() -> None:
    with ShellServer("--session-buffer-bytes", "1000") as server:
        started = reply(
            server.call(
                "exec_command",
                {"cmd": "seq 1 200000; echo last; sleep 30", "yield_time_ms": 3000},
            )
        )
        output = started["output"]
        assert len(output) <= 1000 and "bytes cut" in output
        assert output.startswith("1\n2\n3\n") and output.endswith("last\n")
        reply(server.call("kill_session", {"session_id": started["session_id"]}))


def test_token_and_yield_bounds_are_the_sdks(server: ShellServer) -> None:
    tools = {tool["name"]: tool for tool in server.request("tools/list", {})["tools"]}
    for name in ("exec_command", "write_stdin"):
        properties = tools[name]["inputSchema"]["properties"]
        assert properties["yield_time_ms"]["minimum"] == 0
        tokens = properties["max_output_tokens"]
        assert [t.get("minimum") for t in tokens["anyOf"] if t.get("type") == "integer"] == [1]
    for arguments in ({"max_output_tokens": 0}, {"max_output_tokens": -5}, {"yield_time_ms": -1}):
        result = server.call("exec_command", {"cmd": "echo hello", **arguments})
        assert result["isError"] is True, (arguments, result)
        assert result["content"][0]["text"] == "Invalid JSON input for tool exec_command"
    assert tagged_processes(server.token()) == []


def test_a_write_cut_short_by_the_command_says_how_much_went_in(server: ShellServer) -> None:
    # The pipe takes what fits in its buffer before the command exits without reading.
    started = reply(server.call("exec_command", {"cmd": "sleep 1", "yield_time_ms": 250}))
    written = reply(
        server.call(
            "write_stdin",
            {"session_id": started["session_id"], "chars": "x" * 300_000, "yield_time_ms": 8000},
            timeout=30,
        )
    )
    note = written["output"].splitlines()[0]
    assert note.startswith("[toolwire-shell: the command read only "), note
    assert note.endswith(" of 300000 bytes; the rest was dropped]"), note
    assert int(note.split()[5]) > 0


def test_writing_to_a_command_that_exited_meanwhile_says_so(server: ShellServer) -> None:
    started = reply(server.call("exec_command", {"cmd": "sleep 0.5", "yield_time_ms": 250}))
    assert started["session_id"] is not None
    assert wait_until(
        lambda: reply(server.call("list_sessions", {}))["sessions"][-1]["running"] is False
    )
    late = reply(
        server.call("write_stdin", {"session_id": started["session_id"], "chars": "hello\n"})
    )
    assert late["exit_code"] == 0
    assert late["output"] == "[toolwire-shell: the command had exited; nothing was written]\n"


def test_a_session_in_use_is_not_the_one_ended_to_make_room() -> None:
    with ShellServer("--max-sessions", "2") as server:
        a, b = (
            reply(server.call("exec_command", {"cmd": "cat", "yield_time_ms": 250}))["session_id"]
            for _ in range(2)
        )

        def idle_a() -> float:
            sessions = server.call("list_sessions", {})["structuredContent"]["sessions"]
            return float(next(s["idle_seconds"] for s in sessions if s["session_id"] == a))

        # A poll keeps `a` busy (its start resets `a`'s idle time); `b` is used after that,
        # so `a` is the least recently used.
        assert wait_until(lambda: idle_a() > 1.0)
        poll = server.start(
            "tools/call",
            {"name": "write_stdin", "arguments": {"session_id": a, "yield_time_ms": 30000}},
        )
        assert wait_until(lambda: idle_a() < 0.9)
        reply(server.call("write_stdin", {"session_id": b, "chars": "b\n"}))
        reply(server.call("exec_command", {"cmd": "cat", "yield_time_ms": 250}))
        listed = {s["session_id"] for s in reply(server.call("list_sessions", {}))["sessions"]}
        assert a in listed and b not in listed
        reply(server.call("kill_session", {"session_id": a}))
        polled = server.wait_reply(poll, 30)["result"]["structuredContent"]
        assert "too many sessions" not in polled["output"], polled
