"""Child processes for the scale-out tests that never outlive them.

Each child is started in a process group of its own and registered; `kill()` kills the whole
group (so nginx's workers, or the uvicorn workers of `toolwire run --workers N`, go with
their parent), `stop()` asks the parent with SIGTERM first. `reap_all()` (after every test,
from tests/scale/conftest.py, and at interpreter exit) kills whatever is still registered.
Every wait here is bounded.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from tests._listening import free_port

__all__ = [
    "PORT_ATTEMPTS",
    "START_SECONDS",
    "STOP_SECONDS",
    "Exited",
    "ManagedProcess",
    "free_port",
    "group_members",
    "in_ci",
    "live",
    "new_workdir",
    "reap_all",
    "tail",
    "wait_until_answering",
    "wait_until_group_gone",
]

START_SECONDS = 60.0  # a loaded two-core machine imports slowly
STOP_SECONDS = 15.0
# A port found free can be taken by another test before our process binds it: try again.
PORT_ATTEMPTS = 3

live: list[ManagedProcess] = []
_workdirs: list[Path] = []


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def new_workdir(prefix: str) -> Path:
    """A fresh tmp dir for one process's files (kept for its logs, removed at exit)."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    _workdirs.append(workdir)
    return workdir


def _answers(port: int, path: str) -> bool:
    """Whether something on `port` answers HTTP at all (any status will do)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", path)
        connection.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        connection.close()


def wait_until_answering(
    process: subprocess.Popen[bytes], port: int, path: str, log: Path, what: str
) -> None:
    deadline = time.monotonic() + START_SECONDS
    while not _answers(port, path):
        if process.poll() is not None:
            raise Exited(f"{what} exited with {process.returncode}: {tail(log)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not answer within {START_SECONDS} s: {tail(log)}")
        time.sleep(0.05)


class Exited(RuntimeError):
    """The process ended before it answered (often: its port was taken meanwhile)."""


def tail(log: Path, size: int = 3000) -> str:
    try:
        return log.read_text(errors="replace")[-size:]
    except OSError:
        return "(no log)"


def _end(process: subprocess.Popen[bytes], sig: int, *, group: bool) -> None:
    """Send `sig` (to the whole group when `group`), unless everything is gone already."""
    try:
        if group:
            os.killpg(process.pid, sig)
        elif process.poll() is None:
            process.send_signal(sig)
    except ProcessLookupError:
        pass


class ManagedProcess:
    """A registered child in its own process group, with its output in `workdir`.

    Args:
        process: The child, started with `start_new_session=True`.
        workdir: Its tmp dir; its output goes to `output.log` there.
    """

    def __init__(self, process: subprocess.Popen[bytes], workdir: Path) -> None:
        self.process = process
        self.workdir = workdir
        live.append(self)

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL, at once (the group too: no worker survives it), then reap."""
        _end(self.process, signal.SIGKILL, group=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_SECONDS)
        self._forget()

    def stop(self) -> int | None:
        """SIGTERM, a bounded wait, then SIGKILL; returns the exit status of a clean stop
        (None when it had to be killed)."""
        _end(self.process, signal.SIGTERM, group=False)
        try:
            status: int | None = self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            status = None
        # Whatever is left of the group (workers of a parent that did not stop them) goes.
        _end(self.process, signal.SIGKILL, group=True)
        if status is None:
            self.kill()
        self._forget()
        return status

    def log_text(self) -> str:
        """Everything the process wrote so far (stdout and stderr together)."""
        return tail(self.workdir / "output.log", size=1 << 20)

    def _forget(self) -> None:
        # The workdir stays (a test may read the logs after a stop); it goes at exit.
        with contextlib.suppress(ValueError):
            live.remove(self)

    def __enter__(self) -> ManagedProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def group_members(pgid: int) -> list[tuple[int, int, str]]:
    """(pid, ppid, state) of the live processes in a process group (zombies left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            state, ppid, group = fields[0], int(fields[1]), int(fields[2])
            if group == pgid and state != "Z":
                found.append((int(entry.name), ppid, state))
    return found


def wait_until_group_gone(pgid: int) -> list[tuple[int, int, str]]:
    """What is still alive in the group after a bounded wait for it to empty."""
    deadline = time.monotonic() + STOP_SECONDS
    left = group_members(pgid)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = group_members(pgid)
    return left


def reap_all() -> None:
    """Kill every backend and nginx still running (after each test, and at exit)."""
    for process in list(live):
        process.kill()


def _clean_up() -> None:
    reap_all()
    for workdir in _workdirs:
        shutil.rmtree(workdir, ignore_errors=True)


atexit.register(_clean_up)
