"""`toolwire call` on a real terminal: the y/N question and the in-place progress bar.

Each case runs the command inside a detached tmux session on a private socket, reads the
screen with `capture-pane`, and types with `send-keys`. Without tmux the tests skip on a
developer's machine and fail under CI=true (scripts/install_system_tools.sh installs it).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(__file__).with_name("_remote_server.py")
STDIO = f"{sys.executable} {SERVER}"
WAIT_SECONDS = 30.0

if shutil.which("tmux") is None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("tmux is missing: run scripts/install_system_tools.sh", pytrace=False)
    pytest.skip("tmux is not installed (scripts/install_system_tools.sh)", allow_module_level=True)

pytest.importorskip("mcp")


class Terminal:
    """One tmux session running one command; the screen is read, keys are typed."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
        return done.stdout

    def start(self, command: str, **env: str) -> None:
        settings = {"PYTHONPATH": str(ROOT / "src"), "TERM": "xterm", **env}
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in settings.items())
        # The shell stays after the command, so its exit status stays on screen to read.
        script = f"env {exports} {command}; echo EXIT=$?; sleep 60"
        self.tmux("new-session", "-d", "-x", "150", "-y", "40", "sh", "-c", script)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J")

    def wait_for(self, text: str) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            shown = self.screen()
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen shows:\n{shown}")
            time.sleep(0.1)

    def type(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    # A short path: tmux sockets live under the 108-byte limit of AF_UNIX addresses.
    socket = Path(f"/tmp/tw-tmux-{os.getpid()}-{tmp_path.name[-20:]}")
    term = Terminal(socket)
    try:
        yield term
    finally:
        subprocess.run(
            ["tmux", "-S", str(socket), "kill-server"], check=False, capture_output=True, timeout=20
        )
        socket.unlink(missing_ok=True)


def _call(tool: str, arguments: str, server: Path = SERVER) -> str:
    quoted = shlex.quote(f"{sys.executable} {server}")
    return f"{sys.executable} -m toolwire call {quoted} {tool} --args {shlex.quote(arguments)}"


REASONS = {
    "wipe": "its annotations do not say it is read-only or non-destructive",
    "purge": "it is marked destructive (destructiveHint: true)",
}


@pytest.mark.parametrize(("answer", "status"), [("y", 0), ("n", 1), ("", 1)])
@pytest.mark.parametrize("tool", ["wipe", "purge"])
def test_gated_tool_asks_yes_no_saying_why(
    terminal: Terminal, tmp_path: Path, tool: str, answer: str, status: int
) -> None:
    log = tmp_path / "calls.txt"
    terminal.start(_call(tool, '{"path": "/srv/data"}'), CLI_CALL_LOG=str(log))
    shown = terminal.wait_for("[y/N]")
    # The reason given is the one true of this tool, and only that one.
    assert f"Tool '{tool}' on {STDIO} needs approval: {REASONS[tool]}." in shown
    other = REASONS["purge" if tool == "wipe" else "wipe"]
    assert other not in shown
    assert 'Call it with {"path": "/srv/data"}? [y/N]' in shown
    assert not log.exists()  # nothing called before the answer
    if answer:
        terminal.type(answer)
    terminal.type("Enter")
    shown = terminal.wait_for("EXIT=")
    assert f"EXIT={status}" in shown
    if status == 0:
        assert f"{'wiped' if tool == 'wipe' else 'purged'} /srv/data" in shown
        assert log.read_text() == ("/srv/data\n" if tool == "wipe" else "purge /srv/data\n")
    else:
        assert "toolwire call: not approved; the tool was not called" in shown
        assert not log.exists()
    assert "Traceback" not in shown


def test_read_only_tool_is_not_asked_about(terminal: Terminal) -> None:
    terminal.start(_call("add", '{"a": 1, "b": 2}'))
    shown = terminal.wait_for("EXIT=")
    assert "EXIT=0" in shown and "[y/N]" not in shown


def test_progress_bar_redraws_one_line(terminal: Terminal) -> None:
    terminal.start(_call("slow", '{"steps": 4}'))
    shown = terminal.wait_for("EXIT=")
    assert "EXIT=0" in shown and "finished" in shown
    bars = [line for line in shown.splitlines() if line.startswith("[")]
    # One line, redrawn in place, ends full: no per-notification lines on a terminal.
    assert len(bars) == 1, shown
    assert bars[0].rstrip().endswith("] 100% 4/4 step 4")
    assert "#" * 10 in bars[0] and "-" not in bars[0].split("]")[0]
    assert "progress 1/4" not in shown


def test_progress_messages_spanning_lines_stay_on_the_bar(terminal: Terminal) -> None:
    terminal.start(_call("lines", "{}", SERVER.with_name("_hostile_server.py")))
    shown = terminal.wait_for("EXIT=")
    assert "EXIT=0" in shown and "done" in shown
    bars = [line for line in shown.splitlines() if line.startswith("[")]
    assert len(bars) == 1, shown
    assert bars[0].rstrip().endswith("] 100% 2/2 third\\nfourth\\x0dfifth")
    assert "second" not in shown and "fifth" not in shown.replace(bars[0], "")
