"""The SDK's V4A cases through both tools, and `apply_patch_operations` against
`agents.apply_diff` (openai-agents 0.24.0) on generated files and diffs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from agents import apply_diff
from tests.servers.apply_patch._support import envelope, fails, patcher, write

# (file before, diff): the cases of the SDK's tests/test_apply_diff.py, as 0.24.0 behaves.
SDK_CASES = [
    ("", "@@\n+hello\n+world"),
    ("", "@@\r\n+hello\r\n+world"),
    ("line1\nline2\nline3\n", "@@ line1\n-line2\n+updated\n line3"),
    (
        "class BaseClass\n    def search():\n        pass\n\nclass Subclass\n    def search():\n"
        "        pass\n",
        "@@ class BaseClass\n@@     def search():\n-        pass\n+        raise NotImplementedError()"
        "\n\n@@ class Subclass\n@@     def search():\n-        pass\n"
        "+        raise NotImplementedError()",
    ),
    (
        "class First\n    def run():\n        pass\nclass Second\n    def run():\n        pass\n",
        "@@ class Second\n@@     def run():\n-        pass\n+        return 1",
    ),
    ("a\nb\n", "@@ nope\n-b\n+B"),
    (
        "class Only\n    def run():\n        pass\n",
        "@@ class Only\n@@\n-        pass\n+        return 1",
    ),
    ("line1\r\nline2\r\nline3\r\n", "@@ line1\n-line2\n+updated\n line3"),
    ("line1\nline2\nline3\n", "@@ line1\r\n-line2\r\n+updated\r\n line3"),
    ("line1\r\nline2\r\nline3\r\n", "@@ line1\r\n-line2\r\n+updated\r\n line3"),
    ("a\nb\nc\n", "@@\n-c\n+C\n*** End of File"),
    ("a\nb", "@@\n b\n+c"),
    ("x = 1   \ny = 2\n", "@@\n x = 1\n-y = 2\n+y = 3"),
    ("    x = 1\ny = 2\n", "@@\n x = 1\n-y = 2\n+y = 3"),
]
SDK_FAILURES = [
    ("one\ntwo\n", "@@ -1,2 +1,2 @@\n x\n-two\n+2"),
    ("a\nb\n", "@@ nope\n@@ also-nope\n-b\n+B"),
    ("a\nb\n", "@@\n-b\n+B\n-a\n+A"),
    ("a\nb\n", "@@\n?b"),
]
CREATE_CASES = ["+hello\n+world\n+", "+hello\r\n+world\r\n+", "+one line", "+a\n+\n+b"]


@pytest.mark.parametrize(("before", "diff"), SDK_CASES)
def test_update_matches_apply_diff(tmp_path: Path, before: str, diff: str) -> None:
    write(tmp_path, {"f.txt": before})
    output = patcher(tmp_path).apply_operations(
        [{"type": "update_file", "path": "f.txt", "diff": diff}]
    )
    assert output == "Updated f.txt"
    assert (tmp_path / "f.txt").read_bytes() == apply_diff(before, diff).encode()


# Codex refuses an @@ line it cannot find; the SDK reads a lone one as a hint.
UNFOUND_ANCHOR = ("a\nb\n", "@@ nope\n-b\n+B")


@pytest.mark.parametrize(("before", "diff"), [case for case in SDK_CASES if case != UNFOUND_ANCHOR])
def test_the_envelope_tool_reads_the_same_hunks(tmp_path: Path, before: str, diff: str) -> None:
    write(tmp_path, {"f.txt": before})
    body = "\n".join(line.rstrip("\r") for line in diff.split("\n"))
    patcher(tmp_path).apply_envelope(envelope(f"*** Update File: f.txt\n{body}"))
    expected = apply_diff(before, body)
    newline = "\r\n" if "\r\n" in before else "\n"
    if not expected.endswith("\n"):  # Codex ends every updated file with a newline
        expected += newline
    assert (tmp_path / "f.txt").read_bytes() == expected.encode()


def test_the_envelope_tool_refuses_an_unfound_anchor(tmp_path: Path) -> None:
    before, diff = UNFOUND_ANCHOR
    write(tmp_path, {"f.txt": before})
    message = fails(
        lambda: patcher(tmp_path).apply_envelope(envelope(f"*** Update File: f.txt\n{diff}"))
    )
    assert message.startswith("Failed to find context 'nope' in f.txt")
    assert (tmp_path / "f.txt").read_text() == before


@pytest.mark.parametrize(("before", "diff"), SDK_FAILURES)
def test_failures_match_apply_diff(tmp_path: Path, before: str, diff: str) -> None:
    with pytest.raises(ValueError):
        apply_diff(before, diff)
    write(tmp_path, {"f.txt": before})
    message = fails(
        lambda: patcher(tmp_path).apply_operations(
            [{"type": "update_file", "path": "f.txt", "diff": diff}]
        )
    )
    assert "f.txt" in message and "Nothing was changed" in message
    assert (tmp_path / "f.txt").read_text() == before


@pytest.mark.parametrize("diff", CREATE_CASES)
def test_create_matches_apply_diff(tmp_path: Path, diff: str) -> None:
    output = patcher(tmp_path).apply_operations(
        [{"type": "create_file", "path": "new/f.txt", "diff": diff}]
    )
    assert output == "Created new/f.txt"
    assert (tmp_path / "new/f.txt").read_bytes() == apply_diff("", diff, mode="create").encode()


def test_create_refuses_a_line_without_plus(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        apply_diff("", "plain line", mode="create")
    message = fails(
        lambda: patcher(tmp_path).apply_operations(
            [{"type": "create_file", "path": "f.txt", "diff": "plain line"}]
        )
    )
    assert 'Invalid Add File Line 1: "plain line"' in message
    assert not (tmp_path / "f.txt").exists()


def test_a_stacked_anchor_that_is_missing_is_named(tmp_path: Path) -> None:
    write(tmp_path, {"f.txt": "class A\n    def run():\n        pass\n"})
    message = fails(
        lambda: patcher(tmp_path).apply_operations(
            [
                {
                    "type": "update_file",
                    "path": "f.txt",
                    "diff": "@@ class A\n@@     def walk():\n-        pass\n+        return",
                }
            ]
        )
    )
    assert message.startswith("Invalid Anchor 1")
    assert '@@ line "    def walk():" was not found after line 1' in message
    assert "The file from line 2:\n    2 |     def run():" in message


def _random_file(rng: random.Random) -> list[str]:
    words = ["alpha", "beta", "gamma", "delta", "", "  indented", "}", "return x", "x = 1  "]
    return [
        rng.choice(words) + (str(rng.randrange(6)) if rng.random() < 0.6 else "")
        for _ in range(rng.randrange(1, 40))
    ]


def _random_diff(rng: random.Random, lines: list[str]) -> str:
    """A plausible V4A diff of `lines`: hunks with context, removals and additions, in order."""
    out: list[str] = []
    index = 0
    while index < len(lines) and rng.random() < 0.8:
        start = rng.randrange(index, len(lines))
        anchor = rng.random() < 0.3 and start > 0
        out.append(f"@@ {lines[start - 1]}" if anchor else "@@")
        span = lines[start : start + rng.randrange(1, 6)]
        for line in span:
            roll = rng.random()
            if roll < 0.5:
                out.append(f" {line}")
            elif roll < 0.8:
                out.append(f"-{line}")
            else:
                out.append(f"+new {rng.randrange(100)}")
                out.append(f" {line}")
        if rng.random() < 0.3:
            out.append(f"+added {rng.randrange(100)}")
        index = start + len(span)
        if index >= len(lines) and rng.random() < 0.5:
            out.append("*** End of File")
            break
    return "\n".join(out)


def _mutate(rng: random.Random, diff: str) -> str:
    lines = diff.split("\n")
    for _ in range(rng.randrange(1, 3)):
        if not lines:
            break
        at = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.3:
            lines[at] = lines[at][:1] + "zz" + lines[at][1:]
        elif roll < 0.5:
            del lines[at]
        elif roll < 0.7:
            lines.insert(at, rng.choice(["@@", " ", "-", "+", "", "@@ nothing", "?"]))
        else:
            lines[at] = " " + lines[at].lstrip(" +-@")
    return "\n".join(lines)


def test_generated_diffs_agree_with_apply_diff(tmp_path: Path) -> None:
    """600 generated files and diffs (a third of them damaged): the same bytes, or both fail."""
    rng = random.Random(2611)
    tool = patcher(tmp_path)
    agreed_ok = agreed_error = 0
    for case in range(600):
        lines = _random_file(rng)
        ending = rng.choice(["\n", "\r\n"])
        before = ending.join(lines) + (ending if rng.random() < 0.7 else "")
        diff = _random_diff(rng, lines)
        if case % 3 == 0:
            diff = _mutate(rng, diff)
        if not diff.strip() or "***" in diff.replace("*** End of File", ""):
            continue
        try:
            expected: str | None = apply_diff(before, diff)
        except ValueError:
            expected = None
        write(tmp_path, {"f.txt": before})
        operation = {"type": "update_file", "path": "f.txt", "diff": diff}
        if expected is None:
            fails(lambda operation=operation: tool.apply_operations([operation]))  # type: ignore[misc]
            assert (tmp_path / "f.txt").read_bytes().decode() == before
            agreed_error += 1
        else:
            tool.apply_operations([operation])
            assert (tmp_path / "f.txt").read_bytes().decode() == expected, (before, diff)
            agreed_ok += 1
    assert agreed_ok > 300 and agreed_error > 50, (agreed_ok, agreed_error)
