"""The official MCP Inspector CLI as the interop tests run it: where it is installed, the exit
codes it documents, and the skip (or, in CI, failure) when it is not there."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests._node_tools import PREFIX, tool_missing

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
