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
from tests._node_tools import pytest_without_ci
from tests.interop._inspector import EXIT_OK, EXIT_TOOL_ERROR, run_inspector
from tests.interop._support import ADD_INPUT_SCHEMA, DEFAULT_FAILURE, KITCHEN, KITCHEN_TOOLS, ROOT

TARGETS = {
    "script": [sys.executable, str(KITCHEN)],
    "cli": [sys.executable, "-m", "toolwire", "run", str(KITCHEN)],
}


def _call(
    inspector: Path,
    target: list[str],
    tool: str,
    *arguments: str,
    era_args: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`tools/call` of `tool` with `--tool-arg` `arguments` (`key=value` each)."""
    call = ["--method", "tools/call", "--tool-name", tool, "--tool-arg", *arguments]
    return run_inspector(inspector, target, *(era_args or []), *call)


def _result(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == EXIT_OK, (done.returncode, done.stdout, done.stderr)
    payload = json.loads(done.stdout)
    assert set(payload) == {"result"}, payload
    return dict(payload["result"])


@pytest.mark.parametrize("launcher", ["script", "cli"])
def test_tools_list(inspector_cli: Path, launcher: str) -> None:
    listed = _result(run_inspector(inspector_cli, TARGETS[launcher], "--method", "tools/list"))
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert set(tools) == KITCHEN_TOOLS
    assert tools["add"]["inputSchema"] == ADD_INPUT_SCHEMA
    assert tools["add"]["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
    assert tools["wipe"]["annotations"]["destructiveHint"] is True
    assert tools["profile"]["title"] == "Make a profile"


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_tools_call_with_tool_args(inspector_cli: Path, era: str) -> None:
    target = TARGETS["script"]
    era_args = ["--protocol-era", era] if era == "modern" else []
    added = _result(_call(inspector_cli, target, "add", "a=2", "b=40", era_args=era_args))
    assert added["content"] == [{"type": "text", "text": "42"}]
    assert added["structuredContent"] == {"result": 42}
    assert added["isError"] is False
    if era == "modern":
        assert added["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "kitchen"

    echoed = _result(_call(inspector_cli, target, "echo", "text=héllo wörld", era_args=era_args))
    assert echoed["content"] == [{"type": "text", "text": "héllo wörld"}]

    profile = _result(
        _call(
            inspector_cli,
            target,
            "profile",
            "name=Ada",
            "age=36",
            'tags=["x","y"]',
            era_args=era_args,
        )
    )
    assert profile["structuredContent"] == {"name": "Ada", "age": 36, "tags": ["x", "y"]}


def test_tool_error_and_unknown_tool_exit_codes(inspector_cli: Path) -> None:
    target = TARGETS["cli"]
    failed = _call(inspector_cli, target, "boom", "reason=x")
    assert failed.returncode == EXIT_TOOL_ERROR, (failed.stdout, failed.stderr)
    assert json.loads(failed.stdout)["result"] == {
        "content": [{"type": "text", "text": DEFAULT_FAILURE}],
        "isError": True,
    }
    assert '"tool_is_error"' in failed.stderr

    missing = run_inspector(inspector_cli, target, "--method", "tools/call", "--tool-name", "nope")
    assert missing.returncode == EXIT_TOOL_ERROR, (missing.stdout, missing.stderr)
    assert '"tool_not_found"' in missing.stderr


def _path_without_npm(tmp_path: Path) -> str:
    """A PATH holding links to every program on ours except npm and npx."""
    hidden = tmp_path / "bin"
    hidden.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        folder = Path(entry)
        if not folder.is_dir():
            continue
        for program in folder.iterdir():
            link = hidden / program.name
            if program.name not in {"npm", "npx"} and not link.exists():
                link.symlink_to(program)
    return str(hidden)


def test_without_npm_the_install_step_says_so_and_the_inspector_tests_skip(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PATH=_path_without_npm(tmp_path), TW_TOOLS_PREFIX=str(tmp_path / "tools"))
    install = subprocess.run(
        ["bash", str(ROOT / "scripts" / "install_node_tools.sh")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    # 3 = cannot be installed here (scripts/test.sh goes on); it was 127 (npm: not found).
    assert install.returncode == 3, install.stderr
    assert "npm is not on PATH" in install.stderr
    assert "install Node.js with npm" in install.stderr

    def pytestrun_inspector(**extra: str) -> subprocess.CompletedProcess[str]:
        return pytest_without_ci(env, __file__, "tools_list", **extra)

    developer = pytestrun_inspector()
    assert developer.returncode == 0, developer.stdout
    assert "2 skipped" in developer.stdout
    assert (
        f"needs the MCP Inspector on Node 22, not installed at {tmp_path / 'tools'}/bin/"
        "mcp-inspector; npm is not on PATH: install Node.js with npm"
    ) in developer.stdout
    ci = pytestrun_inspector(CI="true")
    assert ci.returncode == 1, ci.stdout
    assert "2 errors" in ci.stdout
    assert "(CI is set: CI must install it)" in ci.stdout
