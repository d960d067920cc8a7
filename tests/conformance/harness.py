"""Running the official conformance harness against a server process, and reading its verdicts.

The harness (`@modelcontextprotocol/conformance`, installed by scripts/install_node_tools.sh)
is an MCP client that speaks streamable HTTP only; it writes one `checks.json` per scenario
under its output directory (`server-<scenario>-<timestamp>/checks.json`). A scenario fails
when one of its checks has status FAILURE; WARNING and INFO never fail it, exactly as the
harness's own exit status counts them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests._listening import accepts
from tests._node_tools import PREFIX, tool_missing

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

# launcher name in $PREFIX/bin -> the harness version it runs
HARNESSES = {"conformance": "0.1.16", "conformance-alpha": "0.2.0-alpha.12"}

# Bounds on everything that waits.
SERVER_START_TIMEOUT = 30.0
SUITE_TIMEOUT = 300.0

_RUN_DIR = re.compile(r"^server-(?P<name>.+)-\d{4}-\d\d-\d\dT[0-9-]+Z$")


def launcher(name: str) -> Path:
    """The path of a harness launcher installed under the Node tools prefix."""
    return PREFIX / "bin" / name


def harness_or_skip(name: str) -> Path:
    """The launcher of harness `name`; the test skips without it (fails in CI)."""
    path = launcher(name)
    if not os.access(path, os.X_OK):
        tool_missing(
            f"needs the MCP conformance harness {HARNESSES[name]} on Node 22, not installed "
            f"at {path}; run scripts/install_node_tools.sh (it needs npm)"
        )
    return path


@contextmanager
def serving(command: Sequence[str], port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process until the block ends; it is up once `port` accepts connections.

    Its stdout and stderr go to `log`, which error messages quote when it does not start.
    """
    with log.open("wb") as sink:
        process = subprocess.Popen(
            list(command), cwd=ROOT, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink
        )
        try:
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while not accepts(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    state = (
                        f"exited with status {process.returncode}"
                        if process.returncode is not None
                        else f"did not listen within {SERVER_START_TIMEOUT:.0f} s"
                    )
                    raise RuntimeError(
                        f"server {list(command)} {state} on port {port}; its output:\n"
                        + log.read_text(errors="replace")[-4000:]
                    )
                time.sleep(0.1)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@dataclass
class Scenario:
    """The checks of one scenario, counted by status."""

    name: str
    checks: list[dict[str, Any]]

    def count(self, status: str) -> int:
        """How many checks ended with `status` (SUCCESS, FAILURE, WARNING, ...)."""
        return sum(1 for check in self.checks if check.get("status") == status)

    @property
    def passed(self) -> bool:
        """No FAILURE check (how the harness judges a run without a baseline)."""
        return self.count("FAILURE") == 0

    @property
    def clean(self) -> bool:
        """No FAILURE and no WARNING check: the bar every scenario must clear here (the
        stricter of the harness's two judgements: against a baseline it counts a warned
        scenario as failed)."""
        return self.passed and self.count("WARNING") == 0

    def status_of(self, check_id: str) -> str | None:
        """The status of the check with this id (the worst, if it ran more than once)."""
        order = ("FAILURE", "WARNING", "SUCCESS", "INFO", "SKIPPED")
        found = [c.get("status") for c in self.checks if c.get("id") == check_id]
        return min(found, key=lambda st: order.index(st) if st in order else 0, default=None)

    def problems(self) -> list[str]:
        """One line per failed or warned check: its id and what went wrong."""
        return [
            f"{check.get('status')} {check.get('id')}: "
            f"{check.get('errorMessage') or check.get('description')}"
            for check in self.checks
            if check.get("status") in ("FAILURE", "WARNING")
        ]


@dataclass
class SuiteRun:
    """One harness run: its exit status, its output, and every scenario it reported."""

    returncode: int
    output: str
    scenarios: dict[str, Scenario] = field(default_factory=dict)

    def table(self) -> str:
        """A readable per-scenario table (for assertion messages and reports)."""
        lines = []
        for name in sorted(self.scenarios):
            scenario = self.scenarios[name]
            if scenario.clean:
                verdict = "pass"
            else:
                verdict = "FAIL" if not scenario.passed else "FAIL (warnings)"
            lines.append(f"{verdict:>15}  {name}")
            if verdict.startswith("FAIL"):
                lines.extend(f"{'':>17}{problem}" for problem in scenario.problems())
        return "\n".join(lines)


def read_results(out_dir: Path) -> dict[str, Scenario]:
    """Every scenario's checks from a harness output directory."""
    scenarios: dict[str, Scenario] = {}
    for checks_file in sorted(out_dir.glob("server-*/checks.json")):
        match = _RUN_DIR.match(checks_file.parent.name)
        if match is None:
            raise ValueError(f"unexpected harness result folder {checks_file.parent}")
        checks = json.loads(checks_file.read_text())
        if not isinstance(checks, list):
            raise ValueError(f"{checks_file} does not hold a list of checks")
        scenarios[match["name"]] = Scenario(match["name"], checks)
    return scenarios


def run_server_suite(harness: Path, url: str, out_dir: Path, *extra: str) -> SuiteRun:
    """`harness server --suite all` against `url` (no baseline: nothing may fail)."""
    command = [str(harness), "server", "--url", url, "--suite", "all", "-o", str(out_dir), *extra]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"},
    )
    return SuiteRun(done.returncode, done.stdout + done.stderr, read_results(out_dir))
