"""The `toolwire-files` command line: bad input is refused with status 2 and a message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

LAUNCH = Path(__file__).with_name("_launch.py")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LAUNCH), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give at least one directory"),
        (("/definitely/not/here",), "'/definitely/not/here': the root cannot be opened"),
        (("{tmp}", "--max-read-bytes", "0"), "--max-read-bytes must be positive"),
        (("{tmp}", "--client-roots", "widen"), "invalid choice: 'widen'"),
        (("{tmp}/file.txt",), "the root cannot be opened (Not a directory)"),
    ],
)
def test_bad_command_lines(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    (tmp_path / "file.txt").write_text("x")
    done = _run(*(arg.format(tmp=tmp_path) for arg in args))
    assert done.returncode == 2, done
    assert message in done.stderr
    assert done.stdout == ""


def test_help_names_the_flags() -> None:
    done = _run("--help")
    assert done.returncode == 0
    for flag in ("--read-only", "--read-only-dir", "--deny", "--client-roots", "--transport"):
        assert flag in done.stdout


@pytest.mark.parametrize(("host", "warned"), [("0.0.0.0", True), ("127.0.0.1", False)])
def test_http_on_a_non_loopback_address_warns_that_nothing_authenticates(
    tmp_path: Path, host: str, warned: bool
) -> None:
    from tests._listening import free_port, listening

    port = free_port()
    command = [sys.executable, str(LAUNCH), str(tmp_path), "--transport", "http"]
    with listening([*command, "--host", host, "--port", str(port)], port) as process:
        pass
    said = process.stderr.read().decode() if process.stderr else ""  # type: ignore[union-attr]
    warning = f"toolwire-files: warning: {host}:{port} is served over HTTP without authentication"
    assert (warning in said) is warned, said
    if warned:
        assert f"can read and change the files in {tmp_path}" in said
