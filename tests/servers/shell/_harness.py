"""A toolwire-shell server in a subprocess, driven by plain JSON-RPC lines over its stdio, and
the process-table checks the tests make (every process carrying the server's tag)."""

from __future__ import annotations

import itertools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
KEY = b"TOOLWIRE_SHELL_TAG="


def env_for_server(**extra: str) -> dict[str, str]:
    """The test's environment plus the worktree's sources on PYTHONPATH."""
    env = dict(os.environ)
    paths = [str(ROOT / "src"), str(ROOT / "servers" / "shell"), str(ROOT)]
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def tagged_processes(token: str) -> list[tuple[int, str]]:
    """Live (non-zombie) processes carrying a tag of the server whose token is `token` (the
    prefix `ShellServer.token()` and `token_of()` return): (pid, tag). Scoped to one server so
    that two test runs on one machine cannot see each other's processes."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2 :].startswith("Z"):
            continue
        for item in environ.split(b"\0"):
            if item.startswith(KEY):
                tag = item[len(KEY) :].decode()
                if tag.startswith(token):
                    found.append((int(entry), tag))
    return found


def token_of(result: Any) -> str:
    """The tag prefix (server token and dot) printed by a `printenv TOOLWIRE_SHELL_TAG` run
    through the `shell` tool, from an `mcp` client's result."""
    assert result.structured_content is not None, result.content
    tag = result.structured_content["output"][0]["stdout"].strip()
    assert tag, "the command ran without a TOOLWIRE_SHELL_TAG"
    return tag.split(".")[0] + "."


def no_tagged_processes_left(token: str, seconds: float = 15.0) -> bool:
    """Whether every process of the server with `token` is gone within `seconds` (raising with
    those left otherwise). Not at once: a server its client killed leaves the sweep to its
    watchdog, and a process killed on a loaded machine takes a moment to exit; a leak stays."""
    if wait_until(lambda: tagged_processes(token) == [], seconds):
        return True
    left = tagged_processes(token)
    if not left:
        return True
    raise AssertionError(f"toolwire-shell processes left after {seconds} s: {left}")


def zombies_of(parent: int) -> list[int]:
    """Zombie children of `parent`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] == "Z" and int(fields[1]) == parent:
            found.append(int(entry))
    return found


def wait_until(check: Any, seconds: float = 10.0) -> Any:
    """Poll `check()` until it returns something truthy (returned) or time runs out (the last
    value is returned)."""
    end = time.monotonic() + seconds
    value = check()
    while not value and time.monotonic() < end:
        time.sleep(0.05)
        value = check()
    return value


class ShellServer:
    """`python -m toolwire_shell ARGS` over stdio.

    Args:
        args: Command-line options.
        version: The protocol version offered in `initialize`.
    """

    def __init__(self, *args: str, version: str = "2025-11-25", env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "toolwire_shell", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env or env_for_server(),
            cwd=str(ROOT),
        )
        self._ids = itertools.count(1)
        self._messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.replies: dict[Any, dict[str, Any]] = {}
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.initialize = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "harness", "version": "0"},
            },
        )
        self.notify("notifications/initialized", {})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._messages.put(json.loads(line))

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def start(self, method: str, params: dict[str, Any]) -> int:
        """Send a request; its id."""
        number = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return number

    def wait_reply(self, number: int, timeout: float = 60.0) -> dict[str, Any]:
        """The reply to request `number` (replies to others are kept for their turn)."""
        end = time.monotonic() + timeout
        while number not in self.replies:
            message = self._messages.get(timeout=max(0.01, end - time.monotonic()))
            if "method" in message:
                self.notifications.append(message)
            else:
                self.replies[message.get("id")] = message
        return self.replies.pop(number)

    def request(self, method: str, params: dict[str, Any], timeout: float = 60.0) -> Any:
        reply = self.wait_reply(self.start(method, params), timeout)
        assert "error" not in reply, reply
        return reply["result"]

    def call(self, name: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
        """`tools/call`: the result (an isError one included)."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if kw.get("progress"):
            params["_meta"] = {"progressToken": "p1"}
        return dict(self.request("tools/call", params, kw.get("timeout", 60.0)))

    def token(self) -> str:
        """The server's tag prefix, learned from a command's environment."""
        result = self.call("shell", {"commands": ["printenv TOOLWIRE_SHELL_TAG"]})
        tag = result["structuredContent"]["output"][0]["stdout"].strip()
        return tag.split(".")[0] + "."

    def close(self) -> int:
        """Close stdin and wait for the exit; the exit status."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                return self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGKILL)
        return self.proc.wait(5)

    def __enter__(self) -> ShellServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
