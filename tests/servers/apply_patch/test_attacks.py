"""A hostile or careless client against both tools: paths out of the root, links, partial
failures, encodings and line endings, big files, bounds, and 1,000 malformed patches."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from tests.servers.apply_patch._support import envelope, fails, patcher, snapshot, write
from toolwire_patch.formats import from_envelope
from toolwire_patch.match import Deadline
from toolwire_patch.plan import Limits, plan
from toolwire_patch.workspace import RootsWorkspace, commit

from toolwire.paths import Roots


@pytest.fixture
def rooted(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    write(outside, {"secret.txt": "secret\n"})
    write(root, {"a.txt": "a\n", "sub/b.txt": "b\n"})
    return root, outside


def _both(root: Path, path: str, *, move_to: str | None = None) -> list[str]:
    """The errors of an update of `path` through both tools (each must fail)."""
    tool = patcher(root)
    patch = f"*** Update File: {path}\n" + (f"*** Move to: {move_to}\n" if move_to else "")
    operation: dict[str, str] = {"type": "update_file", "path": path, "diff": "@@\n-a\n+A"}
    if move_to:
        operation["move_to"] = move_to
    return [
        fails(lambda: tool.apply_envelope(envelope(patch + "@@\n-a\n+A"))),
        fails(lambda: tool.apply_operations([operation])),
    ]


@pytest.mark.parametrize("path", ["../outside/secret.txt", "sub/../../outside/secret.txt"])
def test_dot_dot_out_of_the_root(rooted: tuple[Path, Path], path: str) -> None:
    root, _ = rooted
    before = snapshot(root.parent)
    for message in _both(root, path):
        assert f"'{path}': it leads above the root" in message
    for kind, diff in (("create_file", "+x"), ("delete_file", None)):
        operations = [{"type": kind, "path": path, "diff": diff}]
        tool = patcher(root)
        assert "leads above the root" in fails(lambda: tool.apply_operations(operations))  # noqa: B023
    assert snapshot(root.parent) == before


def test_absolute_paths(rooted: tuple[Path, Path]) -> None:
    root, outside = rooted
    secret = str(outside / "secret.txt")
    for message in _both(root, secret):
        assert "it is outside the allowed directories" in message
    assert "outside the allowed" in fails(
        lambda: patcher(root).apply_envelope(envelope("*** Add File: /etc/passwd-x\n+x"))
    )
    assert (outside / "secret.txt").read_text() == "secret\n"
    patcher(root).apply_envelope(envelope(f"*** Update File: {root}/a.txt\n@@\n-a\n+A"))
    assert (root / "a.txt").read_text() == "A\n"


def test_symlinks_out_of_the_root(rooted: tuple[Path, Path]) -> None:
    root, outside = rooted
    (root / "out").symlink_to(outside)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    before = snapshot(root.parent)
    for path in ("out/secret.txt", "secret-link.txt"):
        for message in _both(root, path):
            assert "points outside the root" in message, message
    add = envelope("*** Add File: out/new.txt\n+x")
    assert "points outside the root" in fails(lambda: patcher(root).apply_envelope(add))
    delete = envelope("*** Delete File: out/secret.txt")
    assert "points outside the root" in fails(lambda: patcher(root).apply_envelope(delete))
    assert snapshot(root.parent) == before


def test_a_link_inside_the_root_is_followed(rooted: tuple[Path, Path]) -> None:
    root, _ = rooted
    (root / "alias.txt").symlink_to("sub/b.txt")
    patcher(root).apply_envelope(envelope("*** Update File: alias.txt\n@@\n-b\n+B"))
    assert (root / "sub/b.txt").read_text() == "B\n"
    assert (root / "alias.txt").is_symlink()


@pytest.mark.parametrize("target", ["../outside/moved.txt", "out/moved.txt", "/tmp/moved-away.txt"])
def test_a_move_onto_a_path_outside(rooted: tuple[Path, Path], target: str) -> None:
    root, outside = rooted
    (root / "out").symlink_to(outside)
    before = snapshot(root.parent)
    for message in _both(root, "a.txt", move_to=target):
        assert target in message and "Nothing was changed" in message
    assert snapshot(root.parent) == before
    assert not Path("/tmp/moved-away.txt").exists()


def test_a_hard_link_to_an_outside_file_is_replaced_not_written_through(
    rooted: tuple[Path, Path],
) -> None:
    root, outside = rooted
    os.link(outside / "secret.txt", root / "hard.txt")
    patcher(root).apply_envelope(envelope("*** Update File: hard.txt\n@@\n-secret\n+public"))
    assert (root / "hard.txt").read_text() == "public\n"
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_a_failure_in_the_last_file_changes_nothing(rooted: tuple[Path, Path]) -> None:
    root, _ = rooted
    write(root, {"c.txt": "c1\nc2\n"})
    before = snapshot(root)
    message = fails(
        lambda: patcher(root).apply_envelope(
            envelope(
                "*** Add File: new/n.txt\n+n\n*** Update File: a.txt\n@@\n-a\n+A\n"
                "*** Delete File: sub/b.txt\n*** Update File: c.txt\n@@\n-c3\n+C3"
            )
        )
    )
    assert "c.txt, hunk 1" in message
    assert snapshot(root) == before
    operations = [
        {"type": "create_file", "path": "new/n.txt", "diff": "+n"},
        {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+A"},
        {"type": "delete_file", "path": "sub/b.txt"},
        {"type": "update_file", "path": "c.txt", "diff": "@@\n-c3\n+C3"},
    ]
    assert "c.txt, hunk 1" in fails(lambda: patcher(root).apply_operations(operations))
    assert snapshot(root) == before


def test_a_file_changed_during_the_commit_rolls_everything_back(rooted: tuple[Path, Path]) -> None:
    root, _ = rooted
    write(root, {"c.txt": "c\n"})
    before = snapshot(root)
    workspace = RootsWorkspace(Roots([str(root)]))
    operations = from_envelope(
        envelope(
            "*** Add File: new/deep/n.txt\n+n\n*** Update File: a.txt\n@@\n-a\n+A\n"
            "*** Delete File: sub/b.txt\n*** Update File: c.txt\n@@\n-c\n+C"
        )
    )
    planned = plan(operations, workspace, Limits(), Deadline(None))
    (root / "c.txt").write_text("someone else\n")
    message = fails(lambda: commit(planned.changes, workspace))
    assert "c.txt changed on disk while the patch was being applied" in message
    after = snapshot(root)
    assert after.pop("c.txt")[1] == b"someone else\n"
    before.pop("c.txt")
    assert after == before  # no new directory, no staged or backup file left


def test_line_endings_bom_and_mode_are_kept(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
            "mixed.txt": b"one\r\ntwo\nthree\r\nfour\n",
            "bom.txt": b"\xef\xbb\xbfone\r\ntwo\r\n",
            "bare.txt": b"one\ntwo",
        },
    )
    (tmp_path / "crlf.txt").chmod(0o751)
    patcher(tmp_path).apply_envelope(
        envelope(
            "*** Update File: crlf.txt\n@@\n one\n-two\n+2\n+2b\n three\n"
            "*** Update File: mixed.txt\n@@\n one\n-two\n+2\n three\n-four\n+4\n"
            "*** Update File: bom.txt\n@@\n-one\n+1"
        )
    )
    assert (tmp_path / "crlf.txt").read_bytes() == b"one\r\n2\r\n2b\r\nthree\r\n"
    assert (tmp_path / "crlf.txt").stat().st_mode & 0o777 == 0o751
    assert (tmp_path / "mixed.txt").read_bytes() == b"one\r\n2\nthree\r\n4\n"
    assert (tmp_path / "bom.txt").read_bytes() == b"\xef\xbb\xbf1\r\ntwo\r\n"
    patcher(tmp_path).apply_operations(
        [
            {"type": "update_file", "path": "bare.txt", "diff": "@@\n-two\n+2"},
            {"type": "update_file", "path": "bom.txt", "diff": "@@\n 1\n-two\n+2"},
        ]
    )
    assert (tmp_path / "bare.txt").read_bytes() == b"one\n2"  # the SDK keeps a missing newline
    assert (tmp_path / "bom.txt").read_bytes() == b"\xef\xbb\xbf1\r\n2\r\n"


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    latin = "caf\u00e9\nna\u00efve\n".encode("latin-1")
    write(tmp_path, {"latin.txt": latin})
    for message in _both(tmp_path, "latin.txt"):
        assert "latin.txt is not UTF-8 text (byte 0xe9 at offset 3" in message
    assert (tmp_path / "latin.txt").read_bytes() == latin


def _big_file(lines: int) -> list[str]:
    return [f"    value_{n} = compute({n}, '{'x' * (n % 7)}')" for n in range(lines)]


def test_a_5000_line_file_with_200_hunks(tmp_path: Path) -> None:
    lines = _big_file(5000)
    write(tmp_path, {"big.py": "\n".join(lines) + "\n"})
    body = ["*** Update File: big.py"]
    expected = list(lines)
    for hunk in range(200):
        at = hunk * 25 + 10
        body += [
            "@@",
            f" {lines[at - 1]}",
            f"-{lines[at]}",
            f"+{lines[at]}  # {hunk}",
            f" {lines[at + 1]}",
        ]
        expected[at] = f"{lines[at]}  # {hunk}"
    out = patcher(tmp_path).apply_envelope(envelope("\n".join(body)))
    assert out.endswith("M big.py")
    assert (tmp_path / "big.py").read_text() == "\n".join(expected) + "\n"
    diff = "\n".join(line for line in body[1:])
    write(tmp_path, {"big.py": "\n".join(lines) + "\n"})
    patcher(tmp_path).apply_operations([{"type": "update_file", "path": "big.py", "diff": diff}])
    assert (tmp_path / "big.py").read_text() == "\n".join(expected) + "\n"


def test_bounds_are_named(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "a\n" * 100})
    big = envelope("*** Add File: x.txt\n" + "+x\n" * 100)
    assert "over the server's limit of 100 bytes (--max-patch-bytes)" in fails(
        lambda: patcher(tmp_path, max_patch_bytes=100).apply_envelope(big)
    )
    many = envelope("\n".join(f"*** Add File: f{n}.txt\n+x" for n in range(4)))
    assert "more than 3 files, the server's limit (--max-files); f3.txt" in fails(
        lambda: patcher(tmp_path, max_files=3).apply_envelope(many)
    )
    assert (
        "a.txt is 200 bytes, over the server's limit of 50 bytes per file (--max-file-bytes)"
        in fails(
            lambda: patcher(tmp_path, max_file_bytes=50).apply_envelope(
                envelope("*** Update File: a.txt\n@@\n-a\n+b")
            )
        )
    )
    assert "time limit (1e-09 s, --max-seconds)" in fails(
        lambda: patcher(tmp_path, max_seconds=1e-9).apply_envelope(
            envelope("*** Update File: a.txt\n@@\n-a\n+b")
        )
    )
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


# -- 1,000 malformed patches -----------------------------------------------------------------

_BREAKERS = [
    lambda rng: "*** Update File: data.txt\n@@\n-no such line\n+x",
    lambda rng: "*** Update File: data.txt\n@@\n line 3\n-line 4 \u00a7\n+x",
    lambda rng: (
        f"*** Update File: data.txt\n@@\n line {rng.randrange(40)}\n{rng.choice('?!#%&=')}junk"
    ),
    lambda rng: f"*** Update File: missing{rng.randrange(9)}.txt\n@@\n-a\n+b",
    lambda rng: f"*** Delete File: gone{rng.randrange(9)}.txt",
    lambda rng: f"*** Add File: ../escape{rng.randrange(9)}.txt\n+x",
    lambda rng: (
        f"*** Update File: data.txt\n*** Move to: ../../x{rng.randrange(9)}\n@@\n-line 1\n+x"
    ),
    lambda rng: "*** Update File: data.txt",
    lambda rng: f"*** Updat File: data.txt\n@@\n-line {rng.randrange(40)}\n+x",
    lambda rng: "*** Update File: data.txt\n@@\n-line 5\n+x\n@@ no such anchor\n-line 9\n+y",
    lambda rng: "*** Update File: data.txt\n@@\n-line 9\n+x\n@@\n-line 2\n+y",
    lambda rng: "*** Update File: data.txt\n@@\n-dup\n+x",
    lambda rng: "*** Delete File: dir",
    lambda rng: "*** Update File: latin.txt\n@@\n-x\n+y",
]


def _malformed_envelope(rng: random.Random) -> str:
    good = [
        f"*** Add File: new{rng.randrange(100)}.txt\n+fresh",
        f"*** Update File: data.txt\n@@\n-line {rng.randrange(1, 20)}\n+edited",
        "*** Delete File: victim.txt",
    ]
    parts = [*rng.sample(good, rng.randrange(0, 3)), rng.choice(_BREAKERS)(rng)]
    patch = envelope("\n".join(parts))
    roll = rng.random()
    if roll < 0.1:
        patch = patch.replace("*** End Patch", "")
    elif roll < 0.2:
        patch = patch.replace("*** Begin Patch", "*** Begin")
    return patch


def _malformed_operations(rng: random.Random) -> list[dict[str, object]]:
    good: list[dict[str, object]] = [
        {"type": "create_file", "path": f"new{rng.randrange(100)}.txt", "diff": "+fresh"},
        {
            "type": "update_file",
            "path": "data.txt",
            "diff": f"@@\n-line {rng.randrange(1, 20)}\n+e",
        },
        {"type": "delete_file", "path": "victim.txt"},
    ]
    bad: list[dict[str, object]] = [
        {"type": "update_file", "path": "data.txt", "diff": "@@\n-nothing like it\n+x"},
        {"type": "update_file", "path": "data.txt", "diff": f"@@\n line 1\n{rng.choice('?!#')}x"},
        {"type": "update_file", "path": "data.txt", "diff": "@@ a\n@@ b\n-line 1\n+x"},
        {"type": "update_file", "path": "data.txt"},
        {"type": "create_file", "path": "data.txt", "diff": "+exists already"},
        {"type": "create_file", "path": "n.txt", "diff": "no plus"},
        {"type": "create_file", "path": "", "diff": "+x"},
        {"type": "rename_file", "path": "data.txt"},
        {"type": "delete_file", "path": "../outside.txt"},
        {"type": "update_file", "path": "data.txt", "diff": "@@\n-line 1\n+x", "move_to": ""},
        {"type": "update_file", "path": "data.txt", "diff": "@@\n-line 1\n+x\n*** Update File: y"},
        {"type": "update_file", "path": "latin.txt", "diff": "@@\n-x\n+y"},
        {"type": "delete_file", "path": "dir"},
    ]
    chosen = rng.sample(good, rng.randrange(0, 3))
    chosen.append(rng.choice(bad))
    return chosen


def test_a_thousand_malformed_patches_each_fail_clearly_and_write_nothing(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "data.txt": "".join(f"line {n}\n" for n in range(40)) + "dup\ndup\n",
            "victim.txt": "v\n",
            "latin.txt": b"caf\xe9\n",
            "dir/inner.txt": "i\n",
        },
    )
    before = snapshot(tmp_path)
    tool = patcher(tmp_path)
    rng = random.Random(26)
    messages: set[str] = set()
    for case in range(1000):
        if case % 2:
            patch = _malformed_envelope(rng)
            message = fails(lambda patch=patch: tool.apply_envelope(patch))  # type: ignore[misc]
        else:
            operations = _malformed_operations(rng)
            message = fails(lambda ops=operations: tool.apply_operations(ops))  # type: ignore[misc]
        assert message.rstrip().endswith("Nothing was changed: fix the patch and send it again."), (
            message
        )
        assert len(message) > 60
        messages.add(message.splitlines()[0][:40])
    assert snapshot(tmp_path) == before
    assert len(messages) > 20  # many different failures, each with its own first line


def test_deleting_a_link_removes_the_link_not_its_target(rooted: tuple[Path, Path]) -> None:
    root, outside = rooted
    (root / "alias.txt").symlink_to("sub/b.txt")
    (root / "away.txt").symlink_to(outside / "secret.txt")
    dry = patcher(root).apply_envelope(envelope("*** Delete File: alias.txt"), dry_run=True)
    assert "--- a/alias.txt (a symbolic link, removed itself)\n+++ /dev/null" in dry
    patcher(root).apply_envelope(envelope("*** Delete File: alias.txt\n*** Delete File: away.txt"))
    assert not (root / "alias.txt").is_symlink() and not (root / "away.txt").is_symlink()
    assert (root / "sub/b.txt").read_text() == "b\n"
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "sub"]
