"""The official MCP Inspector CLI (v2, `--cli`) against a toolwire server on stdio.

The Inspector runs on Node 22 installed by `scripts/install_node_tools.sh` under `.tw-tools/`
(or `$TW_TOOLS_PREFIX`); no npx, no global installs. Without it the tests skip, except in CI
(`CI=true`), where a missing tool is a failure: CI installs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.interop._support import ADD_INPUT_SCHEMA, DEFAULT_FAILURE, KITCHEN, KITCHEN_TOOLS, ROOT

PREFIX = Path(os.environ.get("TW_TOOLS_PREFIX", ROOT / ".tw-tools"))
INSPECTOR = PREFIX / "bin" / "mcp-inspector"
# Exit codes documented by the Inspector CLI.
EXIT_OK = 0
EXIT_TOOL_ERROR = 5

TARGETS = {
    "script": [sys.executable, str(KITCHEN)],
    "cli": [sys.executable, "-m", "toolwire", "run", str(KITCHEN)],
}


@pytest.fixture(scope="module")
def inspector() -> Path:
    if not os.access(INSPECTOR, os.X_OK):
        reason = f"MCP Inspector not installed at {INSPECTOR}: run scripts/install_node_tools.sh"
        if os.environ.get("CI", "").lower() in {"true", "1", "yes"}:
            pytest.fail(f"{reason} (CI=true: CI must install it)")
        pytest.skip(reason)
    return INSPECTOR


def _run(inspector: Path, target: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(inspector), "--cli", *target, *args, "--format", "json", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def _result(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == EXIT_OK, (done.returncode, done.stdout, done.stderr)
    payload = json.loads(done.stdout)
    assert set(payload) == {"result"}, payload
    return dict(payload["result"])


@pytest.mark.parametrize("launcher", ["script", "cli"])
def test_tools_list(inspector: Path, launcher: str) -> None:
    listed = _result(_run(inspector, TARGETS[launcher], "--method", "tools/list"))
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert set(tools) == KITCHEN_TOOLS
    assert tools["add"]["inputSchema"] == ADD_INPUT_SCHEMA
    assert tools["add"]["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
    assert tools["wipe"]["annotations"]["destructiveHint"] is True
    assert tools["profile"]["title"] == "Make a profile"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_tools_call_with_tool_args(inspector: Path, era: str) -> None:
    target = TARGETS["script"]
    era_args = ["--protocol-era", era] if era == "modern" else []
    added = _result(
        _run(
            inspector,
            target,
            *era_args,
            "--method",
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=2",
            "b=40",
        )
    )
    assert added["content"] == [{"type": "text", "text": "42"}]
    assert added["structuredContent"] == {"result": 42}
    assert added["isError"] is False
    if era == "modern":
        assert added["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "kitchen"

    echoed = _result(
        _run(
            inspector,
            target,
            *era_args,
            "--method",
            "tools/call",
            "--tool-name",
            "echo",
            "--tool-arg",
            "text=héllo wörld",
        )
    )
    assert echoed["content"] == [{"type": "text", "text": "héllo wörld"}]

    profile = _result(
        _run(
            inspector,
            target,
            *era_args,
            "--method",
            "tools/call",
            "--tool-name",
            "profile",
            "--tool-arg",
            "name=Ada",
            "age=36",
            'tags=["x","y"]',
        )
    )
    assert profile["structuredContent"] == {"name": "Ada", "age": 36, "tags": ["x", "y"]}


def test_tool_error_and_unknown_tool_exit_codes(inspector: Path) -> None:
    target = TARGETS["cli"]
    failed = _run(
        inspector, target, "--method", "tools/call", "--tool-name", "boom", "--tool-arg", "reason=x"
    )
    assert failed.returncode == EXIT_TOOL_ERROR, (failed.stdout, failed.stderr)
    assert json.loads(failed.stdout)["result"] == {
        "content": [{"type": "text", "text": DEFAULT_FAILURE}],
        "isError": True,
    }
    assert '"tool_is_error"' in failed.stderr

    missing = _run(inspector, target, "--method", "tools/call", "--tool-name", "nope")
    assert missing.returncode == EXIT_TOOL_ERROR, (missing.stdout, missing.stderr)
    assert '"tool_not_found"' in missing.stderr
