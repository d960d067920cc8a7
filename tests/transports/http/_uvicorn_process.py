"""`python -m uvicorn MODULE:APP` as a real process on a free port, its output in a file.

The app module lives in this directory; it writes marker lines to the file named by the
`MARKERS` environment variable, which the tests read. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[2] / "src"
START_SECONDS = 60.0
STOP_SECONDS = 20.0
WAIT_SECONDS = 20.0


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLWIRE_LOG_LEVEL"}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**env, **extra}


class Uvicorn:
    """A uvicorn process serving `target` (`module:attribute`) on 127.0.0.1, with uvicorn's
    command-line `options`."""

    def __init__(
        self, target: str, tmp_path: Path, options: Sequence[str] = (), **env: str
    ) -> None:
        self.markers = tmp_path / "markers"
        self.log = tmp_path / "uvicorn.log"
        command = [sys.executable, "-m", "uvicorn", target, "--app-dir", str(HERE)]
        command += ["--host", "127.0.0.1", "--port", "0", *options]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=_env(MARKERS=str(self.markers), **env),
            )
        self.port = self._port()
        self.url = f"http://127.0.0.1:{self.port}"

    def _port(self) -> int:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            found = re.search(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", self.output())
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"uvicorn did not start:\n{self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def marks(self) -> list[str]:
        return self.markers.read_text().splitlines() if self.markers.exists() else []

    def wait_for_mark(self, mark: str) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while mark not in self.marks():
            assert time.monotonic() < deadline, f"{mark!r} never written: {self.marks()}"
            time.sleep(0.02)

    async def wait_for_mark_async(self, mark: str) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while mark not in self.marks():
            assert time.monotonic() < deadline, f"{mark!r} never written: {self.marks()}"
            await asyncio.sleep(0.02)

    async def stop(self, signum: int) -> int:
        """Signal the process; its exit code once it is gone (killed past STOP_SECONDS)."""
        self.proc.send_signal(signum)
        deadline = time.monotonic() + STOP_SECONDS
        while self.proc.poll() is None:
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"uvicorn still ran {STOP_SECONDS} s after {signum}")
            await asyncio.sleep(0.02)
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(STOP_SECONDS)
