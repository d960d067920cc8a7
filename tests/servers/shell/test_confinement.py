"""Confinement: the allow-list (no shell; bypass attempts refused with a clear error and
nothing run, checked on disk) and `--root` (working directories outside refused)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.servers.shell._harness import ROOT, ShellServer, env_for_server


@pytest.fixture(scope="module")
def area(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("confined")
    (base / "root" / "sub").mkdir(parents=True)
    (base / "outside").mkdir()
    (base / "root" / "a*b").write_text("star")
    (base / "root" / "escape").symlink_to(base / "outside")
    return base


@pytest.fixture(scope="module")
def allowed(area: Path) -> Iterator[ShellServer]:
    with ShellServer(
        "--allow", "ls", "--allow", "echo,cat", "--root", str(area / "root")
    ) as server:
        yield server


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


BYPASSES = [
    ("ls; touch {p}", "';'"),
    ("ls && touch {p}", "'&&'"),
    ("ls & touch {p}", "'&'"),
    ("ls || touch {p}", "'||'"),
    ("ls | touch {p}", "'|'"),
    ("ls > {p}", "'>'"),
    ("cat < /etc/passwd", "'<'"),
    ("ls $(touch {p})", "'$'"),
    ("ls ${{IFS}}", "'$'"),
    ('echo "$(touch {p})"', "'$'"),
    ("ls `touch {p}`", "'`'"),
    ("ls\ntouch {p}", "no newlines"),
    ("ls\rtouch {p}", "no newlines"),
    ("(touch {p})", "'('"),
    ("touch {p}", "'touch' is not an allowed command"),
    ("'touch' {p}", "'touch' is not an allowed command"),
    ('t"ouch" {p}', "'touch' is not an allowed command"),
    ("/usr/bin/touch {p}", "'/usr/bin/touch' is not an allowed command"),
    ("/bin/ls", "'/bin/ls' is not an allowed command"),
    ("./ls", "'./ls' is not an allowed command"),
    ("env touch {p}", "'env' is not an allowed command"),
    ("sh -c 'touch {p}'", "'sh' is not an allowed command"),
    ("bash -c ls", "'bash' is not an allowed command"),
    ("ls *", "the glob '*'"),
    ("cat ?", "the glob '?'"),
    ("ls [ab]", "the glob '['"),
    ("echo 'unterminated", "cannot split"),
]


@pytest.mark.parametrize(("command", "named"), BYPASSES)
def test_bypass_attempts_are_refused(
    allowed: ShellServer, area: Path, command: str, named: str
) -> None:
    pwned = area / "pwned"
    result = allowed.call("shell", {"commands": ["echo first", command.format(p=pwned)]})
    assert result["isError"] is True, result
    assert named in text(result)
    assert "structuredContent" not in result
    assert not pwned.exists()
    session = allowed.call("exec_command", {"cmd": command.format(p=pwned)})
    assert session["isError"] is True and named in text(session)
    assert not pwned.exists()


def test_allowed_commands_run_without_a_shell(allowed: ShellServer, area: Path) -> None:
    result = allowed.call(
        "shell", {"commands": ["echo 'a;b' \"x|y\" 'a*b' c\\>d", "cat 'a*b'", "ls sub"]}
    )
    assert result["isError"] is False, result
    echo, cat, ls = result["structuredContent"]["output"]
    assert echo["stdout"] == "a;b x|y a*b c>d\n"
    assert cat["stdout"] == "star"
    assert ls["outcome"]["exit_code"] == 0


def test_an_operator_standing_alone_in_quotes_is_a_word(allowed: ShellServer) -> None:
    # `grep '|' file`: quoted, an operator is an argument like any other.
    result = allowed.call("shell", {"commands": ["echo ';' \"|\" '&&' \\> '(' x"]})
    assert result["isError"] is False, result
    assert result["structuredContent"]["output"][0]["stdout"] == "; | && > ( x\n"


def test_dollar_is_refused_even_quoted(allowed: ShellServer) -> None:
    result = allowed.call("shell", {"commands": ["echo '$HOME'"]})
    assert result["isError"] is True and "'$'" in text(result)


def _start_shell(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m toolwire_shell ARGS` with stdin closed: it refuses its options, or starts
    and ends at once."""
    return subprocess.run(
        [sys.executable, "-m", "toolwire_shell", *args],
        capture_output=True,
        text=True,
        env=env_for_server(),
        cwd=str(ROOT),
        timeout=30,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.parametrize(
    "launcher", ["sh", "env", "xargs", "/bin/bash", "python3", "python3.11", "perl5.36", "pypy3"]
)
def test_launchers_cannot_be_allowed(launcher: str) -> None:
    done = _start_shell("--allow", launcher)
    assert done.returncode == 2
    assert f"--allow {launcher!r} is refused" in done.stderr


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--max-processes", "-1", "--max-processes must be 0 (no limit) or more"),
        ("--session-idle-seconds", "0", "--session-idle-seconds must be a positive number"),
        ("--session-idle-seconds", "-5", "--session-idle-seconds must be a positive number"),
        ("--session-idle-seconds", "nan", "--session-idle-seconds must be a positive number"),
        ("--env", "FOO=bar", "--env 'FOO=bar' is not a variable name"),
    ],
)
def test_limits_that_mean_nothing_are_refused(option: str, value: str, named: str) -> None:
    done = _start_shell(option, value)
    assert done.returncode == 2, done
    assert named in done.stderr


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_an_allow_list_naming_nothing_is_refused(value: str) -> None:
    # An empty list would mean "no list": every command through /bin/sh.
    done = _start_shell("--allow", "ls", "--allow", value)
    assert done.returncode == 2, done
    assert f"--allow {value!r} names no program" in done.stderr


@pytest.mark.parametrize(
    "workdir", ["{base}/outside", "..", "../outside", "escape", "/", "{base}/root/../outside"]
)
def test_workdir_outside_the_roots(allowed: ShellServer, area: Path, workdir: str) -> None:
    given = workdir.format(base=area)
    for tool, arguments in (
        ("shell", {"commands": ["ls"], "workdir": given}),
        ("exec_command", {"cmd": "ls", "workdir": given}),
    ):
        result = allowed.call(tool, arguments)
        assert result["isError"] is True, result
        said = text(result)
        assert said.startswith(f"workdir {given!r} is refused: "), said
        assert "outside" in said or "above the root" in said, said


def test_workdir_inside_the_roots(allowed: ShellServer, area: Path) -> None:
    (area / "root" / "sub" / "here").write_text("")
    for workdir in ("sub", str(area / "root" / "sub"), None):
        arguments: dict[str, Any] = {"commands": ["ls"]}
        if workdir is not None:
            arguments["workdir"] = workdir
        result = allowed.call("shell", arguments)
        listing = result["structuredContent"]["output"][0]["stdout"].split()
        assert ("here" in listing) == (workdir is not None), (workdir, listing)


def test_shell_mode_also_bounds_the_workdir(area: Path) -> None:
    with ShellServer("--root", str(area / "root")) as server:
        inside = server.call("shell", {"commands": ["pwd"]})
        assert inside["structuredContent"]["output"][0]["stdout"] == f"{area / 'root'}\n"
        outside = server.call("shell", {"commands": ["pwd"], "workdir": str(area / "outside")})
        assert outside["isError"] is True
    assert os.path.isdir(area / "outside")


@pytest.mark.parametrize(("allow", "warned"), [("git,ls", True), ("ls,cat,grep", False)])
def test_programs_that_run_commands_through_options_are_warned_about(
    allow: str, warned: bool
) -> None:
    # `git -c alias.x='!cmd' x` runs anything: allowed, git opens the list to every command.
    done = _start_shell("--allow", allow)
    assert done.returncode == 0, done.stderr
    line = "--allow git: this program can run any command through its options"
    assert (line in done.stderr) is warned, done.stderr
