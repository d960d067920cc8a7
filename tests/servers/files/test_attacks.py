"""The files server attacked as a hostile client would: thousands of generated paths through
every kind of tool, and races that swap a parent or a source for a link to outside.

Pass means: no reply ever holds the outside secret, nothing outside the root is created,
changed, renamed or removed, and every call answers (each is bounded by `fail_after`).
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import anyio
import pytest

from ._support import SECRET, add_traps, build, connected, make_tree, outside_snapshot

pytestmark = pytest.mark.slow


def generated_paths(root: Path) -> list[str]:
    """At least 2,000 paths: traversal, prefixes, links, odd names, in many spellings."""
    base = root.parent
    heads = [
        "",
        "./",
        "sub/",
        "sub/deep/",
        "sub/up/",
        "sub/up/sub/up/",
        "../",
        "../../",
        "sub/../../",
        "sub/deep/../../../",
        "./../",
        "link_out/",
        "link_out_rel/",
        "link_slash/",
        "loop_a/",
        "%2e%2e/",
        "..%2f",
        "~/",
        "~root/",
        "C:\\",
        "C:/",
        "\\\\server\\share\\",
        "file://",
        f"{root}/",
        f"{root}/../",
        f"{root}/sub/../../",
        f"{root}//./",
        f"{base}/root_evil/",
        f"{base}/root'/",
        f"{base}/root /",
        f"{base}/root\t/",
        f"{base}/ROOT/",
        f"{base}/outside/",
        f"{base}/",
        "/",
        "/etc/",
        "/proc/self/root/",
        f"/proc/self/root{root}/../",
        unicodedata.normalize("NFD", "é") + "/../../",
    ]
    middles = ["", "outside/", "root_evil/", "sub/", "../outside/", "link_out/", "sub/up/../../"]
    tails = [
        "secret.txt",
        "link_file_out",
        "hardlink.txt",
        "dangling_out",
        "dangling_out_rel",
        "fifo",
        "zero",
        "link_zero",
        "loop_b",
        "new.txt",
        "secret.txt\x00.png",
        "secret.txt'",
        "secret.txt ",
        '"secret.txt"',
        "",
        ".",
        "..",
        "...",
    ]
    paths = {
        head + middle + tail for head, middle, tail in itertools.product(heads, middles, tails)
    }
    paths.discard("")
    return sorted(paths)


@pytest.fixture
def trapped(tmp_path: Path) -> Path:
    root = make_tree(tmp_path)
    add_traps(root)
    return root


CALLS = [
    ("read_text_file", lambda p: {"path": p}),
    ("read_text_file", lambda p: {"path": p, "tail": 2}),
    ("read_media_file", lambda p: {"path": p}),
    ("get_file_info", lambda p: {"path": p}),
    ("list_directory", lambda p: {"path": p}),
    ("write_file", lambda p: {"path": p, "content": "PWNED"}),
    ("append_file", lambda p: {"path": p, "content": "PWNED"}),
    ("edit_file", lambda p: {"path": p, "edits": [{"oldText": SECRET, "newText": "PWNED"}]}),
    ("create_directory", lambda p: {"path": p + "/made"}),
    ("copy_file", lambda p: {"source": p, "destination": "copied.txt"}),
    ("copy_file", lambda p: {"source": "a.txt", "destination": p}),
    ("search_file_contents", lambda p: {"path": p, "pattern": "SECRET"}),
]


def test_two_thousand_generated_paths_never_reach_outside(trapped: Path) -> None:
    base = trapped.parent
    paths = generated_paths(trapped)
    assert len(paths) >= 2000
    before = outside_snapshot(base)
    answered = errors = 0

    async def attack() -> None:
        nonlocal answered, errors
        async with connected(build(trapped)) as client:
            for i, path in enumerate(paths):
                name, arguments = CALLS[i % len(CALLS)]
                with anyio.fail_after(10):
                    result = await client.call(name, arguments(path))
                answered += 1
                errors += bool(result.get("isError"))
                assert SECRET not in json.dumps(result), (name, path, result)
                if (trapped / "copied.txt").exists():
                    assert SECRET not in (trapped / "copied.txt").read_text(errors="replace")
                    (trapped / "copied.txt").unlink()
            # every path through the main reading tool too, in one more pass
            for path in paths:
                with anyio.fail_after(10):
                    result = await client.call("read_text_file", {"path": path})
                assert SECRET not in json.dumps(result), (path, result)

    anyio.run(attack)
    assert answered == len(paths)
    assert errors > len(paths) // 2  # most are refused; the rest stayed inside the root
    assert outside_snapshot(base) == before
    for dirpath, _, files in os.walk(trapped, followlinks=False):
        for name in files:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink() and name != "hardlink.txt":
                assert SECRET not in path.read_text(errors="replace"), path


def test_fifos_devices_and_loops_answer_at_once(trapped: Path) -> None:
    async def attack() -> list[dict[str, Any]]:
        out = []
        async with connected(build(trapped)) as client:
            for path in ("fifo", "zero", "link_zero", "loop_a", "sub/up/fifo"):
                for name in ("read_text_file", "read_media_file", "search_file_contents"):
                    arguments = (
                        {"path": path, "pattern": "x"}
                        if name.startswith("search")
                        else {"path": path}
                    )
                    with anyio.fail_after(5):
                        out.append(await client.call(name, arguments))
        return out

    for result in anyio.run(attack):
        if result["isError"]:
            text = result["content"][0]["text"]
            assert any(
                word in text
                for word in (
                    "FIFO",
                    "a device",
                    "too many symbolic links",
                    "outside",
                    "not a regular",
                )
            ), text
        else:
            assert result["structuredContent"]["matches"] == []


def test_hard_links_are_refused_by_default_and_never_written_through(trapped: Path) -> None:
    secret = trapped.parent / "outside" / "secret.txt"

    async def attack() -> list[dict[str, Any]]:
        async with connected(build(trapped)) as client:
            return [
                await client.call("read_text_file", {"path": "hardlink.txt"}),
                await client.call("write_file", {"path": "hardlink.txt", "content": "PWNED"}),
            ]

    read, wrote = anyio.run(attack)
    assert read["isError"] and "several hard links" in read["content"][0]["text"]
    assert wrote["isError"] is False
    assert secret.read_text() == SECRET
    assert (trapped / "hardlink.txt").read_text() == "PWNED"


def _swapper(
    stop: threading.Event, real: Path, aside: Path, target: Path, swaps: list[int]
) -> threading.Thread:
    """Swap `real` for a link to `target` and back until `stop`; the short sleeps let the
    server's calls (on its event loop) land in both states."""

    def swap() -> None:
        while not stop.is_set():
            try:
                os.rename(real, aside)
                os.symlink(target, real)
                time.sleep(0.0002)
                os.unlink(real)
                os.rename(aside, real)
                swaps.append(1)
                time.sleep(0.001)
            except OSError:
                pass

    return threading.Thread(target=swap, daemon=True)


def test_a_parent_swapped_for_a_link_during_500_reads_and_writes(trapped: Path) -> None:
    base = trapped.parent
    (base / "outside" / "b.txt").write_text(SECRET)
    before = outside_snapshot(base)
    stop = threading.Event()
    swaps: list[int] = []
    swapper = _swapper(stop, trapped / "sub", trapped / "sub.aside", base / "outside", swaps)
    leaks: list[Any] = []
    outcomes = {"ok": 0, "refused": 0}

    async def race() -> None:
        async with connected(build(trapped)) as client:
            swapper.start()
            # 500 calls, and more (5,000 at most) until the swapper, which shares the GIL with
            # the server, has swapped 10 times: a loaded machine may give it few turns.
            i = 0
            while i < 500 or (len(swaps) < 10 and i < 5000):
                i += 1
                if i % 2:
                    call = ("read_text_file", {"path": "sub/b.txt"})
                else:
                    call = ("write_file", {"path": "sub/w.txt", "content": f"write {i}"})
                with anyio.fail_after(10):
                    result = await client.call(*call)
                outcomes["refused" if result["isError"] else "ok"] += 1
                if SECRET in json.dumps(result):
                    leaks.append(result)

    try:
        anyio.run(race)
    finally:
        stop.set()
        swapper.join(10)
    assert leaks == []
    assert outcomes["ok"] + outcomes["refused"] >= 500
    assert len(swaps) >= 10
    assert outcomes["ok"] > 0  # calls between swaps went through, inside
    assert outside_snapshot(base) == before


def test_move_file_whose_source_is_swapped_mid_call(trapped: Path) -> None:
    base = trapped.parent
    before = outside_snapshot(base)
    source = trapped / "src.txt"
    source.write_text("inside")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                os.unlink(source)
                os.symlink(base / "outside" / "secret.txt", source)
                os.unlink(source)
                source.write_text("inside")
            except OSError:
                pass

    swapper = threading.Thread(target=swap, daemon=True)

    async def race() -> None:
        async with connected(build(trapped)) as client:
            swapper.start()
            for i in range(200):
                with anyio.fail_after(10):
                    result = await client.call(
                        "move_file", {"source": "src.txt", "destination": f"moved/{i}.txt"}
                    )
                assert SECRET not in json.dumps(result)
                if i == 0:
                    os.makedirs(trapped / "moved", exist_ok=True)

    try:
        anyio.run(race)
    finally:
        stop.set()
        swapper.join(10)
    assert outside_snapshot(base) == before
    for moved in (trapped / "moved").iterdir():
        # a moved link still points outside, but it is a link inside the root: reading it
        # through the server is refused like any other link out
        assert moved.is_symlink() or moved.read_text() == "inside"
