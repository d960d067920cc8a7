"""`python -m toolwire_patch`: its help, and bad flags refused before serving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolwire_patch", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_help_names_every_flag() -> None:
    done = _run("--help")
    assert done.returncode == 0
    for flag in (
        "--root",
        "--transport",
        "--host",
        "--port",
        "--max-patch-bytes",
        "--max-files",
        "--max-file-bytes",
        "--max-seconds",
    ):
        assert flag in done.stdout


def test_bad_flags_are_refused(tmp_path: Path) -> None:
    done = _run("--root", str(tmp_path), "--max-files", "0")
    assert done.returncode != 0
    assert "toolwire-patch: --max-files must be positive, got 0" in done.stderr
    # nan passes every "<= 0" test and then bounds nothing.
    done = _run("--root", str(tmp_path), "--max-seconds", "nan")
    assert done.returncode != 0
    assert "toolwire-patch: --max-seconds must be positive, got nan" in done.stderr
    missing = tmp_path / "missing"
    done = _run("--root", str(missing))
    assert done.returncode != 0
    assert f"toolwire-patch: '{missing}': the root cannot be opened" in done.stderr
    assert done.stdout == ""
