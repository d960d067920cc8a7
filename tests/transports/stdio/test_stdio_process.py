"""The stdio transport as a real subprocess: stream purity, encodings, frames, exits."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.transports._proc import (
    INIT,
    ROOT,
    call,
    child_env,
    exchange,
    frame,
    read_message,
    send,
    signal_and_collect,
    spawn,
    toolwire_run,
    wait_for_file,
)

NOISY_SERVER = textwrap.dedent(
    '''
    import logging, os, subprocess, sys, time
    from toolwire import Server

    print("print at import time")
    os.write(1, b"os.write(1) at import time\\n")
    server = Server("noisy", version="1", max_message_bytes=int(os.environ.get("TEST_MAX", 4194304)))

    @server.tool
    def noisy(text: str) -> str:
        """Print, write to fd 1, run a child that prints, and answer."""
        print("print inside a tool")
        os.write(1, b"os.write(1) inside a tool\\n")
        subprocess.run([sys.executable, "-c", "print('child process output')"], check=True)
        sys.stdout.write("non-ascii print \\u00e9\\u2713 from a tool\\n")
        return text + " \\u00fcn\\u00efc\\u00f6d\\u00e9 \\u2713"

    @server.tool
    def slow(seconds: float = 0.5) -> str:
        """Sleep a while."""
        time.sleep(seconds)
        return "slept"

    @server.tool(timeout=0.2)
    def stuck() -> str:
        """Never returns; the server answers at the timeout."""
        time.sleep(3600)
        return "never"

    @server.tool
    def forever() -> str:
        """Never returns and has no timeout."""
        time.sleep(3600)
        return "never"

    @server.tool
    def big(size: int) -> str:
        """A long non-ASCII answer."""
        return "\\u00e9" * size

    @server.tool
    def root_handlers() -> str:
        """What the root logger has."""
        return repr(logging.getLogger().handlers)
    '''
)


def _without_import_noise(source: str) -> str:
    quiet = source.replace('print("print at import time")', "")
    quiet = quiet.replace('os.write(1, b"os.write(1) at import time\\n")', "")
    assert "at import time" not in quiet
    return quiet


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    path = tmp_path / "noisy_server.py"
    path.write_text(NOISY_SERVER, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "latin-1"},
        {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"},
    ],
    ids=["default", "latin-1", "ascii"],
)
def test_only_protocol_frames_reach_stdout(server_file: Path, env: dict[str, str]) -> None:
    proc = spawn(toolwire_run(server_file), **env)
    out, err = proc.communicate(frame(INIT) + call(2, "noisy", {"text": "hi"}), timeout=60)
    assert proc.returncode == 0, err
    lines = out.split(b"\n")
    assert lines[-1] == b""  # every frame ends with a newline
    messages = [json.loads(line.decode("utf-8")) for line in lines[:-1]]  # UTF-8, strictly
    assert [m["id"] for m in messages] == [1, 2]
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert messages[1]["result"]["content"][0]["text"] == "hi ünïcödé ✓"
    assert messages[1]["result"].get("isError") is False
    stderr = err.decode("utf-8")
    for noise in (
        "print at import time",
        "os.write(1) at import time",
        "print inside a tool",
        "os.write(1) inside a tool",
        "child process output",
        "non-ascii print é✓ from a tool",
    ):
        assert noise in stderr
    assert "Traceback" not in stderr


def test_server_run_from_python_m_protects_tool_output(tmp_path: Path) -> None:
    script = tmp_path / "main_server.py"
    # Run as a script, nothing is protected before server.run(): no import-time output here.
    script.write_text(
        _without_import_noise(NOISY_SERVER) + '\nif __name__ == "__main__":\n    server.run()\n',
        encoding="utf-8",
    )
    proc = spawn([sys.executable, str(script)], LANG="C", LC_ALL="C")
    messages, stderr, code = exchange(proc, [frame(INIT), call(2, "noisy", {"text": "x"})])
    assert code == 0
    assert [m["id"] for m in messages] == [1, 2]
    assert "print inside a tool" in stderr and "child process output" in stderr


def test_buffered_prints_before_run_go_to_stderr_under_python_script(tmp_path: Path) -> None:
    """`python server.py` on a pipe: stdout is block-buffered, so a print() at import time is
    still in Python's buffer when `server.run()` takes the wire; it must come out on stderr,
    never ahead of the `initialize` reply."""
    script = tmp_path / "chatty_server.py"
    script.write_text(
        "print('hello from import time')\n"
        + _without_import_noise(NOISY_SERVER)
        + '\nprint("about to run")\nif __name__ == "__main__":\n    server.run()\n',
        encoding="utf-8",
    )
    env = child_env()
    env.pop("PYTHONUNBUFFERED", None)  # the default a client's spawn gives
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    out, err = proc.communicate(frame(INIT), timeout=60)
    assert proc.returncode == 0, err
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1]
    assert b"hello from import time" in err and b"about to run" in err


def test_stdin_eof_lets_the_call_in_flight_answer_then_exits_zero(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file))
    messages, stderr, code = exchange(proc, [frame(INIT), call(7, "slow", {"seconds": 0.5})])
    assert code == 0
    assert messages[-1]["id"] == 7
    assert messages[-1]["result"]["content"][0]["text"] == "slept"
    assert "Traceback" not in stderr


def test_an_abandoned_sync_tool_does_not_keep_the_process_alive(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file))
    started = time.monotonic()
    messages, stderr, code = exchange(proc, [frame(INIT), call(3, "stuck")], timeout=30)
    elapsed = time.monotonic() - started
    assert code == 0
    assert messages[-1]["id"] == 3 and messages[-1]["result"]["isError"] is True
    assert "timed out" in messages[-1]["result"]["content"][0]["text"]
    assert "Traceback" not in stderr
    assert elapsed < 25  # the thread sleeps for an hour; the process did not wait for it


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_signals_exit_zero_without_traceback(server_file: Path, signum: int) -> None:
    proc = spawn(toolwire_run(server_file), TOOLWIRE_LOG_LEVEL="INFO")
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(proc, call(2, "forever"))  # a sync call that never ends is in flight
    time.sleep(0.3)
    _, err = signal_and_collect(proc, signum)
    assert proc.returncode == 0
    assert b"Traceback" not in err
    assert f"received {signal.Signals(signum).name}".encode() in err


def test_sigterm_during_a_slow_import_exits_zero_quietly(tmp_path: Path) -> None:
    marker = tmp_path / "importing"
    slow = tmp_path / "slow_import.py"
    slow.write_text(
        f"import pathlib, time\npathlib.Path({str(marker)!r}).write_text('1')\n"
        "time.sleep(30)\nfrom toolwire import Server\nserver = Server('s')\n"
    )
    proc = spawn(toolwire_run(slow))
    wait_for_file(marker)
    _, err = signal_and_collect(proc, signal.SIGTERM)
    assert proc.returncode == 0
    assert b"Traceback" not in err


def test_default_logging_is_quiet_and_leaves_the_root_logger_alone(server_file: Path) -> None:
    server_file.write_text(_without_import_noise(NOISY_SERVER), encoding="utf-8")
    proc = spawn(toolwire_run(server_file))
    messages, stderr, code = exchange(proc, [frame(INIT), call(2, "root_handlers")])
    assert code == 0
    assert messages[1]["result"]["content"][0]["text"] == "[]"
    assert stderr == ""  # no banner, no log lines at the default level


def test_bad_frames_get_errors_and_the_server_survives(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file))
    huge = b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"' + b"a" * (10 << 20) + b'"}}\n'
    frames = [
        b"{not json\n",
        b"\xff\xfe\n",
        b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n',  # before initialize
        frame(INIT),
        b"\r\n\n   \n",  # blank lines are ignored
        b'{"jsonrpc":"2.0","id":4,"method":"no/such"}\r\n',
        huge,
        b'{"jsonrpc":"2.0","id":5,"method":"ping"}\n',
        b'{"jsonrpc":"2.0","id":6,"method":"ping"}',  # the last frame may lack its newline
    ]
    messages, stderr, code = exchange(proc, frames)
    assert code == 0, stderr
    codes = [(m.get("id"), m.get("error", {}).get("code")) for m in messages]
    assert codes == [
        (None, -32700),
        (None, -32700),
        (3, codes[2][1]),
        (1, None),
        (4, -32601),
        (9, -32600),  # refused for its size, answered to its own id (issue #11)
        (5, None),
        (6, None),
    ]
    assert codes[2][1] is not None  # refused before initialize, whatever the exact code
    message = messages[5]["error"]["message"]
    assert "exceeds the maximum message size" in message and str(len(huge) - 1) in message


def test_max_message_bytes_is_configurable(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file), TEST_MAX="1000")
    padded = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "p" * 1200}}
    # The id after a long params: not within what is kept of the line, so id null.
    id_last = {"jsonrpc": "2.0", "method": "ping", "params": {"pad": "p" * 5000}, "id": 4}
    frames = [frame(INIT), frame(padded), call(3, "big", {"size": 3}), frame(id_last)]
    messages, _, code = exchange(proc, frames)
    assert code == 0
    by_id = {m["id"]: m for m in messages}
    assert set(by_id) == {1, 2, 3, None}
    assert by_id[2]["error"]["code"] == -32600 and "1000" in by_id[2]["error"]["message"]
    assert by_id[3]["result"]["content"][0]["text"] == "ééé"
    assert by_id[None]["error"]["code"] == -32600


def test_large_concurrent_replies_never_interleave(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file))
    sizes = [70_000 + i for i in range(24)]  # each reply is ~140 KB: many PIPE_BUF pieces
    frames = [frame(INIT)] + [call(10 + i, "big", {"size": n}) for i, n in enumerate(sizes)]
    messages, _, code = exchange(proc, frames)
    assert code == 0
    replies = {m["id"]: m["result"]["content"][0]["text"] for m in messages[1:]}
    assert replies == {10 + i: "é" * n for i, n in enumerate(sizes)}


def test_stdin_and_stdout_may_be_regular_files(server_file: Path, tmp_path: Path) -> None:
    requests = tmp_path / "in.jsonl"
    requests.write_bytes(
        frame(INIT) + call(2, "big", {"size": 5000}) + call(3, "slow", {"seconds": 0})
    )
    replies = tmp_path / "out.jsonl"
    with requests.open("rb") as stdin, replies.open("wb") as stdout:
        proc = subprocess.run(  # noqa: PLW1510 - the code is asserted
            toolwire_run(server_file),
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=child_env(),
            timeout=60,
        )
    assert proc.returncode == 0, proc.stderr
    messages = [json.loads(line) for line in replies.read_bytes().splitlines()]
    assert sorted(m["id"] for m in messages) == [1, 2, 3]
    assert next(m for m in messages if m["id"] == 2)["result"]["content"][0]["text"] == "é" * 5000


def test_a_client_that_closes_our_stdout_ends_the_server_quietly(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file))
    assert proc.stdout is not None
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    proc.stdout.close()  # nobody reads any more: the next write gets EPIPE
    send(proc, call(2, "big", {"size": 100_000}), b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    assert proc.stderr is not None
    try:
        code = proc.wait(timeout=20)
    finally:
        err = proc.stderr.read()
    assert code == 0
    assert b"Traceback" not in err


def test_stdin_left_open_and_no_frames_keeps_serving(server_file: Path) -> None:
    proc = spawn(toolwire_run(server_file))
    try:
        time.sleep(1.0)
        assert proc.poll() is None  # no EOF, parent alive: it must keep serving
        send(proc, frame(INIT))
        assert read_message(proc)["id"] == 1
    finally:
        proc.kill()
        proc.communicate(timeout=10)


def test_stderr_merged_into_stdout_is_discarded_to_keep_the_wire_pure(server_file: Path) -> None:
    proc = subprocess.Popen(
        toolwire_run(server_file),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=child_env(TOOLWIRE_LOG_LEVEL="DEBUG"),
    )
    out, _ = proc.communicate(frame(INIT) + call(2, "noisy", {"text": "hi"}), timeout=60)
    assert proc.returncode == 0
    messages = [json.loads(line) for line in out.splitlines()]  # nothing but JSON-RPC
    assert [m["id"] for m in messages] == [1, 2]


def test_signals_during_shutdown_never_kill_with_a_signal_code(server_file: Path) -> None:
    """SIGTERMs raining on a server that is shutting down after EOF: still exit code 0."""
    codes = []
    for _ in range(5):
        proc = spawn(toolwire_run(server_file))
        send(proc, frame(INIT))
        assert read_message(proc)["id"] == 1
        assert proc.stdin is not None
        proc.stdin.close()  # EOF: the shutdown starts
        deadline = time.monotonic() + 20
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                break
            time.sleep(0.002)
        proc.wait(timeout=20)
        assert proc.stderr is not None and proc.stdout is not None
        err = proc.stderr.read()
        proc.stderr.close()
        proc.stdout.close()
        assert b"Traceback" not in err
        codes.append(proc.returncode)
    assert codes == [0] * 5


def test_a_flood_of_pipelined_requests_is_answered_in_order(server_file: Path) -> None:
    count = 40_000  # ~2 MB of input: reading pauses at 1 MiB unconsumed and resumes
    pings = b"".join(
        b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_pad":"%s"}}\n' % (i, b"x" * 20)
        for i in range(count)
    )
    proc = spawn(toolwire_run(server_file))
    messages, stderr, code = exchange(proc, [frame(INIT), pings], timeout=120)
    assert code == 0, stderr
    assert [m["id"] for m in messages] == [1, *range(count)]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell redirections")
@pytest.mark.parametrize(
    ("redirect", "expect_reply"),
    [("0<&-", False), ("2>&-", True)],
    ids=["stdin-closed", "stderr-closed"],
)
def test_a_closed_standard_fd_at_launch_is_survived(
    server_file: Path, redirect: str, expect_reply: bool
) -> None:
    command = " ".join([*(f"'{part}'" for part in toolwire_run(server_file)), redirect])
    proc = subprocess.Popen(
        ["/bin/sh", "-c", f"exec {command}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    out, _ = proc.communicate(frame(INIT) + call(2, "noisy", {"text": "x"}), timeout=60)
    assert proc.returncode == 0
    messages = [json.loads(line) for line in out.splitlines()]
    assert [m["id"] for m in messages] == ([1, 2] if expect_reply else [])


CARELESS_SERVER = textwrap.dedent(
    '''
    import os, subprocess, sys
    from toolwire import Server

    server = Server("careless")

    @server.tool
    def close_stdout() -> str:
        """Close file descriptors 1 and 0, as a careless daemonizing library might."""
        os.close(1)
        os.close(0)
        return "closed"

    @server.tool
    def late_child() -> str:
        """Leave a child behind that writes to fd 1 after this call has been answered."""
        code = "import os, time; time.sleep(0.3); os.write(1, b'late child output\\\\n')"
        subprocess.Popen([sys.executable, "-c", code])
        return "started"

    @server.tool
    def leave() -> str:
        """Call sys.exit."""
        sys.exit(3)

    @server.tool
    def echo(text: str) -> str:
        """Echo."""
        return text
    '''
)


@pytest.mark.parametrize("careless", ["close_stdout", "late_child", "leave"])
def test_a_careless_tool_leaves_the_wire_and_the_server_whole(
    tmp_path: Path, careless: str
) -> None:
    path = tmp_path / "careless_server.py"
    path.write_text(CARELESS_SERVER, encoding="utf-8")
    proc = spawn(toolwire_run(path))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(frame(INIT) + call(2, careless))
    proc.stdin.flush()
    replies = [read_message(proc) for _ in range(2)]
    time.sleep(0.6)  # a late child has written by now
    out, err = proc.communicate(call(3, "echo", {"text": "still here"}), timeout=60)
    replies += [json.loads(line) for line in out.splitlines()]  # every line a JSON-RPC frame
    assert proc.returncode == 0, err
    assert [m["id"] for m in replies] == [1, 2, 3]
    assert replies[1]["result"]["isError"] is (careless == "leave")
    assert replies[2]["result"]["content"][0]["text"] == "still here"
    if careless == "late_child":
        assert b"late child output" in err
