"""`toolwire run --header-timeout SECONDS`: a real `toolwire run` process (http, sse, and
http with --workers) closes a connection that sends nothing once the deadline set on the
command line has passed (well before the 30 s default), and still answers requests; bad
values and a stdio server are refused with exit status 2, naming the flag."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from _cli import ROOT, toolwire
from tests._listening import closed_by_server, free_port, listening

pytestmark = pytest.mark.timeout(180)

READ_SECONDS = 15.0  # half the default deadline: only the flag's deadline can close in time

APP = """
from toolwire import Server

server = Server("heads")


@server.tool
def ping() -> str:
    '''Answer at once.'''
    return "pong"
"""


@contextmanager
def _running(script: Path, *options: str) -> Iterator[int]:
    """`toolwire run script --port P options...` until the block ends; yields P once it
    accepts connections."""
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "toolwire", "run", str(script), "--port", str(port)]
    with listening([*command, *options], port, env=env):
        yield port


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("heads") / "app.py"
    path.write_text(APP)
    return path


@pytest.mark.parametrize(
    "options",
    [
        ("--transport", "http"),
        ("--transport", "sse"),
        ("--transport", "http", "--stateless", "--json-response", "--workers", "2"),
    ],
    ids=["http", "sse", "http-workers"],
)
def test_a_silent_connection_is_closed_after_the_flags_deadline(
    script: Path, options: tuple[str, ...]
) -> None:
    with _running(script, *options, "--header-timeout", "0.5") as port:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            assert closed_by_server(sock, READ_SECONDS)
        if "http" in options:  # a request whose head comes at once is served as ever
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            headers = {"accept": "application/json, text/event-stream"}
            reply = httpx2.post(f"http://127.0.0.1:{port}/mcp", json=ping, headers=headers)
            assert reply.status_code == 200


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "must be 0 (no limit) or more seconds, not -1"),
        ("soon", "not a number of seconds: 'soon'"),
        ("nan", "must be 0 (no limit) or more seconds, not nan"),
        ("inf", "must be 0 (no limit) or more seconds, not inf"),
    ],
)
def test_bad_values_exit_2_naming_the_flag(value: str, message: str) -> None:
    result = toolwire("run", "servers.demo", "--transport", "http", f"--header-timeout={value}")
    assert result.returncode == 2
    assert f"argument --header-timeout: {message}" in result.stderr


def test_stdio_has_no_header_timeout() -> None:
    result = toolwire("run", "servers.demo", "--header-timeout", "5")
    assert result.returncode == 2
    assert "toolwire run: --header-timeout needs --transport http or sse" in result.stderr


@pytest.mark.parametrize(
    ("argv", "passed"),
    [
        ([], {}),  # Server.run's default (30 s) holds
        (["--header-timeout", "0"], {"header_timeout": None}),  # no limit
        (["--header-timeout", "2.5"], {"header_timeout": 2.5}),
    ],
)
def test_what_server_run_is_given(argv: list[str], passed: dict[str, object]) -> None:
    from toolwire.cli import _parse
    from toolwire.cli.run import _head_deadline

    args: argparse.Namespace = _parse(["run", "x.py", "--transport", "http", *argv])
    assert _head_deadline(args) == passed


def test_the_help_says_how_to_turn_it_off() -> None:
    result = toolwire("run", "--help")
    assert "--header-timeout SECONDS" in result.stdout
    assert "0: no limit" in result.stdout
