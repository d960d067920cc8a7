"""The official MCP conformance harness against toolwire's fixture server (tests/conformance/server.py).

Four legs, each one harness run of every server scenario against a fresh fixture process on a
free port of 127.0.0.1:
- handshake: `@modelcontextprotocol/conformance` 0.1.16, `server --suite all`;
- handshake-alpha: 0.2.0-alpha.12, `server --suite all --spec-version 2025-11-25`;
- modern: 0.2.0-alpha.12, `server --suite all --spec-version 2026-07-28`;
- modern-stateless: the same against the fixture served with `--stateless`.
There is no baseline of expected failures: every scenario the harness lists must run and
end without a failed or a warned check, and the harness must exit 0. The test reads each
scenario's checks.json to say which check failed.

The harness is HTTP-only (streamable HTTP client), so the legacy SSE transport has no leg.
The harness comes from scripts/install_node_tools.sh (Node 22 under .tw-tools/); without it
the tests skip, except under CI=true, where a missing harness is a failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests._listening import free_port
from tests._node_tools import pytest_without_ci
from tests.conformance.harness import (
    HERE,
    ROOT,
    SuiteRun,
    harness_or_skip,
    run_server_suite,
    serving,
)

SERVER = HERE / "server.py"


@dataclass(frozen=True)
class Leg:
    """One harness run: which harness, with what arguments, against which server mode."""

    harness: str
    harness_args: tuple[str, ...] = ()
    server_args: tuple[str, ...] = ()


AT_2025_11_25 = ("--spec-version", "2025-11-25")
AT_2026_07_28 = ("--spec-version", "2026-07-28")

LEGS = {
    "handshake": Leg("conformance"),
    # The alpha harness's own checks of the handshake era.
    "handshake-alpha": Leg("conformance-alpha", AT_2025_11_25),
    "modern": Leg("conformance-alpha", AT_2026_07_28),
    "modern-stateless": Leg("conformance-alpha", AT_2026_07_28, ("--stateless",)),
}


def _listed_scenarios(harness: Path, harness_args: tuple[str, ...]) -> set[str]:
    """The server scenarios `harness list` announces for these arguments."""
    done = subprocess.run(
        [str(harness), "list", "--server", *harness_args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(re.findall(r"^\s+-\s+(\S+)", done.stdout, flags=re.MULTILINE))


def _run_leg(leg: Leg, tmp_path: Path) -> tuple[SuiteRun, set[str]]:
    harness = harness_or_skip(leg.harness)
    port = free_port()
    command = [sys.executable, str(SERVER), "--port", str(port), *leg.server_args]
    with serving(command, port, tmp_path / "server.log"):
        run = run_server_suite(
            harness,
            f"http://127.0.0.1:{port}/mcp",
            tmp_path / "results",
            *leg.harness_args,
        )
    return run, _listed_scenarios(harness, leg.harness_args)


@pytest.mark.timeout(400)
@pytest.mark.parametrize("leg", sorted(LEGS))
def test_every_scenario_passes(leg: str, tmp_path: Path) -> None:
    run, listed = _run_leg(LEGS[leg], tmp_path)
    table = run.table()
    assert set(run.scenarios) == listed, (
        f"the harness reported {sorted(run.scenarios)}, but lists {sorted(listed)}:\n"
        + run.output[-3000:]
    )
    failed = sorted(name for name, scenario in run.scenarios.items() if not scenario.clean)
    assert not failed, f"scenarios failed: {failed}\n{table}"
    assert run.returncode == 0, (
        f"harness exit status {run.returncode}\n{table}\n{run.output[-3000:]}"
    )


def test_server_refuses_a_missing_port() -> None:
    done = subprocess.run(
        [sys.executable, str(SERVER), "--transport", "http"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--port must be a TCP port number" in done.stderr


def test_without_the_harness_the_legs_skip_and_fail_under_ci(tmp_path: Path) -> None:
    env = {**os.environ, "TW_TOOLS_PREFIX": str(tmp_path / "no-tools")}

    def pytest_run(**extra: str) -> subprocess.CompletedProcess[str]:
        return pytest_without_ci(env, __file__, "every_scenario_passes", **extra)

    developer = pytest_run()
    assert developer.returncode == 0, developer.stdout
    assert f"{len(LEGS)} skipped" in developer.stdout
    missing = tmp_path / "no-tools" / "bin" / "conformance"
    assert f"needs the MCP conformance harness 0.1.16 on Node 22, not installed at {missing}" in (
        developer.stdout
    )
    ci = pytest_run(CI="true")
    assert ci.returncode == 1, ci.stdout
    assert f"{len(LEGS)} failed" in ci.stdout
    assert "(CI is set: CI must install it)" in ci.stdout
