"""Client roots narrow the command-line directories, never widen them, are re-read on every
call, revoke access when empty, and are not used in the 2026-07-28 era."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from ._support import SECRET, build, connected, make_tree, structured

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def _text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def _allowed(client: Any) -> list[str]:
    return list(structured(await client.call("list_allowed_directories", {}))["directories"])


async def test_without_roots_the_command_line_applies(root: Path) -> None:
    async with connected(build(root)) as client:
        assert await _allowed(client) == [str(root)]
        assert client.roots_asked == 0


async def test_a_root_inside_narrows(root: Path) -> None:
    sub = root / "sub"
    async with connected(build(root), roots=[sub.as_uri()]) as client:
        assert await _allowed(client) == [str(sub)]
        narrowed = await client.call("read_text_file", {"path": str(root / "a.txt")})
        assert narrowed["isError"] and "Access denied" in _text(narrowed)
        relative = await client.call("read_text_file", {"path": "b.txt"})
        assert structured(relative)["content"] == "inside b\n"
        climbing = await client.call("read_text_file", {"path": "../a.txt"})
        assert climbing["isError"] and "above the root" in _text(climbing)
        wrote = await client.call("write_file", {"path": str(root / "new.txt"), "content": "x"})
        assert wrote["isError"]
    assert not (root / "new.txt").exists()


@pytest.mark.parametrize("wider", ["/", "{base}", "{base}/"])
async def test_a_wider_root_never_widens(root: Path, wider: str) -> None:
    uri = Path(wider.format(base=root.parent)).as_uri()
    async with connected(build(root), roots=[uri]) as client:
        assert await _allowed(client) == [str(root)]
        outside = await client.call(
            "read_text_file", {"path": str(root.parent / "outside" / "secret.txt")}
        )
        assert outside["isError"] and SECRET not in _text(outside)


def _uris(root: Path, kind: str) -> list[str]:
    base = root.parent
    return {
        "empty": [],
        "nowhere": ["file:///nowhere/at/all"],
        "https": ["https://example.com" + str(root)],
        "other host": ["file://otherhost" + str(root)],
        "outside": [(base / "outside").as_uri()],
        "prefix sibling": [(base / "root_evil").as_uri()],
        "link out": [(root / "link_out").as_uri()],
        "not a file URI": [str(root)],
    }[kind]


@pytest.mark.parametrize(
    "kind",
    [
        "empty",
        "nowhere",
        "https",
        "other host",
        "outside",
        "prefix sibling",
        "link out",
        "not a file URI",
    ],
)
async def test_roots_outside_or_empty_revoke_access(root: Path, kind: str) -> None:
    os.symlink(root.parent / "outside", root / "link_out")
    async with connected(build(root), roots=_uris(root, kind)) as client:
        assert await _allowed(client) == []
        refused = await client.call("read_text_file", {"path": "a.txt"})
        assert refused["isError"] and "no directory is allowed" in _text(refused)
        wrote = await client.call("write_file", {"path": "new.txt", "content": "x"})
        assert wrote["isError"]
    assert not (root / "new.txt").exists()


async def test_changed_roots_are_read_again_on_the_next_call(root: Path) -> None:
    async with connected(build(root), roots=[root.as_uri()]) as client:
        assert await _allowed(client) == [str(root)]
        client.roots = [(root / "sub").as_uri()]
        assert await _allowed(client) == [str(root / "sub")]
        client.roots = []
        assert await _allowed(client) == []
        client.roots = [root.as_uri(), (root / "sub" / "deep").as_uri()]
        assert await _allowed(client) == [str(root), str(root / "sub" / "deep")]
        assert client.roots_asked == 4


async def test_calls_racing_a_roots_change_see_one_set_or_the_other(root: Path) -> None:
    sets = [[root.as_uri()], [(root / "sub").as_uri()]]
    expected = [[str(root)], [str(root / "sub")]]
    seen: list[list[str]] = []
    async with connected(build(root), roots=sets[0]) as client:

        async def flip() -> None:
            for i in range(200):
                client.roots = sets[i % 2]
                await anyio.sleep(0)

        async def ask() -> None:
            for _ in range(50):
                seen.append(await _allowed(client))

        async with anyio.create_task_group() as group:
            group.start_soon(flip)
            for _ in range(4):
                group.start_soon(ask)
    assert len(seen) == 200
    assert all(item in expected for item in seen)


async def test_the_2026_era_uses_the_command_line_alone(root: Path) -> None:
    async with connected(build(root), roots=[(root / "sub").as_uri()], modern=True) as client:
        assert await _allowed(client) == [str(root)]
        read = await client.call("read_text_file", {"path": "a.txt"})
        assert structured(read)["content"] == "alpha\nbeta\ngamma\n"
        assert client.roots_asked == 0


async def test_an_empty_list_keeps_the_command_line_when_told(root: Path) -> None:
    async with connected(build(root, client_roots="nonempty"), roots=[]) as client:
        assert await _allowed(client) == [str(root)]
        client.roots = [(root / "sub").as_uri()]
        assert await _allowed(client) == [str(root / "sub")]


async def test_client_roots_can_be_ignored(root: Path) -> None:
    async with connected(build(root, client_roots="ignore"), roots=[]) as client:
        assert await _allowed(client) == [str(root)]
        assert client.roots_asked == 0


async def test_revocation_says_how_to_keep_the_directories(root: Path) -> None:
    async with connected(build(root), roots=[]) as client:
        refused = await client.call("read_text_file", {"path": "a.txt"})
    assert "--client-roots nonempty" in _text(refused)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
async def test_client_roots_hold_a_bounded_number_of_directories_open(root: Path) -> None:
    """Each client root holds a directory open: one answer listing one root 5,000 times, many
    answers naming the same directories, or 33 distinct roots must not run the server out of
    descriptors (before, 5,000 copies held 5,000 descriptors, kept by the cache)."""
    sub = root / "sub"
    for number in range(40):
        (sub / f"d{number}").mkdir()
    async with connected(build(root), roots=[sub.as_uri()] * 5000) as client:
        before = _open_descriptors()
        assert await _allowed(client) == [str(sub)]
        for first in range(40):  # more answers than the cache keeps, sharing directories
            client.roots = [(sub / f"d{(first + i) % 40}").as_uri() for i in range(8)]
            assert len(await _allowed(client)) == 8
        client.roots = [f"{sub.as_uri()}/{'./' * i}" for i in range(30)]  # one, spelled anew
        assert await _allowed(client) == [str(sub)]
        assert _open_descriptors() - before <= 41
        client.roots = [(sub / f"d{number}").as_uri() for number in range(33)]
        refused = await client.call("read_text_file", {"path": "b.txt"})
        assert refused["isError"]
        assert "the client lists 33 roots; this server takes at most 32" in _text(refused)
        # A directory replaced at its path is a new root, not the old one kept open.
        (sub / "d0").rename(root / "old_d0")
        (sub / "d0").mkdir()
        (sub / "d0" / "new.txt").write_text("new")
        client.roots = [(sub / "d0").as_uri()]
        read = await client.call("read_text_file", {"path": "new.txt"})
        assert structured(read)["content"] == "new"
