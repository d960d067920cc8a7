"""The official MCP conformance harness against toolwire's fixture server (tests/conformance/server.py).

Four legs, each one harness run of every server scenario against a fresh fixture process on a
free port of 127.0.0.1:
- handshake: `@modelcontextprotocol/conformance` 0.1.16, `server --suite all`;
- handshake-alpha: 0.2.0-alpha.12, `server --suite all --spec-version 2025-11-25`;
- modern: 0.2.0-alpha.12, `server --suite all --spec-version 2026-07-28`;
- modern-stateless: the same against the fixture served with `--stateless`.
Each era has its own expected-failures file, which may list only scenarios about resources,
prompts and completion (not served yet, issue #15), each with a reason; `caching` too, whose
checks cover tools/list and four resource and prompt lists (its tools/list check must pass). The harness runs with
that baseline, so its exit status is 0 only when every other scenario passed without a failed
or warned check and every listed one still fails; the test also reads each scenario's
checks.json to say which check failed.

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
from tests.conformance.harness import (
    HARNESSES,
    HERE,
    ROOT,
    SuiteRun,
    expected_failures,
    free_port,
    launcher,
    run_server_suite,
    serving,
)

SERVER = HERE / "server.py"
NO_CACHE = ("-p", "no:cacheprovider")

# Scenarios that test resources, prompts or completion: the only ones a baseline may list.
_NOT_SERVED_YET = re.compile(r"resource|prompt|completion")
# Scenarios whose name does not say so, with the checks of theirs that must pass all the same
# (the ones that are not about resources, prompts or completion).
_PARTLY_ABOUT_THEM: dict[str, set[str]] = {
    "input-required-result-non-tool-request": set(),  # prompts/get answering input-required
    "caching": {"sep-2549-tools-list-caching-hints"},  # hints on tools/list and 4 unserved lists
}


@dataclass(frozen=True)
class Leg:
    """One harness run: which harness, with what arguments, against which server mode."""

    harness: str
    baseline: Path
    harness_args: tuple[str, ...] = ()
    server_args: tuple[str, ...] = ()


HANDSHAKE_BASELINE = HERE / "expected-failures.handshake.yml"
MODERN_BASELINE = HERE / "expected-failures.modern.yml"
AT_2025_11_25 = ("--spec-version", "2025-11-25")
AT_2026_07_28 = ("--spec-version", "2026-07-28")

LEGS = {
    "handshake": Leg("conformance", HANDSHAKE_BASELINE),
    # The alpha harness's own checks of the handshake era (a baseline entry it does not run
    # is ignored).
    "handshake-alpha": Leg("conformance-alpha", HANDSHAKE_BASELINE, AT_2025_11_25),
    "modern": Leg("conformance-alpha", MODERN_BASELINE, AT_2026_07_28),
    "modern-stateless": Leg("conformance-alpha", MODERN_BASELINE, AT_2026_07_28, ("--stateless",)),
}


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def _harness(name: str) -> Path:
    path = launcher(name)
    if not os.access(path, os.X_OK):
        reason = (
            f"needs the MCP conformance harness {HARNESSES[name]} on Node 22, not installed "
            f"at {path}; run scripts/install_node_tools.sh (it needs npm)"
        )
        if _in_ci():
            pytest.fail(f"{reason} (CI is set: CI must install it)")
        pytest.skip(reason)
    return path


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


@pytest.mark.parametrize("baseline", [HANDSHAKE_BASELINE, MODERN_BASELINE], ids=lambda p: p.stem)
def test_baseline_lists_only_resources_prompts_and_completion(baseline: Path) -> None:
    entries = expected_failures(baseline)
    assert entries, f"{baseline} lists nothing under server:"
    for name, reason in entries.items():
        assert _NOT_SERVED_YET.search(name) or name in _PARTLY_ABOUT_THEM, (
            f"{name} is listed as an expected failure, but only resource, prompt and "
            "completion scenarios may be"
        )
        assert reason, f"{name} has no reason (write it as a comment on its line)"


def _run_leg(leg: Leg, tmp_path: Path) -> tuple[SuiteRun, set[str], set[str]]:
    harness = _harness(leg.harness)
    port = free_port()
    command = [sys.executable, str(SERVER), "--port", str(port), *leg.server_args]
    with serving(command, port, tmp_path / "server.log"):
        run = run_server_suite(
            harness,
            f"http://127.0.0.1:{port}/mcp",
            tmp_path / "results",
            leg.baseline,
            *leg.harness_args,
        )
    return run, set(expected_failures(leg.baseline)), _listed_scenarios(harness, leg.harness_args)


@pytest.mark.timeout(400)
@pytest.mark.parametrize("leg", sorted(LEGS))
def test_every_scenario_passes_but_the_baseline(leg: str, tmp_path: Path) -> None:
    run, expected, listed = _run_leg(LEGS[leg], tmp_path)
    table = run.table(expected)
    assert set(run.scenarios) == listed, (
        f"the harness reported {sorted(run.scenarios)}, but lists {sorted(listed)}:\n"
        + run.output[-3000:]
    )
    # Judged as the harness judges against a baseline: a warned scenario counts as failed.
    unexpected = sorted(
        name for name, s in run.scenarios.items() if name not in expected and not s.clean
    )
    assert not unexpected, f"scenarios failed: {unexpected}\n{table}"
    stale = sorted(name for name in expected & set(run.scenarios) if run.scenarios[name].clean)
    assert not stale, f"listed as expected failures but passed (update the baseline): {stale}"
    for name, must_pass in _PARTLY_ABOUT_THEM.items():
        for check_id in must_pass if name in run.scenarios else ():
            status = run.scenarios[name].status_of(check_id)
            assert status == "SUCCESS", f"{name}: {check_id} is {status}\n{table}"
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
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["TW_TOOLS_PREFIX"] = str(tmp_path / "no-tools")

    def pytest_run(**extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", __file__, "-k", "passes_but", "-q", "-rs", *NO_CACHE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, **extra},
            check=False,
        )

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
