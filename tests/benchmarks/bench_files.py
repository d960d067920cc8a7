"""toolwire-files beside the reference filesystem server, over stdio, on one 10,000-file tree.

Run from the repository root (needs npm and Node 22, see scripts/install_node_tools.sh):

    .venv/bin/python -m tests.benchmarks.bench_files [--files 10000] [--spawns 5] [--reads 300]

Measured for each server, interleaved so both see the same moments of a shared machine:

1. spawn -> first `tools/list` reply (initialize, initialized, tools/list): median of
   --spawns fresh processes after one warm-up each.
2. `read_text_file` of a small file: p50 of --reads sequential calls on one process.
3. `search_files(root, "**/f*7.txt")` over the whole tree: median of 3 calls.
4. Content search for a word in every file: `search_file_contents` here; the reference has no
   such tool, so its figure is what a client must do instead (`search_files` for every file,
   then `read_multiple_files` in batches of 500, and matching the text itself): median of 3.

Prints each figure and the ratio reference / toolwire-files (above 1: toolwire-files is
faster). It checks that both servers return the same matches, never anything about time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from tests.benchmarks._files_peers import REFERENCE, REFERENCE_VERSION, Stdio, commands

PATTERN = "**/f*7.txt"
NEEDLE = "NEEDLE"


def make_tree(root: Path, files: int) -> None:
    """`files` text files in directories of 100, nested two deep; every 97th holds NEEDLE."""
    for i in range(files):
        directory = root / f"d{i // 1000:02}" / f"s{(i // 100) % 10}"
        directory.mkdir(parents=True, exist_ok=True)
        lines = [f"line {n} of file {i}: lorem ipsum dolor sit amet" for n in range(20)]
        if i % 97 == 0:
            lines[7] = f"here is the {NEEDLE} in file {i}"
        (directory / f"f{i:05}.txt").write_text("\n".join(lines) + "\n")


def spawn_to_list(argv: list[str]) -> float:
    started = time.perf_counter()
    server = Stdio(argv)
    try:
        server.handshake()
        reply = server.ask("tools/list", {})
        elapsed = time.perf_counter() - started
        assert reply["result"]["tools"], reply
        return elapsed
    finally:
        server.close()


def timed(server: Stdio, name: str, arguments: dict[str, object]) -> tuple[float, dict]:
    started = time.perf_counter()
    reply = server.call(name, arguments)
    elapsed = time.perf_counter() - started
    assert "result" in reply and not reply["result"].get("isError"), reply
    return elapsed, reply


def text(reply: dict) -> str:
    return str(reply["result"]["content"][0]["text"])


def names_found(reply: dict) -> set[str]:
    structured = reply["result"].get("structuredContent") or {}
    if "matches" in structured:
        return set(structured["matches"])
    return {line for line in text(reply).splitlines() if line.startswith("/")}


def content_search_ours(server: Stdio, root: Path) -> tuple[float, set[str]]:
    elapsed, reply = timed(server, "search_file_contents", {"path": str(root), "pattern": NEEDLE})
    return elapsed, {m["path"] for m in reply["result"]["structuredContent"]["matches"]}


def content_search_reference(server: Stdio, root: Path) -> tuple[float, set[str]]:
    started = time.perf_counter()
    _, listing = timed(server, "search_files", {"path": str(root), "pattern": "**/*.txt"})
    paths = sorted(names_found(listing))
    found: set[str] = set()
    for start in range(0, len(paths), 500):
        _, reply = timed(server, "read_multiple_files", {"paths": paths[start : start + 500]})
        for block in text(reply).split("\n---\n"):
            head, _, body = block.partition(":\n")
            if NEEDLE in body:
                found.add(head)
    return time.perf_counter() - started, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--spawns", type=int, default=5)
    parser.add_argument("--reads", type=int, default=300)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-files-") as scratch_name:
        scratch = Path(scratch_name)
        root = scratch / "tree"
        make_tree(root, options.files)
        argvs = commands(scratch, root)
        labels = list(argvs)
        figures: dict[str, dict[str, float]] = {label: {} for label in labels}

        spawns: dict[str, list[float]] = {label: [] for label in labels}
        for label in labels:
            spawn_to_list(argvs[label])  # warm-up
        for _ in range(options.spawns):
            for label in labels:
                spawns[label].append(spawn_to_list(argvs[label]))
        for label in labels:
            figures[label]["spawn -> tools/list (ms)"] = statistics.median(spawns[label]) * 1e3

        servers = {label: Stdio(argvs[label], timeout=300) for label in labels}
        try:
            for server in servers.values():
                server.handshake()
            small = str(root / "d00" / "s0" / "f00003.txt")
            reads: dict[str, list[float]] = {label: [] for label in labels}
            for label in labels:
                for _ in range(20):
                    timed(servers[label], "read_text_file", {"path": small})
            for _batch in range(options.reads // 50):
                for label in labels:
                    for _ in range(50):
                        reads[label].append(
                            timed(servers[label], "read_text_file", {"path": small})[0]
                        )
            for label in labels:
                figures[label]["read_text_file p50 (ms)"] = statistics.median(reads[label]) * 1e3

            matches: dict[str, set[str]] = {}
            searches: dict[str, list[float]] = {label: [] for label in labels}
            for _ in range(3):
                for label in labels:
                    elapsed, reply = timed(
                        servers[label], "search_files", {"path": str(root), "pattern": PATTERN}
                    )
                    searches[label].append(elapsed)
                    matches[label] = names_found(reply)
            assert matches["toolwire-files"] == matches["reference"], "search_files differ"
            assert len(matches["reference"]) == options.files // 10
            for label in labels:
                figures[label]["search_files, whole tree (ms)"] = (
                    statistics.median(searches[label]) * 1e3
                )

            grep = {"toolwire-files": content_search_ours, "reference": content_search_reference}
            contents: dict[str, list[float]] = {label: [] for label in labels}
            found: dict[str, set[str]] = {}
            for _ in range(3):
                for label in labels:
                    elapsed, found[label] = grep[label](servers[label], root)
                    contents[label].append(elapsed)
            expected = {p for p in matches["reference"] | found["reference"]}
            assert found["toolwire-files"] == found["reference"], "content searches differ"
            assert len(found["reference"]) == len(range(0, options.files, 97)), expected
            for label in labels:
                figures[label]["content search, whole tree (ms)"] = (
                    statistics.median(contents[label]) * 1e3
                )
        finally:
            for server in servers.values():
                server.close()

    width = max(len(metric) for metric in figures[labels[0]])
    print(
        f"{options.files} files; reference = {REFERENCE}@{REFERENCE_VERSION}; ratio = reference / ours"
    )
    print(f"{'':{width}}  {'toolwire-files':>14}  {'reference':>10}  {'ratio':>6}")
    for metric, ours in figures["toolwire-files"].items():
        theirs = figures["reference"][metric]
        print(f"{metric:{width}}  {ours:14.2f}  {theirs:10.2f}  {theirs / ours:5.2f}x")
    print(json.dumps({"figures": figures}, indent=None))


if __name__ == "__main__":
    main()
