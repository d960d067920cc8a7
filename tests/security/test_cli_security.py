"""`toolwire run --transport http` as a real process: the Host check and its log line on
stderr, `--allowed-host`, and bearer auth from the served module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
from tests._jsonrpc import initialize_request
from tests._listening import free_port
from tests.cli._cli import ROOT, toolwire

SERVER = Path(__file__).resolve().parent / "servers" / "secured.py"
INIT = initialize_request(0, client="raw")
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@contextmanager
def running(*flags: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    environ.pop("TOOLWIRE_LOG_LEVEL", None)
    command = [sys.executable, "-m", "toolwire", "run", str(SERVER), "--transport", "http"]
    proc = subprocess.Popen(
        [*command, "--port", str(port), *flags],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=environ,
        cwd=ROOT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the server did not start"
            try:
                httpx2.get(base + "/.well-known/oauth-protected-resource", timeout=1)
                break
            except httpx2.TransportError:
                time.sleep(0.05)
        yield base, proc
    finally:
        proc.terminate()
        proc.wait(10)


def post(base: str, **headers: str) -> httpx2.Response:
    return httpx2.post(
        base + "/mcp", content=json.dumps(INIT), headers={**HEADERS, **headers}, timeout=10
    )


def test_a_foreign_host_is_refused_and_the_log_says_what_to_pass() -> None:
    with running() as (base, proc):
        refused = post(base, host="mcp.example.com", authorization="Bearer alice")
        no_token = post(base)
        ok = post(base, authorization="Bearer alice")
        proc.terminate()
        stderr = proc.communicate(timeout=10)[1]
    assert refused.status_code == 421
    assert no_token.status_code == 401
    assert ok.status_code == 200
    assert (
        "WARNING toolwire: Host 'mcp.example.com' is not allowed; pass "
        "allowed_hosts=['mcp.example.com'] to http_app()/run(), or --allowed-host "
        "mcp.example.com on the CLI"
    ) in stderr.splitlines()


def test_allowed_host_and_origin_flags() -> None:
    flags = ("--allowed-host", "mcp.example.com", "--allowed-origin", "https://app.example.com")
    with running(*flags) as (base, _):
        named = post(
            base,
            host="mcp.example.com",
            origin="https://app.example.com",
            authorization="Bearer alice",
        )
        loopback = post(base, authorization="Bearer alice")
    assert named.status_code == 200
    assert loopback.status_code == 421


def test_the_flags_need_an_http_transport() -> None:
    done = toolwire("run", str(SERVER), "--allowed-host", "x.example")
    assert done.returncode == 2
    assert "--allowed-host/--allowed-origin need --transport http or sse" in done.stderr
