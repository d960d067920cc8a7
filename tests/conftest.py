"""Test-wide setup: make `src/` and the repo root importable without an install, and keep the
tests that count toolwire-shell's processes machine-wide on one worker under pytest-xdist."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for entry in (ROOT / "src", ROOT):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

# These tests start toolwire-shell servers and then check that no process carrying a shell tag
# is left on the machine; run side by side, one would count the other's commands.
ONE_WORKER = ("tests/servers/shell/", "tests/client/test_shell_tools.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.nodeid.startswith(ONE_WORKER):
            item.add_marker(pytest.mark.xdist_group("toolwire-shell"))
