"""The Node tools some tests drive (the MCP Inspector, the conformance harnesses, the
reference servers): where scripts/install_node_tools.sh puts them, and what a test does
when one is missing.

A developer without Node gets a skip that says how to install the tool; CI (`CI=true`), which
must install every tool, gets a failure instead, so that a broken install cannot pass
unnoticed as a row of skips.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Empty counts as unset, as in scripts/install_node_tools.sh.
PREFIX = Path(os.environ.get("TW_TOOLS_PREFIX") or ROOT / ".tw-tools")
NO_CACHE = ("-p", "no:cacheprovider")


def in_ci() -> bool:
    """Whether this run is CI's, where every tool must be installed."""
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def tool_missing(reason: str) -> NoReturn:
    """Skip the test for want of a tool (`reason` says which and how to get it); fail it in CI."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set: CI must install it)")
    pytest.skip(reason)


def pytest_without_ci(
    env: dict[str, str], test_file: str, selection: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    """The tests of `test_file` matching `-k selection`, run by a child pytest with `env`
    (any `CI` taken out) plus `extra`: as a developer runs them, or CI with `CI="true"`."""
    developer = {name: value for name, value in env.items() if name != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", test_file, "-k", selection, "-q", "-rs", *NO_CACHE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**developer, **extra},
        check=False,
    )
