"""A reader of stdout that goes away (`toolwire ... | head`): the command ends as `cat` or
`seq` would, killed by SIGPIPE (a shell's 141), silently, with its stdio server stopped;
never with a traceback or a "cannot connect".

Each case runs the real command in a real pipe: through bash into `head`, and with a pipe
whose read end is closed before the command starts (so no reader exists when it writes).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import ROOT
from tests.interop._served_http import served_http

BIG = Path(__file__).with_name("_big_server.py")
STDIO = f"{sys.executable} {BIG}"

pytest.importorskip("mcp")
if shutil.which("bash") is None or shutil.which("head") is None:
    pytest.skip("needs bash and head", allow_module_level=True)


def _environ(**extra: str) -> dict[str, str]:
    environ = dict(os.environ)
    paths = [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    environ["PYTHONPATH"] = os.pathsep.join([*paths, str(ROOT / "src")])
    environ.pop("TOOLWIRE_LOG_LEVEL", None)
    return {**environ, **extra}


def _into_head(args: list[str], lines: int, tmp_path: Path) -> tuple[str, str, list[int]]:
    """Run `toolwire ARGS | head -n LINES` in bash: (head's output, our stderr, statuses)."""
    command = shlex.join([sys.executable, "-m", "toolwire", *args])
    errors = tmp_path / "stderr.txt"
    script = f"{command} 2>{shlex.quote(str(errors))} | head -n {lines}; echo ${{PIPESTATUS[@]}}"
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=_environ(CLI_PID_FILE=str(tmp_path / "server.pid")),
        cwd=ROOT,
        check=True,
    )
    *shown, statuses = done.stdout.splitlines()
    return "\n".join(shown), errors.read_text(), [int(s) for s in statuses.split()]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_coreutils_end_like_this() -> None:
    """What the tests below hold toolwire to: `seq` into a `head` that stops early."""
    done = subprocess.run(
        ["bash", "-c", "seq 1 1000000 | head -n 1; echo ${PIPESTATUS[@]}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == "1\n141 0\n"
    assert done.stderr == ""


def test_tools_into_head_over_stdio(tmp_path: Path) -> None:
    shown, errors, statuses = _into_head(["tools", STDIO], 3, tmp_path)
    assert shown.splitlines() == [f"{STDIO}: 2 tools", "", "- echo: Echo the text."]
    assert errors == ""
    assert statuses == [128 + signal.SIGPIPE, 0]
    # The stdio server was stopped before the command ended.
    assert _gone(int((tmp_path / "server.pid").read_text()))


def test_call_into_head(tmp_path: Path) -> None:
    shown, errors, statuses = _into_head(["call", STDIO, "numbers"], 1, tmp_path)
    assert shown == "line 0"
    assert errors == ""
    assert statuses == [128 + signal.SIGPIPE, 0]
    assert _gone(int((tmp_path / "server.pid").read_text()))


def test_inspect_into_head(tmp_path: Path) -> None:
    shown, errors, statuses = _into_head(["inspect", str(BIG)], 1, tmp_path)
    assert shown == "big: 2 tools, 0 resources, 0 resource templates, 0 prompts"
    assert errors == ""
    assert statuses == [128 + signal.SIGPIPE, 0]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with served_http("http", "cli", target=BIG) as running:
        yield f"{running.base}/mcp"


def test_tools_into_head_over_http(http_url: str, tmp_path: Path) -> None:
    shown, errors, statuses = _into_head(["tools", http_url], 1, tmp_path)
    assert shown == f"{http_url}: 2 tools"
    assert errors == ""
    assert statuses == [128 + signal.SIGPIPE, 0]


def _with_no_reader(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run the command with stdout a pipe whose read end was closed before it started."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolwire", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=_environ(),
            cwd=ROOT,
        )
    finally:
        os.close(write_end)
    _, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, b"", stderr)


@pytest.mark.parametrize(
    "args",
    [
        ["tools", STDIO],
        ["tools", STDIO, "--json"],
        ["call", STDIO, "echo", "--args", '{"text": "hi"}'],
        ["call", STDIO, "echo", "--args", '{"text": "hi"}', "--json"],
        ["inspect", str(BIG)],
        ["install", "mcp-json", str(BIG)],
    ],
)
def test_a_small_write_to_a_closed_pipe_ends_by_sigpipe(args: list[str]) -> None:
    done = _with_no_reader(args)
    assert done.stderr.decode() == ""
    assert done.returncode == -signal.SIGPIPE


def test_help_into_a_closed_pipe_is_quiet() -> None:
    # argparse itself drops a failed write of the help text; nothing else may be said.
    done = _with_no_reader(["--help"])
    assert (done.returncode, done.stderr.decode()) == (0, "")


def test_a_closed_pipe_is_not_a_lost_server(http_url: str) -> None:
    done = _with_no_reader(["call", http_url, "echo", "--args", '{"text": "hi"}'])
    assert (done.returncode, done.stderr.decode()) == (-signal.SIGPIPE, "")
