"""A hostile server's words reach the terminal escaped, and `--json` output stays JSON.

Whatever `toolwire tools`, `toolwire call` and `toolwire inspect` show a person (results, progress, the server's
stderr, errors) has its control characters but newline and tab written as `\\x..`, so a server
cannot clear the screen, retitle the window or recolour what follows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.cli._cli import toolwire
from tests.cli._hostile_server import C1_CSI, CLEAR, REORDERED

SERVER = Path(__file__).with_name("_hostile_server.py")
STDIO = f"{sys.executable} {SERVER}"

pytest.importorskip("mcp")


def _raw_controls(text: str) -> list[str]:
    return [
        char for char in text if char not in "\n\t" and (char < " " or "\x7f" <= char <= "\x9f")
    ]


def test_call_shows_a_result_and_progress_escaped() -> None:
    done = toolwire("call", STDIO, "clear")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "before \\x1b[2J after \\x9b31m tab\tok\nnext line\n"
    assert "progress 1/2 (50%) half \\x1b[2J" in done.stderr
    assert _raw_controls(done.stdout + done.stderr) == []


def test_call_shows_each_progress_message_on_one_line() -> None:
    done = toolwire("call", STDIO, "lines")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "progress 1/2 (50%) first\\nsecond",
        "progress 2/2 (100%) third\\nfourth\\x0dfifth",
    ]


def test_call_shows_bidirectional_overrides_escaped_and_keeps_joiners() -> None:
    done = toolwire("call", STDIO, "reorder")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "invoice_\\u202etxt.exe and \\u2066isolated\\u2069, a coder \U0001f469\u200d\U0001f4bb\n"
    )


def test_call_json_keeps_the_text_exact_and_the_bytes_inert() -> None:
    done = toolwire("call", STDIO, "clear", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == (
        f"before {CLEAR} after {C1_CSI} tab\tok\r\nnext line"
    )
    assert _raw_controls(done.stdout) == []
    assert "\\u009b31m" in done.stdout


def test_tools_listing_escapes_descriptions() -> None:
    shown = toolwire("tools", STDIO)
    assert shown.returncode == 0, shown.stderr
    assert "- clear: Wipes the screen \\x1b[2J" in shown.stdout
    assert _raw_controls(shown.stdout) == []
    listed = toolwire("tools", STDIO, "--json")
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)["tools"]}
    assert tools["clear"]["description"] == f"Wipes the screen {CLEAR}"
    assert _raw_controls(listed.stdout) == []


def test_inspect_escapes_every_listing() -> None:
    shown = toolwire("inspect", str(SERVER))
    assert shown.returncode == 0, shown.stderr
    assert "- clear: Wipes the screen \\x1b[2J" in shown.stdout
    assert "- note (Note \\x1b]0;owned\\x07) <mem://note>: Read me \\x9b31m" in (shown.stdout)
    assert "- greet(who): Greets invoice_\\u202etxt.exe and \\u2066isolated\\u2069" in (
        shown.stdout
    )
    assert _raw_controls(shown.stdout) == []
    assert not set(shown.stdout) & set("\u202e\u2066\u2069")
    listed = toolwire("inspect", str(SERVER), "--json")
    assert listed.returncode == 0, listed.stderr
    assert _raw_controls(listed.stdout) == []
    data = json.loads(listed.stdout)
    assert data["resources"][0]["description"] == f"Read me {C1_CSI}"
    assert data["prompts"][0]["description"] == f"Greets {REORDERED}"


@pytest.mark.parametrize("verbose", [False, True])
def test_the_servers_stderr_is_shown_escaped(verbose: bool) -> None:
    done = toolwire("call", STDIO, "shout", *(["--verbose"] if verbose else []))
    assert done.returncode == 1
    assert "about to fail \\x1b]0;owned\\x07" in done.stderr
    assert _raw_controls(done.stderr) == []
