"""The stdio transport as a real subprocess: stream purity, encodings, exits, bad frames."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}

NOISY_SERVER = textwrap.dedent(
    '''
    import os
    from toolwire import Server

    print("print at import time")
    server = Server("noisy", version="1")

    @server.tool
    def noisy(text: str) -> str:
        """Print, write to fd 1, and answer."""
        print("print inside a tool")
        os.write(1, b"os.write(1) inside a tool\\n")
        return text + " ünïcödé ✓"

    @server.tool
    def slow() -> str:
        """Sleep a while."""
        import time
        time.sleep(0.5)
        return "slept"
    '''
)


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    path = tmp_path / "noisy_server.py"
    path.write_text(NOISY_SERVER, encoding="utf-8")
    return path


def _spawn(server_file: Path, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "toolwire", "run", str(server_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )


def _exchange(proc: subprocess.Popen[bytes], frames: list[bytes]) -> tuple[list[Any], str, int]:
    out, err = proc.communicate(b"".join(frames), timeout=60)
    lines = out.splitlines()
    return [json.loads(line) for line in lines], err.decode("utf-8", "replace"), proc.returncode


def _frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "noisy", "arguments": {"text": "hi"}},
}


@pytest.mark.parametrize("env", [{}, {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "latin-1"}])
def test_only_protocol_frames_reach_stdout(server_file: Path, env: dict[str, str]) -> None:
    proc = _spawn(server_file, **env)
    messages, stderr, code = _exchange(proc, [_frame(INIT), _frame(CALL)])
    assert code == 0
    assert [m["id"] for m in messages] == [1, 2]
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert messages[1]["result"]["content"][0]["text"] == "hi ünïcödé ✓"
    for noise in ("print at import time", "print inside a tool", "os.write(1) inside a tool"):
        assert noise in stderr


def test_stdin_eof_lets_the_call_in_flight_answer_then_exits_zero(server_file: Path) -> None:
    proc = _spawn(server_file)
    slow = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow"}}
    messages, _, code = _exchange(proc, [_frame(INIT), _frame(slow)])
    assert code == 0
    assert messages[-1]["id"] == 7
    assert messages[-1]["result"]["content"][0]["text"] == "slept"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_exit_zero_without_traceback(server_file: Path, signum: int) -> None:
    proc = _spawn(server_file)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_frame(INIT))
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert b"Traceback" not in err


def test_server_exits_when_its_parent_dies(server_file: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    parent_code = textwrap.dedent(
        f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-m", "toolwire", "run", {str(server_file)!r}],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(60)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code])
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child_pid = int(pid_file.read_text())
    time.sleep(1.0)  # let the child import toolwire and start serving
    parent.kill()
    parent.wait(timeout=10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(child_pid, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{child_pid}/stat") as stat:
            if stat.read().split()[2] == "Z":
                return  # exited; only the reaping is left (to init)
        time.sleep(0.05)
    os.kill(child_pid, signal.SIGKILL)
    pytest.fail("the server outlived its parent")


def test_bad_frames_get_errors_and_the_server_survives(server_file: Path) -> None:
    proc = _spawn(server_file)
    huge = (
        b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"'
        + b"a" * (5 * 1024 * 1024)
        + b'"}}\n'
    )
    frames = [
        b"{not json\n",
        b"\xff\xfe\n",
        b"[1,2]\n",
        b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n',  # before initialize
        _frame(INIT),
        b'{"jsonrpc":"2.0","id":4,"method":"no/such"}\n',
        huge,
        b'{"jsonrpc":"2.0","id":5,"method":"ping"}\n',
    ]
    messages, _, code = _exchange(proc, frames)
    assert code == 0
    codes = [(m.get("id"), m.get("error", {}).get("code")) for m in messages]
    assert codes == [
        (None, -32700),
        (None, -32700),
        (None, -32600),
        (None, -32600),
        (3, -32602),
        (1, None),
        (4, -32601),
        (None, -32600),
        (5, None),
    ]
    assert "exceeds the maximum message size" in messages[7]["error"]["message"]
