"""The bounded capture and the rendering, against the Agents SDK's own rendering of shell
output (`render_shell_outputs`) and its budget (`truncate_shell_outputs`) where no cut is
needed."""

from __future__ import annotations

import pytest
from toolwire_shell._output import Capture, CommandResult, cut, render, spend_budget, token_cut

from toolwire.client.shell_tools import render_outputs

agents = pytest.importorskip("agents")
from agents.run_internal.tool_execution import (  # noqa: E402
    render_shell_outputs,
    truncate_shell_outputs,
)

CASES = [
    [],
    [CommandResult("true", exit_code=0)],
    [CommandResult("echo hi", stdout="hi\n", exit_code=0)],
    [CommandResult("x", stdout="a\n\n", stderr="b\n", exit_code=2)],
    [CommandResult("y", stderr="only err", exit_code=1)],
    [CommandResult("sleep 9", stdout="partial", outcome="timeout")],
    [CommandResult("a", stdout="1", exit_code=0), CommandResult("b", stderr="2", exit_code=127)],
    [CommandResult("", stdout="", exit_code=None)],
]


def sdk(results: list[CommandResult]) -> list[object]:
    return [
        agents.ShellCommandOutput(
            stdout=r.stdout,
            stderr=r.stderr,
            command=r.command or None,
            outcome=agents.ShellCallOutcome(type=r.outcome, exit_code=r.exit_code),  # type: ignore[arg-type]
        )
        for r in results
    ]


@pytest.mark.parametrize("results", CASES)
def test_render_matches_the_sdk(results: list[CommandResult]) -> None:
    expected = render_shell_outputs(sdk(results))  # type: ignore[arg-type]
    if all(r.command for r in results):
        assert render(results) == expected
    assert render_outputs(sdk(results)) == expected


@pytest.mark.parametrize("budget", [0, 1, 3, 5, 100])
def test_budget_order_matches_the_sdk_when_nothing_is_cut(budget: int) -> None:
    results = [CommandResult("a", stdout="12", stderr="3"), CommandResult("b", stdout="45")]
    reference = truncate_shell_outputs(sdk(results), budget)  # type: ignore[arg-type]
    spend_budget(results, budget)
    # Where the SDK keeps a whole stream, so do we; where it cuts, we keep the same length.
    for ours, theirs in zip(results, reference, strict=True):
        assert len(ours.stdout) == len(theirs.stdout)
        assert len(ours.stderr) == len(theirs.stderr)
        if ours.stdout == theirs.stdout:
            continue
        assert "bytes cut" in ours.stdout or len(ours.stdout) < 20


def test_capture_memory_is_bounded_and_counts() -> None:
    capture = Capture(100)
    for index in range(10_000):
        capture.add(f"{index:05d}\n".encode())
    assert capture.total == 60_000 and capture.lines == 10_000
    text = capture.text()
    assert len(text) == 100
    assert text.startswith("00000\n") and text.endswith("09999\n")
    head, _, rest = text.partition("\n…")
    removed = int(rest.split(" ")[0])
    assert len(head) + removed + len(rest.partition("cut…\n")[2]) == 60_000


def test_capture_take_starts_empty() -> None:
    capture = Capture(10)
    capture.add(b"abc")
    taken = capture.take()
    assert taken.text() == "abc" and capture.text() == "" and capture.total == 0


def test_capture_keeps_utf8_readable() -> None:
    capture = Capture(64)
    capture.add("é".encode() * 1000)
    text = capture.text()
    assert "bytes cut" in text and len(text) <= 64


@pytest.mark.parametrize("size", [0, 10, 50, 99, 100, 101, 5000])
def test_cut_fits_the_budget(size: int) -> None:
    text = "x" * size
    kept = cut(text, 60)
    assert len(kept) <= 60
    assert kept == text if size <= 60 else "bytes cut" in kept


TOKEN_TEXTS = [
    "".join(f"{n}\n" for n in range(1, 400)),
    "no final newline\nsecond",
    "crlf\r\nlines\r\nand a lone \r return\n",
    "héllo wörld ✓ 日本語テキスト " * 40,
    "🙂" * 100,
    "x" * 37,
]


@pytest.mark.parametrize("text", TOKEN_TEXTS)
@pytest.mark.parametrize("tokens", [1, 2, 3, 5, 6, 7, 9, 12, 25, 50, 200])
def test_token_cut_is_the_sdk_sandboxs(text: str, tokens: int) -> None:
    from agents.sandbox.util.token_truncation import formatted_truncate_text_with_token_count

    expected, count = formatted_truncate_text_with_token_count(text, tokens)
    capture = Capture(1 << 20)
    capture.add(text.encode("utf-8"))
    assert token_cut(capture, tokens) == (expected, count)
