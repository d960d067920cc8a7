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
