"""Issue #11: after stdin EOF the server waits a short, configurable grace for calls in
flight, then exits; no process a tool started outlives it (Linux: its descendants)."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.transports._proc import (
    INIT,
    call,
    frame,
    pid_gone,
    read_message,
    send,
    spawn,
    toolwire_run,
    wait_for_file,
)

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="descendants are found through /proc (Linux)"
)

SERVER = textwrap.dedent(
    '''
    import os, subprocess, sys
    from toolwire import Server

    server = Server("spawner", version="1")
    PIDS = os.environ["PIDS_DIR"]

    def _note(name, pid):
        with open(os.path.join(PIDS, name), "w") as f:
            f.write(str(pid))

    @server.tool
    def wait_on_child() -> str:
        """Start a long child and wait for it."""
        child = subprocess.Popen(["sleep", "300"])
        _note("waited", child.pid)
        child.wait()
        return "child ended"

    @server.tool
    def fire_and_forget() -> str:
        """Start a long child and return at once."""
        child = subprocess.Popen(["sleep", "300"])
        _note("forgotten", child.pid)
        return "started"

    @server.tool
    def grandchild() -> str:
        """Start a shell that starts its own long child, and return."""
        path = os.path.join(PIDS, "grandchild")
        subprocess.Popen(["sh", "-c", f"sleep 300 & echo $! > {path}; wait"])
        return "started"

    @server.tool
    def stubborn() -> str:
        """A child that ignores SIGTERM."""
        child = subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"])
        _note("stubborn", child.pid)
        return "started"

    if __name__ == "__main__":
        server.run(shutdown_grace=float(os.environ.get("GRACE", "2")))
    '''
)


def _ignores_sigterm(pid: int) -> bool:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


def _spawner(tmp_path: Path, sleep: str = "300") -> tuple[Path, Path]:
    """The spawner server's script (its waited-on child sleeping `sleep` seconds) and the
    folder where its tools note their children's pids."""
    script = tmp_path / "spawner.py"
    script.write_text(SERVER.replace('["sleep", "300"]', f'["sleep", "{sleep}"]'), encoding="utf-8")
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    return script, pids_dir


@pytest.mark.parametrize("ending", ["eof", "sigterm"])
def test_no_process_a_tool_started_outlives_the_server(tmp_path: Path, ending: str) -> None:
    script, pids_dir = _spawner(tmp_path)
    proc = spawn([sys.executable, str(script)], PIDS_DIR=str(pids_dir))
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(
        proc,
        call(2, "fire_and_forget"),
        call(3, "grandchild"),
        call(4, "stubborn"),
        call(5, "wait_on_child"),  # still in flight when the client leaves
    )
    replies = {read_message(proc)["id"] for _ in range(3)}
    assert replies == {2, 3, 4}
    pids = {
        name: int(wait_for_file(pids_dir / name))
        for name in ("forgotten", "grandchild", "stubborn")
    }
    pids["waited"] = int(wait_for_file(pids_dir / "waited"))
    assert not any(pid_gone(pid) for pid in pids.values())
    if ending == "eof":
        assert proc.stdin is not None
        proc.stdin.close()
    else:
        os.kill(proc.pid, signal.SIGTERM)
    # The call in flight waits on a 300 s child: only the 2 s grace lets the server exit.
    assert proc.wait(timeout=30) == 0
    for _ in range(100):  # 1 s at most after the server is gone
        if all(pid_gone(pid) for pid in pids.values()):
            break
        time.sleep(0.01)
    assert {name: pid_gone(pid) for name, pid in pids.items()} == dict.fromkeys(pids, True)


def test_a_call_that_finishes_within_the_grace_is_answered_after_eof(tmp_path: Path) -> None:
    script, pids_dir = _spawner(tmp_path, sleep="0.3")
    proc = spawn([sys.executable, str(script)], PIDS_DIR=str(pids_dir))
    out, err = proc.communicate(frame(INIT) + call(2, "wait_on_child"), timeout=60)
    assert proc.returncode == 0, err
    assert b'"id":2' in out and b"child ended" in out


def test_toolwire_run_takes_the_shutdown_grace_for_stdio_too(tmp_path: Path) -> None:
    # A call that needs 3 s after stdin ends: past the 2 s default, within the 8 s given.
    script, pids_dir = _spawner(tmp_path, sleep="3")
    command = [*toolwire_run(script), "--shutdown-grace", "8"]
    proc = spawn(command, PIDS_DIR=str(pids_dir))
    out, err = proc.communicate(frame(INIT) + call(2, "wait_on_child"), timeout=60)
    assert proc.returncode == 0, err
    assert b'"id":2' in out and b"child ended" in out


@pytest.mark.parametrize("grace", [-1, True, float("inf"), float("nan"), "2"])
def test_a_bad_shutdown_grace_is_refused_by_name(grace: object) -> None:
    # The same rule as HTTP's (transports/_process.py checked_grace): a finite number >= 0.
    from toolwire import Server

    with pytest.raises(ValueError, match="shutdown_grace must be a number of seconds >= 0, not"):
        Server("x").run(shutdown_grace=grace)


def test_a_second_sigterm_still_stops_what_tools_started(tmp_path: Path) -> None:
    """ "A second signal: leave now" must not leave a child that ignores SIGTERM behind."""
    script, pids_dir = _spawner(tmp_path)
    proc = spawn([sys.executable, str(script)], PIDS_DIR=str(pids_dir))
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    send(proc, call(2, "stubborn"), call(3, "wait_on_child"))
    assert read_message(proc)["id"] == 2
    pids = [int(wait_for_file(pids_dir / "stubborn")), int(wait_for_file(pids_dir / "waited"))]
    for _ in range(3000):  # until the stubborn child really ignores SIGTERM
        if _ignores_sigterm(pids[0]):
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGTERM)
    time.sleep(0.1)  # the second lands in the loop or while the leftovers are being stopped
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    for _ in range(100):
        if all(pid_gone(pid) for pid in pids):
            break
        time.sleep(0.01)
    assert [pid_gone(pid) for pid in pids] == [True, True]
