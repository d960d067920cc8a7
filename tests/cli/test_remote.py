"""`toolwire tools` and `toolwire call` against a real server over stdio, HTTP and SSE.

Each case runs the command as a subprocess (no terminal: the y/N path is tested in a real
terminal in test_cli_call_tty.py) and reads its stdout, stderr and exit status.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli._cli import toolwire
from tests.interop._served_http import served_http

SERVER = Path(__file__).with_name("_remote_server.py")
STDIO = f"{sys.executable} {SERVER}"

pytest.importorskip("mcp")


@pytest.fixture(scope="module", params=["stdio", "http", "sse"])
def target(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "stdio":
        yield STDIO
        return
    with served_http(request.param, "cli", target=SERVER) as running:
        yield f"{running.base}/{'mcp' if request.param == 'http' else 'sse'}"


def test_tools_lists_schemas_and_schema_problems(target: str) -> None:
    done = toolwire("tools", target)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.splitlines()[0].endswith(": 7 tools")
    assert "- add: Add two numbers." in out and "annotations: readOnlyHint=True" in out
    assert '"a": {"description": "The first.", "title": "A", "type": "integer"}' in out
    # `loose` takes a dict: OpenAI's strict mode would refuse it, the others accept it.
    loose = out[out.index("- loose:") :].split("\n\n")[0]
    assert loose.splitlines()[3:] == [
        '    warning [openai-strict] (root): objects need "additionalProperties": false',
        '    warning [openai-strict] properties.payload: objects need "additionalProperties": false',
        "    for a client [openai-strict]: convert_schemas_to_strict=True cannot make this "
        "schema strict, so toolwire's client adapter sends it non-strict, which OpenAI accepts",
        "    accepted as is by: gemini, anthropic",
    ]
    # Advice for the server's author has no place in a listing of someone else's server.
    assert "strict_mode" not in out and "serve the tool" not in out


def test_tools_json(target: str) -> None:
    done = toolwire("tools", target, "--json")
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert set(tools) == {"add", "slow", "wipe", "purge", "pic", "loose", "fail"}
    assert tools["add"]["inputSchema"]["required"] == ["a", "b"]
    assert tools["loose"]["problems"]["openai-strict"] and not tools["add"]["problems"]["gemini"]
    assert set(tools["loose"]["client_advice"]) == {"openai-strict"}
    assert tools["add"]["client_advice"] == {}


def test_call_prints_the_result_once(target: str) -> None:
    # The server sends the text "42" and the structured {"result": 42}: one is shown.
    done = toolwire("call", target, "add", "--args", '{"a": 2, "b": 40}')
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"


def test_call_structured_prints_the_structured_result_only(target: str) -> None:
    done = toolwire("call", target, "add", "--args", '{"a": 2, "b": 40}', "--structured")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"result": 42}
    assert done.stdout == '{\n  "result": 42\n}\n'


def test_call_json_prints_the_whole_result(target: str) -> None:
    done = toolwire("call", target, "add", "--args", '{"a": 2, "b": 40}', "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["content"] == [{"type": "text", "text": "42"}]
    assert result["structuredContent"] == {"result": 42}
    assert result["isError"] is False


def test_call_structured_without_structured_content_says_so(tmp_path: Path) -> None:
    done = toolwire("call", STDIO, "pic", "--structured", "--save-dir", str(tmp_path))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        "toolwire call: tool 'pic' returned no structured content; its content was:",
        f"[image image/png, 70 bytes] saved to {tmp_path / 'pic-1.png'}",
    ]


def test_call_shows_progress_on_stderr(target: str) -> None:
    done = toolwire("call", target, "slow", "--args", '{"steps": 3}')
    assert done.returncode == 0, done.stderr
    assert done.stdout == "finished\n"
    progress = [line for line in done.stderr.splitlines() if line.startswith("progress")]
    assert progress == [
        "progress 1/3 (33%) step 1",
        "progress 2/3 (67%) step 2",
        "progress 3/3 (100%) step 3",
    ]


def test_call_saves_images_and_prints_the_path(target: str, tmp_path: Path) -> None:
    done = toolwire("call", target, "pic", "--save-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "pic-1.png"
    assert done.stdout == f"[image image/png, 70 bytes] saved to {saved}\n"
    assert saved.read_bytes().startswith(b"\x89PNG\r\n")


def test_call_makes_a_temporary_folder_only_for_a_file_it_saves(tmp_path: Path) -> None:
    text = toolwire("call", STDIO, "add", "--args", '{"a": 2, "b": 40}', TMPDIR=str(tmp_path))
    assert (text.returncode, text.stdout) == (0, "42\n"), text.stderr
    assert list(tmp_path.iterdir()) == []
    image = toolwire("call", STDIO, "pic", TMPDIR=str(tmp_path))
    assert image.returncode == 0, image.stderr
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith("toolwire-call-")
    saved = folder / "pic-1.png"
    assert image.stdout == f"[image image/png, 70 bytes] saved to {saved}\n"
    assert saved.read_bytes().startswith(b"\x89PNG\r\n")


def test_tool_error_is_shown_with_status_1(target: str) -> None:
    done = toolwire("call", target, "fail")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[:2] == [
        "toolwire call: tool 'fail' reported an error:",
        "An error occurred while running the tool. Please try again.",
    ]
    assert "Traceback" not in done.stderr
    if target == STDIO:
        # The server's traceback went to its stderr, which the CLI keeps aside: its last
        # line is shown, and how to see all of it.
        assert lines[2:] == [
            "toolwire call: the server's stderr ended with: RuntimeError: the disk is on fire",
            "toolwire call: the server's stderr is hidden; add --verbose to see it",
        ]
    else:
        url = target
        assert lines[2:] == [
            "toolwire call: the cause, if the server logged it, is in the log of the process "
            f"serving {url}"
        ]


def test_verbose_shows_the_failing_servers_stderr() -> None:
    done = toolwire("call", STDIO, "fail", "--verbose")
    assert done.returncode == 1
    assert "RuntimeError: the disk is on fire" in done.stderr
    assert 'raise RuntimeError("the disk is on fire")' in done.stderr  # the whole traceback
    assert "add --verbose" not in done.stderr


@pytest.mark.parametrize(
    ("tool", "reason", "called", "log_line"),
    [
        (
            "wipe",
            "its annotations do not say it is read-only or non-destructive",
            "wiped /x",
            "/x",
        ),
        ("purge", "it is marked destructive (destructiveHint: true)", "purged /x", "purge /x"),
    ],
)
def test_no_terminal_refuses_a_gated_tool_without_yes(
    tmp_path: Path, tool: str, reason: str, called: str, log_line: str
) -> None:
    log = tmp_path / "calls.txt"
    done = toolwire("call", STDIO, tool, "--args", '{"path": "/x"}', CLI_CALL_LOG=str(log))
    assert done.returncode == 2
    assert done.stderr == (
        f"toolwire call: tool '{tool}' needs approval: {reason}; there is no terminal to ask "
        "on, so pass --yes to call it anyway\n"
    )
    assert not log.exists()
    done = toolwire("call", STDIO, tool, "--args", '{"path": "/x"}', "--yes", CLI_CALL_LOG=str(log))
    assert done.returncode == 0 and done.stdout == f"{called}\n"
    assert log.read_text() == f"{log_line}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["call", STDIO, "add", "--args", "{bad"],
            "toolwire call: --args is not valid JSON: Expecting property name enclosed in "
            "double quotes: line 1 column 2 (char 1)",
        ),
        (
            ["call", STDIO, "add", "--args", "[1, 2]"],
            "toolwire call: --args must be a JSON object, got list: [1, 2]",
        ),
        (
            ["call", STDIO, "nope"],
            f"toolwire call: unknown tool 'nope' on {STDIO} "
            "(its tools: add, fail, loose, pic, purge, slow, wipe)",
        ),
        (
            ["tools", "no-such-command-tw"],
            "toolwire tools: cannot start 'no-such-command-tw': No such file or directory",
        ),
        (["tools", "https://"], "toolwire tools: TARGET 'https://' is not a usable URL (no host)"),
        (
            ["tools", '"open'],
            "toolwire tools: TARGET '\"open' is not a valid command line: No closing quotation",
        ),
        (
            ["tools", "  "],
            "toolwire tools: TARGET is empty: give a command line or an http(s):// URL",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv: list[str], message: str) -> None:
    done = toolwire(*argv)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == message + "\n"


@pytest.mark.parametrize("path", ["mcp", "sse"])
def test_unreachable_url_is_one_line(path: str) -> None:
    from tests.interop._served_http import free_port

    url = f"http://127.0.0.1:{free_port()}/{path}"
    done = toolwire("tools", url, "--timeout", "5")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"toolwire tools: cannot connect to {url}: ")
    assert len(done.stderr.splitlines()) == 1


def test_a_url_s_secrets_are_never_echoed() -> None:
    from tests.interop._served_http import free_port

    port = free_port()
    url = f"http://ada:hunter2@127.0.0.1:{port}/mcp?api_key=k3y#frag"
    for done in (
        toolwire("tools", url, "--timeout", "5"),
        toolwire("call", url, "add", "--timeout", "5"),
    ):
        assert done.returncode == 2
        assert f"cannot connect to http://127.0.0.1:{port}/mcp: " in done.stderr
        for secret in ("hunter2", "k3y", "ada", "frag"):
            assert secret not in done.stderr + done.stdout


def test_a_server_that_dies_at_start_is_named_with_its_last_words() -> None:
    dying = f"{sys.executable} -c \"import sys; sys.exit('boom: cannot bind')\""
    done = toolwire("tools", dying)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"toolwire tools: {dying} exited or closed its output before answering",
        "toolwire tools: the server's stderr ended with: boom: cannot bind",
    ]


GUARDED = Path(__file__).with_name("_guarded_server.py")


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_header_carries_a_bearer_token(transport: str) -> None:
    with served_http(transport, "cli", target=GUARDED) as running:
        url = f"{running.base}/{'mcp' if transport == 'http' else 'sse'}"
        refused = toolwire("call", url, "ping", "--timeout", "10")
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.startswith(f"toolwire call: {url}: ")
        assert len(refused.stderr.splitlines()) == 1 and "Traceback" not in refused.stderr
        done = toolwire("call", url, "ping", "--header", "Authorization: Bearer sesame")
        assert (done.returncode, done.stdout) == (0, "pong\n"), done.stderr


@pytest.mark.parametrize(
    ("target", "header", "message"),
    [
        (
            "http://127.0.0.1:9/mcp",
            "NoColon",
            "--header must look like 'Name: value', got 'NoColon'",
        ),
        ("http://127.0.0.1:9/mcp", "Bad Name: x", "--header must look like 'Name: value'"),
        ("http://127.0.0.1:9/mcp", "N(1): x", "--header must look like 'Name: value'"),
        (
            "http://127.0.0.1:9/mcp",
            "X-A: b\r\nX-Injected: c",
            "--header value must not hold a line break or NUL, got 'X-A: b\\r\\nX-Injected: c'",
        ),
        (STDIO, "A: b", "--header applies to http(s) URLs only, not to a stdio command line"),
    ],
)
def test_bad_headers_are_named(target: str, header: str, message: str) -> None:
    done = toolwire("tools", target, "--header", header)
    assert done.returncode == 2
    assert done.stderr.startswith(f"toolwire tools: {message}")


def test_a_chatty_servers_stderr_stays_out_of_a_refusal(tmp_path: Path) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "import runpy, sys\n"
        "print('server running on stdio', file=sys.stderr, flush=True)\n"
        f"runpy.run_path({str(SERVER)!r}, run_name='__main__')\n"
    )
    done = toolwire("call", f"{sys.executable} {chatty}", "nope")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and "unknown tool 'nope'" in done.stderr
    shown = toolwire("call", f"{sys.executable} {chatty}", "nope", "--verbose")
    assert "server running on stdio" in shown.stderr
