"""`--version`, and usage errors reported by the command they concern (real subprocess)."""

from __future__ import annotations

import pytest
from _cli import toolwire

import toolwire as package

USAGE = {
    "run": "usage: toolwire run [-h] [--transport {stdio,http,sse}] [--host HOST]\n",
    "inspect": "usage: toolwire inspect [-h] [--json] [--path DIR] TARGET\n",
    "install": "usage: toolwire install [-h] [--name NAME] [--env K=V] [--config PATH]\n",
}


def test_version_prints_the_package_version() -> None:
    result = toolwire("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"toolwire {package.__version__}\n"
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("argv", "command", "option"),
    [
        (["run", "server.py", "--reload", "2"], "run", "--reload"),
        (["run", "--reload=2", "server.py"], "run", "--reload=2"),
        (["inspect", "server.py", "--porcelain"], "inspect", "--porcelain"),
        (["install", "cursor", "server.py", "--force"], "install", "--force"),
    ],
)
def test_unknown_option_is_reported_with_its_commands_usage(
    argv: list[str], command: str, option: str
) -> None:
    result = toolwire(*argv)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(USAGE[command]), result.stderr
    last = result.stderr.splitlines()[-1]
    assert last == (
        f"toolwire {command}: error: unknown option: {option} (see `toolwire {command} --help`)"
    )


def test_several_unknown_options_are_all_named() -> None:
    result = toolwire("install", "cursor", "server.py", "--force", "-z")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        "toolwire install: error: unknown options: --force, -z (see `toolwire install --help`)"
    )


def test_extra_positional_argument_names_the_command() -> None:
    result = toolwire("run", "server.py", "other.py")
    assert result.returncode == 2
    assert result.stderr.startswith(USAGE["run"])
    assert result.stderr.splitlines()[-1] == (
        "toolwire run: error: unexpected arguments: other.py (see `toolwire run --help`)"
    )


def test_unknown_option_before_the_command_is_a_top_level_error() -> None:
    result = toolwire("--port", "run", "server.py")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: toolwire [-h] [--version] COMMAND ...\n")
    assert result.stderr.splitlines()[-1] == (
        "toolwire: error: unknown option: --port (see `toolwire --help`)"
    )


def test_missing_target_keeps_argparse_message_and_command_usage() -> None:
    result = toolwire("inspect")
    assert result.returncode == 2
    assert result.stderr.startswith(USAGE["inspect"])
    assert "toolwire inspect: error: the following arguments are required: TARGET" in (
        result.stderr
    )
