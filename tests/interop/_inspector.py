"""The official MCP Inspector CLI as the interop tests run it: where it is installed, the exit
codes it documents, and the skip (or, in CI, failure) when it is not there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests._node_tools import PREFIX, ROOT, tool_missing

INSPECTOR = PREFIX / "bin" / "mcp-inspector"
# Exit codes documented by the Inspector CLI.
EXIT_OK = 0
EXIT_TOOL_ERROR = 5


def not_installed_reason() -> str:
    """Why the Inspector is missing here, and how to get it."""
    install = "run scripts/install_node_tools.sh"
    if shutil.which("npm") is None:
        install = (
            "npm is not on PATH: install Node.js with npm (https://nodejs.org or your system's "
            "package manager), then run scripts/install_node_tools.sh"
        )
    return f"needs the MCP Inspector on Node 22, not installed at {INSPECTOR}; {install}"


def inspector_or_skip() -> Path:
    """The Inspector's launcher; the test skips without it (fails in CI)."""
    if not os.access(INSPECTOR, os.X_OK):
        tool_missing(not_installed_reason())
    return INSPECTOR


def run_inspector(
    inspector: Path, target: Sequence[str], *args: str
) -> subprocess.CompletedProcess[str]:
    """`mcp-inspector --cli TARGET ARGS` with JSON output, run from the repository root."""
    return subprocess.run(
        [str(inspector), "--cli", *target, *args, "--format", "json", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def first_json(done: subprocess.CompletedProcess[str], code: int = EXIT_OK) -> dict[str, Any]:
    """The first JSON line the Inspector printed, after checking it exited with `code`."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return dict(json.loads(lines[0]))
