"""A toolwire server in its own process, listening on 127.0.0.1, for clients over HTTP.

`served_http("sse")` starts the kitchen server with `server.run("sse", port=N)` (launcher
"script") or with `python -m toolwire run kitchen.py --transport sse --port N` (launcher
"cli"), waits until the port answers, and stops it with SIGTERM at the end, checking that
it exits cleanly (status 0) and promptly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests._listening import START_SECONDS, accepts, free_port
from tests.interop._support import KITCHEN, ROOT

# START_SECONDS, shared with tests/_listening.py, only guards against a server that never
# listens: 30 s of its own were too few for a start-up on a loaded two-core machine.
STOP_SECONDS = 15.0


@dataclass
class Running:
    """A server process and where it listens."""

    base: str
    process: subprocess.Popen[bytes]
    stderr_path: Path
    stopped: list[int] = field(default_factory=list)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def stop(self) -> int:
        """SIGTERM, then the exit status (bounded; SIGKILL and a failure past the bound)."""
        if self.stopped:
            return self.stopped[0]
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise AssertionError(
                f"the server did not stop within {STOP_SECONDS} s of SIGTERM:\n{self.stderr()}"
            ) from None
        self.stopped.append(code)
        return code


def _argv(transport: str, launcher: str, port: int, target: Path) -> list[str]:
    if launcher == "cli":
        return [
            sys.executable, "-m", "toolwire", "run", str(target),
            "--transport", transport, "--port", str(port),
        ]  # fmt: skip
    code = (
        "import runpy, sys; "
        f"runpy.run_path({str(target)!r})['server'].run({transport!r}, port={port})"
    )
    return [sys.executable, "-c", code]


@contextmanager
def served_http(
    transport: str, launcher: str = "script", target: Path = KITCHEN
) -> Iterator[Running]:
    """Run the server; yield it once it listens; stop it and check it exited with 0."""
    with tempfile.TemporaryDirectory(prefix="tw-http-") as scratch:
        for attempt in range(3):  # another process may take the free port before us
            port = free_port()
            stderr_path = Path(scratch) / f"stderr-{attempt}.txt"
            with stderr_path.open("wb") as stderr:
                process = subprocess.Popen(
                    _argv(transport, launcher, port, target),
                    cwd=ROOT,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=stderr,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
            running = Running(f"http://127.0.0.1:{port}", process, stderr_path)
            deadline = time.monotonic() + START_SECONDS
            while process.poll() is None and not accepts(port):
                if time.monotonic() > deadline:
                    process.kill()
                    process.wait(5)
                    raise AssertionError(f"no server on port {port} after {START_SECONDS} s")
                time.sleep(0.05)
            if process.poll() is None:
                break
            if "address already in use" not in running.stderr().lower() or attempt == 2:
                raise AssertionError(f"the server exited at start-up:\n{running.stderr()}")
        try:
            yield running
        finally:
            code = running.stop()
        assert code == 0, f"exit status {code}:\n{running.stderr()}"
