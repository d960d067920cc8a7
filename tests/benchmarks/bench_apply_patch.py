"""toolwire-patch over stdio beside the Agents SDK's in-process `apply_diff`.

Run: `python -m tests.benchmarks.bench_apply_patch` from the repository root (`--quick` for a
short run). One run, ratios printed; it asserts nothing about time. The workload: a
5,000-line file and a 200-hunk V4A diff (each hunk: one line replaced between two context
lines), applied forwards and then backwards so every round starts from the same file.

- in process: `agents.apply_diff` on the text alone, and as an SDK editor would use it
  (read the file, apply, write it back);
- toolwire: one `tools/call` of `apply_patch_operations` (the same diff) and of
  `apply_patch` (the same hunks in a Codex envelope) to a `toolwire-patch` process over
  stdio, through the official `mcp` client: JSON-RPC both ways, parsing, matching, the
  atomic write.

Each figure is the median of the rounds; both ratios are printed. Target: the server within
2x the in-process editor.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from agents import apply_diff

QUICK = "--quick" in sys.argv
ROUNDS = 6 if QUICK else 30
LINES = 5000
HUNKS = 200


def workload() -> tuple[str, str, str]:
    """The file's text, the forward diff and the backward one."""
    lines = [f"    value_{n} = compute({n}, {'x' * (n % 9)!r})" for n in range(LINES)]
    forward: list[str] = []
    backward: list[str] = []
    step = LINES // HUNKS
    for hunk in range(HUNKS):
        at = hunk * step + step // 2
        edited = f"{lines[at]}  # edited {hunk}"
        for diff, old, new in ((forward, lines[at], edited), (backward, edited, lines[at])):
            diff += ["@@", f" {lines[at - 1]}", f"-{old}", f"+{new}", f" {lines[at + 1]}"]
    return "\n".join(lines) + "\n", "\n".join(forward), "\n".join(backward)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def in_process(path: Path, text: str, forward: str, backward: str) -> tuple[float, float]:
    bare: list[float] = []
    editor: list[float] = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        apply_diff(text, forward)
        bare.append(time.perf_counter() - started)
        for diff in (forward, backward):
            started = time.perf_counter()
            path.write_text(apply_diff(path.read_text(), diff))
            editor.append(time.perf_counter() - started)
    return median_ms(bare), median_ms(editor)


async def over_stdio(root: Path, forward: str, backward: str) -> tuple[float, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"]}
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "toolwire_patch", "--root", str(root)], env=env
    )

    def envelope(diff: str) -> str:
        return f"*** Begin Patch\n*** Update File: big.py\n{diff}\n*** End Patch"

    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def timed(call: Callable[[str], Awaitable[object]]) -> float:
            samples: list[float] = []
            for _ in range(ROUNDS):
                for diff in (forward, backward):
                    started = time.perf_counter()
                    result = await call(diff)
                    samples.append(time.perf_counter() - started)
                    assert not getattr(result, "isError", False), result
            return median_ms(samples)

        operations = await timed(
            lambda diff: session.call_tool(
                "apply_patch_operations",
                {"operations": [{"type": "update_file", "path": "big.py", "diff": diff}]},
            )
        )
        codex = await timed(
            lambda diff: session.call_tool("apply_patch", {"input": envelope(diff)})
        )
    return operations, codex


def main() -> None:
    text, forward, backward = workload()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        path = root / "big.py"
        path.write_text(text)
        bare, editor = in_process(path, text, forward, backward)
        assert path.read_text() == text
        operations, codex = asyncio.run(over_stdio(root, forward, backward))
        assert path.read_text() == text
    print(f"{LINES}-line file, {HUNKS} hunks, median of {ROUNDS} rounds")
    print(f"  agents.apply_diff, text only            {bare:8.2f} ms")
    print(f"  agents.apply_diff, read + apply + write {editor:8.2f} ms")
    for label, figure in (
        ("apply_patch_operations", operations),
        ("apply_patch (envelope)", codex),
    ):
        print(
            f"  toolwire-patch {label:<24} {figure:8.2f} ms  {figure / editor:.2f}x the editor, "
            f"{figure / bare:.2f}x apply_diff alone"
        )
    print("  (target: <= 2x the in-process editor)")


if __name__ == "__main__":
    main()
