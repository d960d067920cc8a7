"""Network servers in their own processes, on 127.0.0.1, that a test can stop and restart
on the same port (to see the adapter reconnect)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests._listening import accepts, free_port
from tests.client._support import SERVERS
from tests.interop._support import KITCHEN, ROOT

START_SECONDS = 60.0
PATHS = {"http": "/mcp", "sse": "/sse"}


def toolwire_argv(transport: str, port: int) -> list[str]:
    return [sys.executable, "-m", "toolwire", "run", str(KITCHEN),
            "--transport", transport, "--port", str(port)]  # fmt: skip


def script_argv(name: str) -> Callable[[str, int], list[str]]:
    def argv(transport: str, port: int) -> list[str]:
        return [sys.executable, str(SERVERS / f"{name}.py"), transport, str(port)]

    return argv


class NetworkServer:
    """One server process at a time on a fixed free port."""

    def __init__(self, argv: Callable[[str, int], list[str]], transport: str, scratch: Path):
        self.argv = argv
        self.transport = transport
        self.port = free_port()
        self.scratch = scratch
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATHS[self.transport]}"

    def start(self) -> None:
        self.starts += 1
        log = (self.scratch / f"stderr-{self.starts}.txt").open("wb")
        self.process = subprocess.Popen(
            self.argv(self.transport, self.port),
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + START_SECONDS
        while not accepts(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                text = (self.scratch / f"stderr-{self.starts}.txt").read_text(errors="replace")
                raise AssertionError(f"server did not listen on {self.port}:\n{text}")
            time.sleep(0.05)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        deadline = time.monotonic() + 10
        while accepts(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)

    def restart(self) -> None:
        self.stop()
        self.start()


@contextmanager
def network_server(
    argv: Callable[[str, int], list[str]], transport: str
) -> Iterator[NetworkServer]:
    """A started server, stopped at the end."""
    with tempfile.TemporaryDirectory(prefix="tw-client-") as scratch:
        server = NetworkServer(argv, transport, Path(scratch))
        server.start()
        try:
            yield server
        finally:
            server.stop()
