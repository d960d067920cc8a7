"""`--version`, usage errors and bad flag values: one line naming the command and the flag,
exit status 2, no traceback (real subprocess); and help text on every flag."""

from __future__ import annotations

import argparse

import pytest
from _cli import toolwire

import toolwire as package


def test_version_prints_the_package_version() -> None:
    result = toolwire("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"toolwire {package.__version__}\n"
    assert result.stderr == ""


def _one_line(result: object, command: str) -> str:
    """The single stderr line of a usage error of `command` (status 2, nothing on stdout)."""
    assert result.returncode == 2, result  # type: ignore[attr-defined]
    assert result.stdout == ""  # type: ignore[attr-defined]
    lines = result.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, result.stderr  # type: ignore[attr-defined]
    assert lines[0].startswith(f"{command}: error: "), lines
    assert lines[0].endswith(f" (see `{command} --help`)"), lines
    return lines[0].removeprefix(f"{command}: error: ").removesuffix(f" (see `{command} --help`)")


@pytest.mark.parametrize(
    ("argv", "command", "option"),
    [
        (["run", "server.py", "--reload", "2"], "run", "--reload"),
        (["run", "--reload=2", "server.py"], "run", "--reload=2"),
        (["inspect", "server.py", "--porcelain"], "inspect", "--porcelain"),
        (["install", "cursor", "server.py", "--force"], "install", "--force"),
        (["tools", "python s.py", "--all"], "tools", "--all"),
        (["call", "python s.py", "add", "--dry"], "call", "--dry"),
    ],
)
def test_unknown_option_is_reported_by_its_command(
    argv: list[str], command: str, option: str
) -> None:
    message = _one_line(toolwire(*argv), f"toolwire {command}")
    assert message == f"unknown option: {option}"


def test_several_unknown_options_are_all_named() -> None:
    message = _one_line(
        toolwire("install", "cursor", "server.py", "--force", "-z"), "toolwire install"
    )
    assert message == "unknown options: --force, -z"


def test_extra_positional_argument_names_the_command() -> None:
    message = _one_line(toolwire("run", "server.py", "other.py"), "toolwire run")
    assert message == "unexpected arguments: other.py"


def test_unknown_option_before_the_command_is_a_top_level_error() -> None:
    assert _one_line(toolwire("--port", "run", "server.py"), "toolwire") == (
        "unknown option: --port"
    )


def test_missing_target_keeps_argparse_message() -> None:
    assert _one_line(toolwire("inspect"), "toolwire inspect") == (
        "the following arguments are required: TARGET"
    )


REMOTE = "python server.py"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["run", "s.py", "--port", "99999"],
            "argument --port: a TCP port is 1 to 65535 (or 0: any free port), not 99999",
        ),
        (
            ["run", "s.py", "--port", "-1"],
            "argument --port: a TCP port is 1 to 65535 (or 0: any free port), not -1",
        ),
        (["run", "s.py", "--port", "http"], "argument --port: not a port number: 'http'"),
        (["run", "s.py", "--port", "80.5"], "argument --port: not a port number: '80.5'"),
        (
            ["run", "s.py", "--transport", "websocket"],
            "argument --transport: invalid choice: 'websocket' (choose from 'stdio', 'http', "
            "'sse')",
        ),
        (["run", "s.py", "--workers", "0"], "argument --workers: must be at least 1, not 0"),
        (["run", "s.py", "--workers", "two"], "argument --workers: not a whole number: 'two'"),
        (
            ["run", "s.py", "--header-timeout", "-5"],
            "argument --header-timeout: no longer exists: uvicorn offers no public way to bound "
            "the time "
            "a request head may take, so toolwire does not either. Serve behind a reverse proxy "
            "that does (nginx: client_header_timeout, on by default); see docs/deployment.md",
        ),
        (
            ["run", "s.py", "--host", " "],
            "argument --host: empty; give an address or name, e.g. 127.0.0.1",
        ),
        (
            ["run", "s.py", "--host", "my host"],
            "argument --host: 'my host' is not a host; write 'name' (any port) or 'name:port'",
        ),
        (
            ["run", "s.py", "--host", "a.example:99999"],
            "argument --host: 'a.example:99999' has a port that is not a number up to 65535",
        ),
        (
            ["run", "s.py", "--redis", "localhost:6379"],
            "argument --redis: not a Redis URL: 'localhost:6379' (write redis://host:port/db, "
            "rediss://... for TLS, or unix:///path/to/socket)",
        ),
        (
            ["run", "s.py", "--allowed-origin", "example.com"],
            "argument --allowed-origin: 'example.com' is not an origin; write 'https://name' "
            "(any port) or 'https://name:port'",
        ),
        (["run", "s.py", "--allowed-host", ""], "argument --allowed-host: '' is not a host name"),
        (
            ["run", "s.py", "--path", "/no/such/dir"],
            "argument --path: no such directory: /no/such/dir",
        ),
        (
            ["inspect", "s.py", "--path", "/no/such/dir"],
            "argument --path: no such directory: /no/such/dir",
        ),
        (
            ["install", "vscode", "s.py"],
            "argument client: invalid choice: 'vscode' (choose from 'claude-desktop', "
            "'claude-code', 'cursor', 'mcp-json')",
        ),
        (
            ["install", "cursor", "s.py", "--name", ""],
            "argument --name: empty; give the name the client should show",
        ),
        (
            ["tools", REMOTE, "--timeout", "-1"],
            "argument --timeout: must be a number of seconds above 0, not -1",
        ),
        (
            ["tools", REMOTE, "--timeout", "0"],
            "argument --timeout: must be a number of seconds above 0, not 0",
        ),
        (
            ["tools", REMOTE, "--timeout", "soon"],
            "argument --timeout: not a number of seconds: 'soon'",
        ),
        (
            ["call", REMOTE, "add", "--timeout", "nan"],
            "argument --timeout: must be a number of seconds above 0, not nan",
        ),
        (
            ["call", REMOTE, "add", "--timeout", "inf"],
            "argument --timeout: must be a number of seconds above 0, not inf",
        ),
        (
            ["call", REMOTE, "add", "--structured", "--json"],
            "--json and --structured exclude each other (--json has both)",
        ),
        (["call", REMOTE], "the following arguments are required: TOOL"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_flag(argv: list[str], message: str) -> None:
    result = toolwire(*argv)
    assert "Traceback" not in result.stderr
    assert _one_line(result, f"toolwire {argv[0]}") == message


def test_save_dir_that_is_a_file_is_refused_before_anything_runs(tmp_path: object) -> None:
    from pathlib import Path

    file = Path(str(tmp_path)) / "taken"
    file.write_text("")
    result = toolwire("call", "no-such-command-tw", "add", "--save-dir", str(file))
    assert _one_line(result, "toolwire call") == f"argument --save-dir: not a directory: {file}"


def _actions_without_help(parser: argparse.ArgumentParser, prog: str) -> list[str]:
    """Every argument (and subcommand) `prog` declares that has no help text."""
    missing = []
    declared: list[argparse.Action] = parser.declared  # type: ignore[attr-defined]
    assert declared, prog
    for action in declared:
        if not action.help or action.help == argparse.SUPPRESS:
            missing.append(f"{prog} {'/'.join(action.option_strings) or action.dest}")
        if isinstance(action.choices, dict):  # the subcommands: name -> parser
            for name, sub in action.choices.items():
                missing += _actions_without_help(sub, f"{prog} {name}")
    return missing


def test_every_command_and_flag_has_help() -> None:
    from toolwire.cli import _parser

    parser, commands = _parser()
    assert _actions_without_help(parser, "toolwire") == []
    assert set(commands) == {"run", "inspect", "install", "tools", "call"}
    # The walk reaches every flag: a flag added without help would be found.
    flags = {flag for action in commands["run"].declared for flag in action.option_strings}  # type: ignore[attr-defined]
    assert {"--transport", "--port", "--host", "--path", "-h"} <= flags


@pytest.mark.parametrize("command", ["run", "inspect", "install", "tools", "call"])
def test_help_of_each_command_shows_each_flags_help(command: str) -> None:
    from toolwire.cli import _parser

    result = toolwire(command, "--help")
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())
    _, commands = _parser()
    for action in commands[command].declared:  # type: ignore[attr-defined]
        for flag in action.option_strings:
            assert flag in shown
        # Its help text is shown (argparse rewraps it; %-escapes aside).
        words = " ".join(str(action.help).replace("%%", "%").split())
        assert words in shown, (command, action.dest)
