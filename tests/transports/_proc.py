"""Helpers for stdio tests: spawn real servers, speak raw JSON-RPC, wait with deadlines."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def call(
    request_id: int, name: str, arguments: dict[str, Any] | None = None, **params: Any
) -> bytes:
    body: dict[str, Any] = {"name": name, "arguments": arguments or {}, **params}
    return frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": body})


def child_env(**extra: str) -> dict[str, str]:
    """os.environ plus src/ on PYTHONPATH (after anything already there)."""
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([*paths, str(ROOT / "src"), str(ROOT)])
    env.pop("TOOLWIRE_LOG_LEVEL", None)
    env.update(extra)
    return env


def toolwire_run(target: Path | str) -> list[str]:
    return [sys.executable, "-m", "toolwire", "run", str(target)]


def spawn(
    command: list[str], *, cwd: Path = ROOT, stderr: Any = subprocess.PIPE, **env: str
) -> subprocess.Popen[bytes]:
    """Start a server with pipes for stdin and stdout; `stderr` a pipe unless given (a server
    that logs more than a pipe holds, 64 KiB, blocks until someone reads it: give a file)."""
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=child_env(**env),
        cwd=cwd,
    )


def exchange(
    proc: subprocess.Popen[bytes], frames: list[bytes], timeout: float = 60
) -> tuple[list[dict[str, Any]], str, int]:
    """Send everything, close stdin, collect all of stdout (each line must be JSON)."""
    out, err = proc.communicate(b"".join(frames), timeout=timeout)
    messages = [json.loads(line) for line in out.split(b"\n") if line]
    return messages, err.decode("utf-8", "replace"), proc.returncode


def read_message(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "the server closed stdout"
    return dict(json.loads(line))


def send(proc: subprocess.Popen[bytes], *frames: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(b"".join(frames))
    proc.stdin.flush()


def pid_gone(pid: int) -> bool:
    """True once `pid` has exited (a zombie waiting to be reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pid: int, timeout: float) -> float | None:
    """Seconds until `pid` is gone, or None if it outlived `timeout` (then it is killed)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if pid_gone(pid):
            return time.monotonic() - started
        time.sleep(0.01)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 9)
    return None


def wait_for_file(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            text = path.read_text()
            if text.strip():
                return text
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def signal_and_collect(
    proc: subprocess.Popen[bytes], signum: int, timeout: float = 20
) -> tuple[bytes, bytes]:
    """Signal the server with its stdin still open (so EOF cannot end it first); collect."""
    proc.send_signal(signum)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.communicate(timeout=timeout)
