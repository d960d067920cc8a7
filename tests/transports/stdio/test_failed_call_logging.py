"""A failed call, seen from a real stdio server: the model gets the SDK's text, the author stderr.

Each test spawns a server, calls its tools over the wire, closes stdin, and reads what the
process wrote: the JSON-RPC replies on stdout and the `toolwire` logger's lines on stderr, at
the default level (no TOOLWIRE_LOG_LEVEL).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.transports._proc import INIT, call, exchange, frame, spawn, toolwire_run

GENERIC = "An error occurred while running the tool. Please try again."
SECRET = "sk-live-7f3a9c"  # an argument value that must stay out of the log by default

SERVER = textwrap.dedent(
    """
    import asyncio

    from toolwire import Server, function_tool

    server = Server("failing")


    @server.tool
    def upload(path: str, token: str) -> str:
        \"\"\"Upload a file.\"\"\"
        raise RuntimeError("disk full")


    @server.tool
    def add(a: int, b: int) -> int:
        return a + b


    @server.tool(timeout=0.2)
    async def slow(token: str) -> str:
        await asyncio.sleep(30)
        return "late"


    server.add_tool(function_tool(lambda token: 1 / 0, name_override="reraise",
                                  failure_error_function=None))
    """
)

APP_LOGGING = (
    "import logging, sys\n"
    "logging.basicConfig(stream=sys.stderr, level=logging.{level}, format='APP %(levelname)s "
    "%(name)s %(message)s')\n"
)


def _serve(tmp_path: Path, calls: list[bytes], prelude: str = "", **env: str) -> tuple[Any, str]:
    module = tmp_path / "failing.py"
    module.write_text(prelude + SERVER)
    proc = spawn(toolwire_run(module), **env)
    messages, err, code = exchange(proc, [frame(INIT), *calls])
    assert code == 0, err
    replies = {m["id"]: m["result"] for m in messages if "id" in m}
    return replies, err


def _text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_a_raising_tool_logs_its_traceback_and_keeps_the_arguments_out(tmp_path: Path) -> None:
    replies, err = _serve(tmp_path, [call(2, "upload", {"path": "/srv/a", "token": SECRET})])
    assert replies[2]["isError"] is True
    assert _text(replies[2]) == GENERIC  # the model learns nothing about the exception
    assert "WARNING toolwire.tools: Tool 'upload' failed: RuntimeError: disk full" in err
    assert "Traceback (most recent call last):" in err
    assert 'raise RuntimeError("disk full")' in err  # the line in the author's code
    assert SECRET not in err and "/srv/a" not in err


def test_the_opt_in_adds_the_arguments(tmp_path: Path) -> None:
    for env in ({"TOOLWIRE_LOG_TOOL_DATA": "1"}, {"OPENAI_AGENTS_DONT_LOG_TOOL_DATA": "0"}):
        replies, err = _serve(
            tmp_path, [call(2, "upload", {"path": "/srv/a", "token": SECRET})], **env
        )
        assert _text(replies[2]) == GENERIC and replies[2]["isError"] is True
        assert "Tool 'upload' failed: RuntimeError: disk full; arguments: " in err, env
        assert SECRET in err and "Traceback (most recent call last):" in err


def test_refused_arguments_and_timeouts_log_one_line_each(tmp_path: Path) -> None:
    replies, err = _serve(
        tmp_path,
        [call(2, "add", {"a": SECRET, "b": 1}), call(3, "slow", {"token": SECRET})],
    )
    assert replies[2]["isError"] is True
    assert _text(replies[2]).startswith("Invalid arguments for tool 'add': a: ")
    assert replies[3]["isError"] is True
    assert _text(replies[3]) == "Tool 'slow' timed out after 0.2 seconds."
    lines = err.splitlines()
    assert lines == [
        "WARNING toolwire.tools: Tool 'add' refused its arguments: a: Input should be a valid "
        "integer, unable to parse string as an integer",
        "WARNING toolwire.tools: Tool 'slow' timed out after 0.2 seconds",
    ]


def test_an_exception_that_escapes_its_tool_is_logged_too(tmp_path: Path) -> None:
    replies, err = _serve(tmp_path, [call(2, "reraise", {"token": SECRET})])
    assert _text(replies[2]) == GENERIC and replies[2]["isError"] is True
    assert "Tool 'reraise' failed: ZeroDivisionError: division by zero" in err
    assert "Traceback (most recent call last):" in err and SECRET not in err


def test_the_applications_logging_configuration_wins(tmp_path: Path) -> None:
    arguments = {"path": "/srv/a", "token": SECRET}
    replies, err = _serve(
        tmp_path, [call(2, "upload", arguments)], prelude=APP_LOGGING.format(level="WARNING")
    )
    assert _text(replies[2]) == GENERIC and replies[2]["isError"] is True
    assert err.startswith("APP WARNING toolwire.tools Tool 'upload' failed: RuntimeError: disk")
    assert "Traceback (most recent call last):" in err
    assert "WARNING toolwire.tools:" not in err  # toolwire added no handler of its own
    replies, err = _serve(
        tmp_path, [call(2, "upload", arguments)], prelude=APP_LOGGING.format(level="ERROR")
    )
    assert _text(replies[2]) == GENERIC and replies[2]["isError"] is True
    assert err == ""  # the application asked for ERROR and above


FORGING_SERVER = textwrap.dedent(
    """
    from toolwire import Server

    server = Server("forging")


    @server.tool
    def lookup(user: str) -> str:
        raise ValueError(f"no such user {user}")


    @server.tool
    def chained(user: str) -> str:
        try:
            raise KeyError(user)
        except KeyError as error:
            raise LookupError(f"cannot find {user}") from error


    @server.prompt
    def greet(name: str) -> str:
        raise ValueError(f"cannot greet {name}")


    @server.resource("users://{user}/profile")
    def profile(user: str) -> str:
        raise ValueError(f"no profile for {user}")


    @server.completion
    def complete(ref, argument, value, context_arguments):
        raise ValueError(f"cannot complete {value}")
    """
)
FORGED = "x\nFORGED WARNING toolwire.tools: Tool 'lookup' failed: RuntimeError\x1b[2J"


def test_exception_text_holding_client_input_cannot_forge_log_lines(tmp_path: Path) -> None:
    """Each failure whose exception quotes the client's text (a tool, a chained cause, a
    prompt, a resource template, a completer) logs it escaped: no stderr line starts with the
    client's text, and no escape sequence reaches the terminal. Before the fix the summary and
    the traceback's last line printed it raw."""
    module = tmp_path / "forging.py"
    module.write_text(FORGING_SERVER)
    proc = spawn(toolwire_run(module))
    requests = [
        call(2, "lookup", {"user": FORGED}),
        call(3, "chained", {"user": FORGED}),
        frame(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "prompts/get",
                "params": {"name": "greet", "arguments": {"name": FORGED}},
            }
        ),
        frame(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "resources/read",
                "params": {"uri": "users://x%0AFORGED%20WARNING/profile"},
            }
        ),
        frame(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "completion/complete",
                "params": {
                    "ref": {"type": "ref/prompt", "name": "greet"},
                    "argument": {"name": "name", "value": FORGED},
                },
            }
        ),
    ]
    messages, err, code = exchange(proc, [frame(INIT), *requests])
    assert code == 0, err
    answered = {m["id"] for m in messages if "id" in m}
    assert answered == {1, 2, 3, 4, 5, 6}
    lines = err.splitlines()
    assert [line for line in lines if line.startswith("FORGED")] == []
    assert "\x1b" not in err
    assert "Tool 'lookup' failed: ValueError: no such user x\\nFORGED WARNING" in err
    for shown in (
        "ValueError: no such user x\\nFORGED",
        "LookupError: cannot find x\\nFORGED",
        'KeyError: "x\\nFORGED',  # a KeyError shows the repr of its key
        "ValueError: cannot greet x\\nFORGED",
        "ValueError: no profile for x\\nFORGED",
        "ValueError: cannot complete x\\nFORGED",
    ):
        assert any(line.startswith(shown) for line in lines), (shown, err)
