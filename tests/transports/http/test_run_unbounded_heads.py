"""The size of a request head: bounded by uvicorn's default parser (h11, 16 KiB), unbounded with
httptools, which uvicorn picks whenever it can import it. toolwire warns at start when it serves
a non-loopback address with httptools (`unbounded_heads_warning` in transports/http/run.py);
a huge head sent to the default parser is refused early and costs the server no memory.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from tests._node_tools import PREFIX

from toolwire.transports.http.run import unbounded_heads_warning

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
SPEEDUPS = PREFIX / "speedups"
SERVING = re.compile(r"toolwire: serving MCP at http://\S+:(\d+)/mcp")
APP = """
from toolwire import Server

server = Server("heads")


@server.tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b
"""


def _app(app: object) -> None:
    """A placeholder ASGI app: the configs below are never served."""


@pytest.mark.parametrize(
    ("host", "http", "warned"),
    [
        ("0.0.0.0", "httptools", True),
        ("192.168.1.20", "httptools", True),
        ("::", "httptools", True),
        ("example.internal", "httptools", True),
        ("127.0.0.1", "httptools", False),
        ("127.8.9.10", "httptools", False),
        ("::1", "httptools", False),
        ("localhost", "httptools", False),
        ("0.0.0.0", "h11", False),
    ],
)
def test_the_warning_names_the_host_and_the_way_out(host: str, http: str, warned: bool) -> None:
    warning = unbounded_heads_warning(uvicorn.Config(_app, host=host, http=http))
    if not warned:
        assert warning is None
        return
    assert warning is not None
    assert f"serving {host} with uvicorn's httptools parser" in warning
    assert "no bound on the size of a request head" in warning
    assert "nginx" in warning and "docs/deployment.md" in warning


def test_auto_warns_exactly_when_httptools_is_importable() -> None:
    warning = unbounded_heads_warning(uvicorn.Config(_app, host="0.0.0.0"))
    assert (warning is not None) == (importlib.util.find_spec("httptools") is not None)


def test_a_unix_socket_is_not_warned_about(tmp_path: Path) -> None:
    config = uvicorn.Config(_app, uds=str(tmp_path / "mcp.sock"), http="httptools")
    assert unbounded_heads_warning(config) is None


@contextmanager
def _serving(tmp_path: Path, *flags: str, with_httptools: bool) -> Iterator[tuple[int, int, Path]]:
    """`toolwire run --host 0.0.0.0 --port 0 *flags`; yields its port, pid and stderr file."""
    app = tmp_path / "heads.py"
    app.write_text(APP)
    paths = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    if with_httptools:
        paths.insert(0, str(SPEEDUPS))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
    stderr = tmp_path / "stderr.txt"
    command = [sys.executable, "-m", "toolwire", "run", str(app), "--transport", "http"]
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--host", "0.0.0.0", "--port", "0", *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env=env,
        )
    try:
        deadline = time.monotonic() + 60
        while not (found := SERVING.search(stderr.read_text())):
            assert process.poll() is None, stderr.read_text()
            assert time.monotonic() < deadline, "the server never said where it serves"
            time.sleep(0.05)
        yield int(found.group(1)), process.pid, stderr
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def _send_huge_head(port: int, mib: int) -> tuple[int, bytes]:
    """Send a POST whose one header is `mib` MiB; how many bytes went before the server
    stopped taking them, and what it answered."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ")
        chunk = b"a" * 65536
        try:
            for _ in range(mib * 16):
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:  # refused and closed: the rest has nowhere to go
            pass
        answer = b""
        try:
            while part := sock.recv(65536):
                answer += part
        except OSError:
            pass
    return sent, answer


@pytest.mark.skipif(
    importlib.util.find_spec("httptools") is not None,
    reason="httptools is importable here, so uvicorn does not parse with h11",
)
def test_with_the_default_parser_a_huge_head_is_refused_and_costs_nothing(
    tmp_path: Path,
) -> None:
    with _serving(tmp_path, with_httptools=False) as (port, pid, stderr):
        before = _rss_mib(pid)
        sent, answer = _send_huge_head(port, 64)
        after = _rss_mib(pid)
    assert sent < 8 * 2**20, f"the server took {sent} bytes of one header"
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert after - before < 16, (before, after)
    assert "httptools" not in stderr.read_text()  # nothing to warn about


@pytest.mark.skipif(
    not (SPEEDUPS / "httptools").is_dir(),
    reason=f"no httptools in {SPEEDUPS} (pip install --target {SPEEDUPS} uvloop httptools)",
)
@pytest.mark.parametrize("flags", [(), ("--workers", "2")], ids=["one process", "workers"])
def test_with_httptools_on_an_open_address_toolwire_warns_once(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    with _serving(tmp_path, *flags, with_httptools=True) as (_port, _pid, stderr):
        said = stderr.read_text()
    lines = said.splitlines()
    warnings = [line for line in lines if "httptools parser" in line]
    assert len(warnings) == 1, said
    assert "serving 0.0.0.0 with uvicorn's httptools parser" in warnings[0]
    assert lines.index(warnings[0]) < next(
        i for i, line in enumerate(lines) if SERVING.search(line)
    ), said
