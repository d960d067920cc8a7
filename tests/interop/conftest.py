"""Fixtures shared by the interop tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.interop._inspector import inspector_or_skip


@pytest.fixture(scope="module")
def inspector_cli() -> Path:
    """The MCP Inspector's launcher (the test skips without it, fails in CI)."""
    return inspector_or_skip()
