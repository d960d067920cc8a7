"""Bad TARGETs: clear messages on stderr, exit code 2, nothing on stdout."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _cli import ROOT, toolwire

TWO_SERVERS = textwrap.dedent(
    """
    from toolwire import Server
    alpha = Server("a")
    beta = Server("b")
    same_as_alpha = alpha
    """
)


@pytest.mark.parametrize("command", ["run", "inspect"])
@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing_file.py", "no such file: missing_file.py"),
        ("servers", "no toolwire Server"),  # a namespace package with no Server
        ("servers/", "not a file: servers/"),
        ("no_such_module_xyz", "no module named 'no_such_module_xyz'"),
        ("servers.demo.tour", "servers.demo.tour defines no toolwire Server"),
        ("servers.demo.server:nope", "servers.demo.server has no attribute 'nope'"),
        ("servers.demo.server:WordStats", "is a ModelMetaclass, not a toolwire Server"),
    ],
)
def test_bad_targets_exit_2_with_a_clear_message(command: str, target: str, message: str) -> None:
    result = toolwire(command, target)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert result.stderr.startswith(f"toolwire {command}: ")
    assert result.stdout == ""


def test_several_servers_are_listed_and_one_can_be_picked(tmp_path: Path) -> None:
    module = tmp_path / "two.py"
    module.write_text(TWO_SERVERS)
    result = toolwire("inspect", str(module))
    assert result.returncode == 2
    assert "defines several Servers (alpha, beta); pick one:" in result.stderr
    picked = toolwire("inspect", f"{module}:beta")
    assert picked.returncode == 0, picked.stderr
    assert picked.stdout.startswith("b: 0 tools")


def test_one_server_under_two_names_is_not_ambiguous(tmp_path: Path) -> None:
    module = tmp_path / "aliased.py"
    module.write_text("from toolwire import Server\nserver = Server('one')\nmcp = server\n")
    result = toolwire("inspect", str(module))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("one: 0 tools")


@pytest.mark.parametrize("command", ["run", "inspect"])
def test_an_import_error_shows_its_traceback(tmp_path: Path, command: str) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import toolwire\n\n\ndef f():\n    raise RuntimeError('boom at import')\n\nf()\n"
    )
    result = toolwire(command, str(broken))
    assert result.returncode == 2
    assert "Traceback (most recent call last)" in result.stderr
    assert 'broken.py", line 7' in result.stderr and "boom at import" in result.stderr
    assert f"toolwire {command}: importing {broken} failed: RuntimeError: boom at import" in (
        result.stderr
    )
    assert result.stdout == ""


def test_a_missing_dependency_is_not_reported_as_a_missing_target(tmp_path: Path) -> None:
    (tmp_path / "needs_dep.py").write_text("import not_installed_dependency_xyz\n")
    result = toolwire("inspect", "needs_dep", "--path", str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" in result.stderr
    assert "importing needs_dep failed: ModuleNotFoundError" in result.stderr
    assert "not_installed_dependency_xyz" in result.stderr


def test_a_module_that_exits_at_import_is_a_bad_target(tmp_path: Path) -> None:
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    result = toolwire("inspect", str(tmp_path / "exits.py"))
    assert result.returncode == 2
    assert "SystemExit: 3" in result.stderr


def test_module_targets_import_from_the_cwd_or_from_path(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("from toolwire import Server\nserver = Server('mine')\n")
    assert toolwire("inspect", "mine", cwd=tmp_path).stdout.startswith("mine: 0 tools")
    elsewhere = toolwire("inspect", "mine", "--path", str(tmp_path), cwd=ROOT)
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert toolwire("inspect", "mine", cwd=ROOT).returncode == 2


def test_a_file_whose_name_shadows_a_loaded_module_still_loads(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text("from toolwire import Server\nserver = Server('shadow')\n")
    result = toolwire("inspect", str(tmp_path / "json.py"), "--json")
    assert result.returncode == 0, result.stderr
    assert '"name": "shadow"' in result.stdout


def test_usage_errors_exit_2() -> None:
    assert toolwire().returncode == 2
    result = toolwire("run", "servers.demo", "--transport", "carrier-pigeon")
    assert result.returncode == 2 and "invalid choice" in result.stderr
    assert toolwire("install", "vim", "servers.demo").returncode == 2


@pytest.mark.parametrize(
    ("target", "parts"),
    [
        ("w:server", ("w", "server")),  # a one-letter module, not a drive
        ("w", ("w", None)),
        ("pkg.app:mcp", ("pkg.app", "mcp")),
        ("C:\\srv\\app.py", ("C:\\srv\\app.py", None)),  # drives, with either separator
        ("C:/srv/app.py", ("C:/srv/app.py", None)),
        ("C:\\srv\\app.py:mcp", ("C:\\srv\\app.py", "mcp")),
        ("C:/srv/app.py:mcp", ("C:/srv/app.py", "mcp")),
        ("srv/app.py:", ("srv/app.py", None)),
    ],
)
def test_split_target(target: str, parts: tuple[str, str | None]) -> None:
    from toolwire.cli._target import split_target

    assert split_target(target) == parts


def test_a_one_letter_module_with_its_server_named_loads(tmp_path: Path) -> None:
    (tmp_path / "w.py").write_text(
        "from toolwire import Server\nserver = Server('one letter')\nother = Server('x')\n"
    )
    result = toolwire("inspect", "w:server", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("one letter: 0 tools")
