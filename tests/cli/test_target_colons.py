"""Where a TARGET's `:` splits it: before a Server's name (a Python identifier) only.

`C:app.py` is a path on every platform (a drive-relative file on Windows, a file called
`C:app.py` on POSIX), never module `C` with an attribute `app.py`; a `:` followed by
something that is neither a name nor a path is refused with a message naming the TARGET.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _cli import toolwire

from toolwire.cli._target import TargetError, split_target

SERVER_FILE = "from toolwire import Server\nserver = Server('colon')\n"


@pytest.mark.parametrize(
    ("target", "parts"),
    [
        ("C:app.py", ("C:app.py", None)),  # drive-relative: the file app.py on drive C
        ("c:app.py", ("c:app.py", None)),
        ("C:app.py:server", ("C:app.py", "server")),
        ("C:srv\\app.py", ("C:srv\\app.py", None)),
        ("C:srv/app.py:server", ("C:srv/app.py", "server")),
        ("C:\\srv\\app.py:server", ("C:\\srv\\app.py", "server")),
        ("w:server", ("w", "server")),  # a one-letter module and its Server
        ("pkg.mod:_server2", ("pkg.mod", "_server2")),
        ("pkg.mod:sérvér", ("pkg.mod", "sérvér")),  # identifiers need not be ASCII
        ("dir:with:colons/app.py", ("dir:with:colons/app.py", None)),
        ("dir:with:colons/app.py:server", ("dir:with:colons/app.py", "server")),
        ("srv/app.py:", ("srv/app.py", None)),
    ],
)
def test_where_a_target_splits(target: str, parts: tuple[str, str | None]) -> None:
    assert split_target(target) == parts


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            "pkg.mod:app.server",
            "TARGET 'pkg.mod:app.server': 'app.server' after the last ':' is not an attribute name",
        ),
        ("pkg.mod:not-a-name", "'not-a-name' after the last ':' is not an attribute name"),
        ("pkg.mod:2nd", "'2nd' after the last ':' is not an attribute name"),
        (":server", "TARGET ':server' names no file or module before ':server'"),
        (":", "TARGET ':' names no file or module"),
    ],
)
def test_a_colon_before_no_name_is_refused(target: str, message: str) -> None:
    with pytest.raises(TargetError) as caught:
        split_target(target)
    assert message in str(caught.value)
    assert f"TARGET {target!r}" in str(caught.value)


@pytest.mark.skipif(sys.platform == "win32", reason="a ':' cannot be in a Windows file name")
def test_a_file_called_c_colon_app_py_is_served(tmp_path: Path) -> None:
    # On POSIX `C:app.py` is a file name like any other: the CLI loads that file.
    (tmp_path / "C:app.py").write_text(SERVER_FILE)
    for target in ("C:app.py", "C:app.py:server"):
        result = toolwire("inspect", target, "--json", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert '"name": "colon"' in result.stdout


def test_a_missing_colon_path_says_how_the_colon_was_read(tmp_path: Path) -> None:
    result = toolwire("inspect", "C:app.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("toolwire inspect: no such file: C:app.py (a ':' followed")
    assert "path/file.py:NAME" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("command", ["run", "inspect"])
def test_the_cli_names_a_target_with_a_bad_attribute(command: str, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SERVER_FILE)
    result = toolwire(command, "app:my-server", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"toolwire {command}: TARGET 'app:my-server': 'my-server'")
    assert result.stdout == ""
