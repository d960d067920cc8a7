"""The `toolwire` command: bad targets, inspect, install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _toolwire(
    *args: str, home: Path | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run(  # noqa: PLW1510 - the exit code is asserted
        [sys.executable, "-m", "toolwire", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing_file.py", "no such file: missing_file.py"),
        ("no_such_module_xyz", "no module named 'no_such_module_xyz'"),
        ("servers.demo.tour", "defines no toolwire Server"),
        ("servers.demo.server:nope", "has no Server named 'nope'"),
    ],
)
def test_bad_targets_exit_2_with_a_clear_message(target: str, message: str) -> None:
    result = _toolwire("inspect", target)
    assert result.returncode == 2
    assert message in result.stderr


def test_import_error_shows_its_traceback(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import toolwire\nraise RuntimeError('boom at import')\n")
    result = _toolwire("run", str(broken))
    assert result.returncode == 2
    assert "Traceback" in result.stderr and "boom at import" in result.stderr
    assert result.stdout == ""


def test_inspect_lists_tools_and_schema_problems() -> None:
    result = _toolwire("inspect", "servers.demo.server", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    tools = {tool["name"]: tool for tool in data["tools"]}
    assert tools["delete_note"]["annotations"]["destructiveHint"] is True
    assert tools["shout"]["problems"]["openai-strict"] == []
    assert any("additionalProperties" in p for p in tools["shout"]["problems"]["gemini"])
    human = _toolwire("inspect", "servers/demo/server.py")
    assert "- shout: Return the text in upper case." in human.stdout
    assert "warning [gemini]" in human.stdout


def test_install_merges_keeps_a_backup_and_never_drops_servers(tmp_path: Path) -> None:
    config = tmp_path / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "keep": 1}))
    result = _toolwire("install", "cursor", "servers/demo/server.py", "--env", "A=1", home=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(config.read_text())
    assert data["keep"] == 1
    assert data["mcpServers"]["other"] == {"command": "x"}
    entry = data["mcpServers"]["toolwire-demo"]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", "toolwire", "run", str(ROOT / "servers/demo/server.py")]
    assert entry["env"] == {"A": "1"}
    backups = list(config.parent.glob("mcp.json.*.bak"))
    assert len(backups) == 1 and "toolwire-demo" not in backups[0].read_text()


def test_install_refuses_invalid_json_and_dry_run_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    config.write_text("{broken")
    result = _toolwire("install", "claude-code", "servers/demo/server.py", home=tmp_path)
    assert result.returncode == 2 and "is not valid JSON" in result.stderr
    assert config.read_text() == "{broken"
    config.unlink()
    dry = _toolwire("install", "claude-desktop", "servers.demo.server", "--dry-run", home=tmp_path)
    assert dry.returncode == 0 and "would write" in dry.stdout
    assert not (tmp_path / ".config").exists()


def test_installed_entry_actually_starts_the_server(tmp_path: Path) -> None:
    printed = _toolwire("install", "mcp-json", "servers/demo/server.py", home=tmp_path)
    entry = json.loads(printed.stdout)["mcpServers"]["toolwire-demo"]
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t"}}}\n'
    proc = subprocess.run(  # noqa: PLW1510 - the exit code is asserted
        [entry["command"], *entry["args"]],
        input=init,
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert json.loads(proc.stdout)["result"]["serverInfo"]["name"] == "toolwire-demo"
