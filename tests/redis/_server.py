"""A real `redis-server` for the Redis tests: private, on a free loopback port, no disk.

`start_redis()` runs Debian's `redis-server` (installed by scripts/install_system_tools.sh)
with its own tmp dir as working directory, no RDB snapshots (`--save ''`) and no AOF
(`--appendonly no`), so nothing outlives the test, and waits until it answers PING. The
same port can be used again after a `kill()` (`start_redis(port=...)`), for tests of a
Redis that goes away and comes back. The `redis_server` fixture is one such server per test.

Where redis-server is not installed, the tests skip saying so on a developer's machine and
fail under CI (`CI=true`), which must install it.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._listening import free_port
from tests._node_tools import in_ci

__all__ = ["RedisServer", "redis_or_skip", "redis_server", "start_redis"]

START_SECONDS = 30.0
STOP_SECONDS = 10.0
PORT_ATTEMPTS = 3

_live: list[RedisServer] = []


def redis_or_skip() -> str:
    """redis-server's path; skips the test without it, except under CI, where that fails."""
    found = shutil.which("redis-server") or next(
        (
            str(p)
            for p in (Path("/usr/bin/redis-server"), Path("/usr/local/bin/redis-server"))
            if p.exists()
        ),
        None,
    )
    if found is None:
        reason = "redis-server is not installed (run scripts/install_system_tools.sh)"
        if in_ci():
            pytest.fail(f"{reason} (CI is set: CI must install it)")
        pytest.skip(reason)
    return found


def _pings(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One private redis-server.

    Attributes:
        port: Its loopback port.
        url: `redis://127.0.0.1:PORT/0`.
    """

    def __init__(self, process: subprocess.Popen[bytes], port: int, workdir: Path) -> None:
        self.process = process
        self.port = port
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{port}/0"

    def kill(self) -> None:
        """SIGKILL, at once (Redis vanishes mid-run), then reap."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_SECONDS)
        with contextlib.suppress(ValueError):
            _live.remove(self)

    def stop(self) -> None:
        """SIGTERM, a bounded wait, then SIGKILL."""
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_SECONDS)
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def log_text(self) -> str:
        """What the server wrote."""
        try:
            return (self.workdir / "redis.log").read_text(errors="replace")
        except OSError:
            return "(no log)"


def start_redis(*, port: int | None = None) -> RedisServer:
    """Start redis-server on `port` (default: a free one) and wait until it answers PING.

    Raises:
        RuntimeError: It exited before answering (its log is in the message).
        TimeoutError: It did not answer within START_SECONDS.
    """
    executable = redis_or_skip()
    for attempt in range(PORT_ATTEMPTS):
        chosen = port if port is not None else free_port()
        workdir = Path(tempfile.mkdtemp(prefix="tw-redis-"))
        log = workdir / "redis.log"
        command = [
            executable,
            "--bind", "127.0.0.1",
            "--port", str(chosen),
            "--save", "",
            "--appendonly", "no",
            "--dir", str(workdir),
            "--logfile", str(log),
            "--daemonize", "no",
            "--protected-mode", "yes",
        ]  # fmt: skip
        process = subprocess.Popen(
            command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
        server = RedisServer(process, chosen, workdir)
        _live.append(server)
        deadline = time.monotonic() + START_SECONDS
        while not _pings(chosen):
            if process.poll() is not None:
                text = server.log_text()
                server.stop()
                if "address already in use" in text.lower() and attempt + 1 < PORT_ATTEMPTS:
                    if port is not None:
                        time.sleep(0.5)  # the old server's socket is still closing
                    break
                raise RuntimeError(f"redis-server exited: {text[-2000:]}")
            if time.monotonic() > deadline:
                server.stop()
                raise TimeoutError(f"redis-server did not answer within {START_SECONDS} s")
            time.sleep(0.05)
        else:
            return server
    raise RuntimeError(f"redis-server could not bind a port in {PORT_ATTEMPTS} attempts")


def _stop_all() -> None:
    for server in list(_live):
        server.stop()


atexit.register(_stop_all)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for one test, stopped after it."""
    server = start_redis()
    try:
        yield server
    finally:
        server.stop()
