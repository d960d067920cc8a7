"""A server process under test, from its start until it accepts connections, and what a raw
socket learns from it: for tests that need a real listening process but none of the larger
harnesses (tests/scale, tests/transports/http/_live.py)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

START_SECONDS = 60.0
STOP_SECONDS = 30.0


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def accepts(port: int, timeout: float = 0.5) -> bool:
    """Whether something accepts a TCP connection on 127.0.0.1:`port` right now."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


@contextmanager
def listening(command: Sequence[str], port: int, **popen: Any) -> Iterator[subprocess.Popen[bytes]]:
    """Run `command`, which is to listen on 127.0.0.1:`port`; enter once it accepts a
    connection, stop it (SIGTERM, then SIGKILL) when the block ends.

    Raises:
        AssertionError: It exited first (its stderr is the message), or did not listen
            within START_SECONDS.
    """
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            if process.poll() is not None:
                raise AssertionError(process.stderr.read().decode())  # type: ignore[union-attr]
            if accepts(port, timeout=1):
                break
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield process
    finally:
        process.terminate()  # a --workers supervisor stops its workers too
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def closed_by_server(sock: socket.socket, read_seconds: float) -> bool:
    """Whether the server closed the connection (EOF or reset) before a read waited
    `read_seconds`; any bytes it still sends on the way are read past."""
    sock.settimeout(read_seconds)
    try:
        for _ in range(1000):  # bounded: each read waits at most read_seconds
            if sock.recv(65536) == b"":
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return False
