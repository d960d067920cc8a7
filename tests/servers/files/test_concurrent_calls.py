"""Calls that change one file at the same moment, as a model's parallel tool calls arrive:
each append and each edit must land, and a hash checked by one edit must not pass a second
edit that read the same content."""

from __future__ import annotations

import gc
import hashlib
from pathlib import Path
from typing import Any

import anyio
from toolwire_files import server as files_server

from ._support import build, connected, make_tree

CALLS = 40


def _together(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = [{} for _ in calls]

    async def one(client: Any, index: int) -> None:
        results[index] = await client.call(*calls[index])

    async def main() -> None:
        async with connected(build(root)) as client, anyio.create_task_group() as group:
            for index in range(len(calls)):
                group.start_soon(one, client, index)

    anyio.run(main)
    return results


def test_appends_at_once_to_one_file_all_land(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "log.txt").write_text("start\n")
    calls = [("append_file", {"path": "log.txt", "content": f"entry {i}\n"}) for i in range(CALLS)]
    results = _together(root, calls)
    assert [r["isError"] for r in results] == [False] * CALLS
    lines = (root / "log.txt").read_text().splitlines()
    assert lines[0] == "start"
    assert sorted(lines[1:]) == sorted(f"entry {i}" for i in range(CALLS))
    gc.collect()
    assert len(files_server._LOCKS._locks) == 0  # a file's lock goes with its last holder


def test_edits_at_once_to_one_file_all_land(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "e.txt").write_text("".join(f"line {i}\n" for i in range(CALLS)))
    calls = [
        ("edit_file", {"path": "e.txt", "edits": [{"oldText": f"line {i}\n", "newText": "X\n"}]})
        for i in range(CALLS)
    ]
    results = _together(root, calls)
    assert [r["isError"] for r in results] == [False] * CALLS
    assert (root / "e.txt").read_text() == "X\n" * CALLS


def test_two_edits_checked_against_one_hash_apply_once(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "h.txt").write_text("one\ntwo\n")
    digest = hashlib.sha256(b"one\ntwo\n").hexdigest()
    calls = [
        (
            "edit_file",
            {
                "path": "h.txt",
                "edits": [{"oldText": old, "newText": "NEW"}],
                "expectedHash": digest,
            },
        )
        for old in ("one", "two")
    ]
    results = _together(root, calls)
    assert sorted(r["isError"] for r in results) == [False, True]
    refused = next(r for r in results if r["isError"])
    assert "'h.txt' changed since it was read" in refused["content"][0]["text"]
    assert (root / "h.txt").read_text() in ("NEW\ntwo\n", "one\nNEW\n")


def test_a_move_racing_an_append_never_leaves_the_content_twice(tmp_path: Path) -> None:
    """Whichever comes first, the content ends in one file: an append whose write landed
    after a move of its file made the old name again, holding the whole content."""
    root = make_tree(tmp_path)
    body = "x" * 1_000_000 + "\n"
    twice = []

    async def main() -> None:
        async with connected(build(root)) as client:
            for i in range(30):
                (root / "f.txt").write_text(body)
                async with anyio.create_task_group() as group:
                    group.start_soon(
                        client.call, "append_file", {"path": "f.txt", "content": "tail\n"}
                    )
                    group.start_soon(
                        client.call, "move_file", {"source": "f.txt", "destination": f"m{i}.txt"}
                    )
                old = (root / "f.txt").read_text() if (root / "f.txt").exists() else ""
                moved = (root / f"m{i}.txt").read_text()
                # Append then move: all in the moved file; move then append: a new, short file.
                assert (moved, old) in ((body + "tail\n", ""), (body, "tail\n")), i
                twice.append(body in old)
                (root / f"m{i}.txt").unlink()

    anyio.run(main)
    assert twice == [False] * 30
