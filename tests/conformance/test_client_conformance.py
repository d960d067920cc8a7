"""The official conformance harness's CLIENT scenarios, with toolwire's adapter as the client.

`tests/conformance/client.py` is the program under test: the harness starts a mock server
per scenario and runs it. Three legs, one scenario per harness run (solo runs: the parallel
suite starves sse-retry's 500 ms reconnect window on a loaded machine):
- handshake: `@modelcontextprotocol/conformance` 0.1.16;
- handshake-alpha: 0.2.0-alpha.12, `--spec-version 2025-11-25`;
- modern: 0.2.0-alpha.12, `--spec-version 2026-07-28`: tools_call, request-metadata and
  sep-2322-client-request-state (python-sdk's own client fails the last two), plus the three
  handshake-era scenarios the harness retired at 2026-07-28, run with `--force` (their mocks
  still speak the handshake, which the adapter falls back to);
- modern-pinned: the three 2026-07-28 scenarios again with the adapter pinned to that era
  (`protocol_mode="modern"`, through TOOLWIRE_CONFORMANCE_MODE): no discovery, so
  request-metadata's refused first request (-32022) must be retried by the adapter itself.
A scenario passes when the harness exits 0 and its checks.json has no FAILURE and no
WARNING check (the harness's own rule for clients) and at least one SUCCESS.

The auth scenarios are not run: OAuth flows belong to the adapter's HTTP auth options
(issue #14's client half), not to this harness leg.

The harness comes from scripts/install_node_tools.sh (Node 22 under .tw-tools/); without it
the tests skip, except under CI=true, where a missing harness is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conformance.harness import HERE, ROOT, Scenario, harness_or_skip

CLIENT = HERE / "client.py"
SCENARIO_TIMEOUT_MS = 60_000
RUN_TIMEOUT = 120.0  # seconds for one harness run, the client's 60 s included
HANDSHAKE = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")
RETIRED_AT_MODERN = ("initialize", "elicitation-sep1034-client-defaults", "sse-retry")
TIMING_SENSITIVE = {"sse-retry"}  # its reconnect must land in 500 ms +- 200 ms


@dataclass(frozen=True)
class Run:
    """One harness run of one client scenario."""

    harness: str
    scenario: str
    args: tuple[str, ...] = ()
    mode: str = "auto"

    @property
    def id(self) -> str:
        spec = "".join(self.args).replace("--spec-version", "@")
        pinned = "" if self.mode == "auto" else f"-{self.mode}"
        return f"{self.harness}{spec}{pinned}-{self.scenario}"


AT_2025_11_25 = ("--spec-version", "2025-11-25")
AT_2026_07_28 = ("--spec-version", "2026-07-28")

RUNS = [
    *(Run("conformance", name) for name in HANDSHAKE),
    *(Run("conformance-alpha", name, AT_2025_11_25) for name in HANDSHAKE),
    *(
        Run("conformance-alpha", name, AT_2026_07_28)
        for name in ("tools_call", "request-metadata", "sep-2322-client-request-state")
    ),
    *(Run("conformance-alpha", name, (*AT_2026_07_28, "--force")) for name in RETIRED_AT_MODERN),
    *(
        Run("conformance-alpha", name, AT_2026_07_28, mode="modern")
        for name in ("tools_call", "request-metadata", "sep-2322-client-request-state")
    ),
]


def _run_once(run: Run, out_dir: Path) -> tuple[subprocess.CompletedProcess[str], Scenario]:
    harness = harness_or_skip(run.harness)
    # The harness splits the command on spaces; neither path holds one here.
    command = f"{sys.executable} {CLIENT}"
    assert " " not in sys.executable and " " not in str(CLIENT), command
    done = subprocess.run(
        [
            str(harness),
            "client",
            "--command",
            command,
            "--scenario",
            run.scenario,
            "--timeout",
            str(SCENARIO_TIMEOUT_MS),
            "-o",
            str(out_dir),
            *run.args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
        env={
            **os.environ,
            "NO_COLOR": "1",
            "FORCE_COLOR": "0",
            "TOOLWIRE_CONFORMANCE_MODE": run.mode,
        },
    )
    found = sorted(out_dir.glob(f"{run.scenario}-*/checks.json"))
    assert found, f"no checks.json for {run.scenario}:\n{done.stdout}\n{done.stderr}"
    return done, Scenario(run.scenario, json.loads(found[-1].read_text()))


def _client_output(out_dir: Path, scenario: str) -> str:
    runs = sorted(out_dir.glob(f"{scenario}-*"))
    if not runs:
        return ""
    stderr = runs[-1] / "stderr.txt"
    return stderr.read_text(errors="replace")[-3000:] if stderr.exists() else ""


@pytest.mark.timeout(300)
@pytest.mark.parametrize("run", RUNS, ids=lambda run: run.id)
def test_client_scenario_passes(run: Run, tmp_path: Path) -> None:
    done, scenario = _run_once(run, tmp_path / "first")
    if run.scenario in TIMING_SENSITIVE and scenario.passed and not scenario.clean:
        # Only a warning (the reconnect landed outside its window on a busy machine): the
        # harness's CI practice is one solo re-run; a real failure is never retried.
        done, scenario = _run_once(run, tmp_path / "again")
    problems = "\n".join(scenario.problems())
    output = _client_output(tmp_path, run.scenario)
    assert scenario.clean, f"{run.id}:\n{problems}\nclient stderr:\n{output}"
    assert scenario.count("SUCCESS") >= 1, f"{run.id}: no check succeeded\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{run.id}: harness exit {done.returncode}\n{done.stderr[-3000:]}"


def test_client_refuses_an_unknown_scenario() -> None:
    done = subprocess.run(
        [sys.executable, str(CLIENT), "http://127.0.0.1:9/mcp"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "MCP_CONFORMANCE_SCENARIO": "auth/metadata-default"},
    )
    assert done.returncode == 2
    assert "got scenario 'auth/metadata-default'" in done.stderr
