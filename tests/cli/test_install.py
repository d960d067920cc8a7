"""`toolwire install`: this interpreter, merged configs, backups, refusals, dry runs.

Every test points HOME (and XDG_CONFIG_HOME) at a temporary directory: the real home is
never read or written.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _cli import ROOT, toolwire

DEMO_FILE = str(ROOT / "servers/demo/server.py")
INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"t"}}}\n'
)


def _backups(config: Path) -> list[Path]:
    return sorted(config.parent.glob(f"{config.name}.*.bak"))


@pytest.mark.parametrize(
    ("client", "relative"),
    [
        ("claude-desktop", ".config/Claude/claude_desktop_config.json"),
        ("claude-code", ".claude.json"),
        ("cursor", ".cursor/mcp.json"),
    ],
)
def test_each_client_gets_an_entry_that_runs_this_interpreter(
    tmp_path: Path, client: str, relative: str
) -> None:
    result = toolwire("install", client, "servers/demo/server.py", home=tmp_path)
    assert result.returncode == 0, result.stderr
    config = tmp_path / relative
    data = json.loads(config.read_text(encoding="utf-8"))
    entry = data["mcpServers"]["toolwire-demo"]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", "toolwire", "run", DEMO_FILE]
    assert "uv" not in json.dumps(entry)
    if client == "claude-code":
        assert entry["type"] == "stdio"
    else:
        assert "type" not in entry
    assert f"added server 'toolwire-demo' in {config}" in result.stdout
    assert '"command": ' in result.stdout  # it says what it wrote
    assert _backups(config) == []  # nothing existed, nothing to back up
    assert list(tmp_path.rglob("*.tmp")) == []


def test_xdg_config_home_is_honoured_for_claude_desktop_on_linux(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("the Linux location")
    xdg = tmp_path / "xdg"
    result = toolwire(
        "install", "claude-desktop", DEMO_FILE, home=tmp_path, XDG_CONFIG_HOME=str(xdg)
    )
    assert result.returncode == 0, result.stderr
    assert (xdg / "Claude/claude_desktop_config.json").is_file()


def test_merge_keeps_other_servers_and_keys_and_backs_up_each_time(tmp_path: Path) -> None:
    config = tmp_path / ".cursor" / "mcp.json"
    config.parent.mkdir()
    original = {"mcpServers": {"other": {"command": "x", "args": ["é"]}}, "keep": [1, 2]}
    config.write_text(json.dumps(original), encoding="utf-8")
    first = toolwire(
        "install", "cursor", DEMO_FILE, "--env", "A=1", "--env", "B=x=y", home=tmp_path
    )
    assert first.returncode == 0, first.stderr
    assert "(1 other server(s) kept: other)" in first.stdout
    data = json.loads(config.read_text(encoding="utf-8"))
    assert data["keep"] == [1, 2]
    assert data["mcpServers"]["other"] == {"command": "x", "args": ["é"]}
    assert data["mcpServers"]["toolwire-demo"]["env"] == {"A": "1", "B": "x=y"}
    (backup,) = _backups(config)
    assert json.loads(backup.read_text(encoding="utf-8")) == original
    assert f"backup of the previous file: {backup}" in first.stdout

    second = toolwire("install", "cursor", DEMO_FILE, "--name", "demo2", home=tmp_path)
    third = toolwire("install", "cursor", DEMO_FILE, "--name", "demo2", home=tmp_path)
    assert second.returncode == third.returncode == 0
    assert "added server 'demo2'" in second.stdout and "replaced server 'demo2'" in third.stdout
    data = json.loads(config.read_text(encoding="utf-8"))
    assert sorted(data["mcpServers"]) == ["demo2", "other", "toolwire-demo"]
    backups = _backups(config)
    assert len(backups) == 3  # one per write, even within the same second
    contents = [json.loads(backup.read_text(encoding="utf-8")) for backup in backups]
    assert contents.count(original) == 1  # the pristine file survived the later installs


def test_invalid_json_is_refused_and_left_untouched(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    config.write_text("{broken", encoding="utf-8")
    result = toolwire("install", "claude-code", DEMO_FILE, home=tmp_path)
    assert result.returncode == 2
    assert "is not valid JSON" in result.stderr and "nothing was changed" in result.stderr
    assert config.read_text(encoding="utf-8") == "{broken"
    assert _backups(config) == [] and result.stdout == ""


@pytest.mark.parametrize("content", ['["a list"]', '{"mcpServers": []}'])
def test_wrong_shapes_are_refused(tmp_path: Path, content: str) -> None:
    config = tmp_path / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(content, encoding="utf-8")
    result = toolwire("install", "cursor", DEMO_FILE, home=tmp_path)
    assert result.returncode == 2 and "nothing was changed" in result.stderr
    assert config.read_text(encoding="utf-8") == content


def test_dry_run_prints_the_result_and_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{"mcpServers": {"other": {"command": "x"}}}', encoding="utf-8")
    result = toolwire("install", "cursor", DEMO_FILE, "--dry-run", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"dry run: would add server 'toolwire-demo' in {config}")
    shown = json.loads(result.stdout.split(":\n", 1)[1])
    assert shown["toolwire-demo"]["args"][-1] == DEMO_FILE
    assert config.read_text(encoding="utf-8") == '{"mcpServers": {"other": {"command": "x"}}}'
    assert _backups(config) == []
    fresh = toolwire("install", "claude-desktop", DEMO_FILE, "--dry-run", home=tmp_path)
    assert fresh.returncode == 0 and not (tmp_path / ".config").exists()


def test_mcp_json_prints_a_standalone_config_or_writes_config(tmp_path: Path) -> None:
    printed = toolwire("install", "mcp-json", DEMO_FILE, "--name", "d", home=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == {
        "mcpServers": {
            "d": {"command": sys.executable, "args": ["-m", "toolwire", "run", DEMO_FILE]}
        }
    }
    target = tmp_path / "project" / ".mcp.json"
    written = toolwire("install", "mcp-json", DEMO_FILE, "--config", str(target), home=tmp_path)
    assert written.returncode == 0, written.stderr
    assert list(json.loads(target.read_text())["mcpServers"]) == ["toolwire-demo"]


def test_a_symlinked_config_stays_a_symlink_and_keeps_its_mode(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {}}', encoding="utf-8")
    os.chmod(real, 0o640)
    link = tmp_path / ".cursor" / "mcp.json"
    link.parent.mkdir()
    link.symlink_to(real)
    result = toolwire("install", "cursor", DEMO_FILE, home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert "toolwire-demo" in json.loads(real.read_text())["mcpServers"]
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_a_bad_env_pair_is_refused(tmp_path: Path) -> None:
    result = toolwire("install", "cursor", DEMO_FILE, "--env", "NOVALUE", home=tmp_path)
    assert result.returncode == 2 and "--env takes KEY=VALUE" in result.stderr
    assert not (tmp_path / ".cursor").exists()


@pytest.mark.parametrize(
    "target", ["servers/demo/server.py", "servers.demo", "servers.demo:server"]
)
def test_the_installed_entry_starts_the_server_from_anywhere(tmp_path: Path, target: str) -> None:
    printed = toolwire("install", "mcp-json", target, home=tmp_path)
    assert printed.returncode == 0, printed.stderr
    entry = json.loads(printed.stdout)["mcpServers"]["toolwire-demo"]
    if "/" not in target:
        assert entry["args"][-2:] == ["--path", str(ROOT)]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # Clients pass a minimal environment: no PYTHONPATH, a bare PATH, a cwd of their own.
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", **entry.get("env", {})}
    if "PYTHONPATH" in os.environ:  # only when the package is not installed in the venv
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    proc = subprocess.run(  # noqa: PLW1510 - the output is asserted
        [entry["command"], *entry["args"]],
        input=INIT,
        capture_output=True,
        timeout=60,
        cwd=elsewhere,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["serverInfo"]["name"] == "toolwire-demo"


def test_a_config_path_under_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("not a directory")
    config = blocker / "sub" / "mcp.json"
    result = toolwire("install", "cursor", "servers/demo/server.py", "--config", str(config))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"toolwire install: cannot write {config}: {blocker} is a file, not a directory; "
        "nothing was changed\n"
    )
    assert blocker.read_text() == "not a directory"
