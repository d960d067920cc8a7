"""`toolwire.paths`: every way out of a root is refused, every way inside works, on the disk."""

from __future__ import annotations

import os
import stat
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from toolwire.paths import PathError, PathNotFoundError, PathOutsideError, Root, Roots

SECRET = b"outside secret"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """base/root (the root), base/root_evil and base/outside (with a secret), base/root'."""
    base = tmp_path
    root = base / "root"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"alpha\n")
    (root / "sub" / "b.txt").write_bytes(b"beta\n")
    (root / "sub" / "deep" / "c.txt").write_bytes(b"gamma\n")
    for sibling in ("root_evil", "outside", "root'", "root "):
        (base / sibling).mkdir()
        (base / sibling / "secret.txt").write_bytes(SECRET)
    return root


def outside_untouched(root: Path) -> None:
    base = root.parent
    for sibling in ("root_evil", "outside", "root'", "root "):
        assert sorted(os.listdir(base / sibling)) == ["secret.txt"], sibling
        assert (base / sibling / "secret.txt").read_bytes() == SECRET


def test_reads_inside_by_relative_and_absolute_paths(tree: Path) -> None:
    with Root(tree) as root:
        assert root.read_bytes("a.txt") == b"alpha\n"
        assert root.read_bytes("sub/deep/c.txt") == b"gamma\n"
        assert root.read_bytes(str(tree / "sub" / "b.txt")) == b"beta\n"
        assert root.read_bytes("sub/../a.txt") == b"alpha\n"
        assert root.read_bytes("./sub//deep/./c.txt") == b"gamma\n"
        assert root.resolve("sub/deep/../b.txt") == "sub/b.txt"
        assert root.absolute("") == str(tree)
        assert root.absolute("sub/x") == str(tree / "sub" / "x")


@pytest.mark.parametrize(
    "path",
    [
        "..",
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "sub/deep/../../../root_evil/secret.txt",
        "/etc/passwd",
        "{base}/root_evil/secret.txt",
        "{base}/root'/secret.txt",
        "{base}/root /secret.txt",
        "{base}/root/../outside/secret.txt",
        "{base}/roo/secret.txt",
        "{base}",
    ],
)
def test_traversal_and_prefix_siblings_are_outside(tree: Path, path: str) -> None:
    path = path.format(base=tree.parent)
    with Root(tree) as root:
        with pytest.raises(PathOutsideError) as caught:
            root.read_bytes(path)
        assert repr(path) in str(caught.value)
        with pytest.raises(PathOutsideError):
            root.write_bytes(path, b"x")
    outside_untouched(tree)


def test_nul_and_non_strings_are_refused(tree: Path) -> None:
    with Root(tree) as root:
        with pytest.raises(PathError, match="NUL byte"):
            root.read_bytes("a.txt\x00.png")
        with pytest.raises(PathError, match="must be a string"):
            root.read_bytes(b"a.txt")  # type: ignore[arg-type]
    with pytest.raises(PathError, match="NUL"):
        Root(str(tree) + "\x00")


def test_a_lone_surrogate_is_refused_by_name_and_undecodable_bytes_are_reachable(
    tree: Path,
) -> None:
    (tree / "sub" / os.fsdecode(b"raw\xff")).write_bytes(b"raw")
    with Root(tree) as root:
        attempts = [
            lambda: root.read_bytes("\ud800.txt"),
            lambda: root.write_bytes("sub/\ud800", b"x"),
            lambda: root.mkdir("\udfff/x"),
            lambda: root.rename("a.txt", "\ud800"),
            lambda: root.stat("sub/\ud800"),
            lambda: Roots([root]).locate(f"{tree}/\ud800"),
        ]
        for attempt in attempts:
            with pytest.raises(
                PathError, match=r"holds '\\ud[89a-f][0-9a-f]{2}', which no file name"
            ):
                attempt()
        # A name Python decoded from bytes that are not UTF-8 names that file again.
        assert root.read_bytes("sub/raw\udcff") == b"raw"
    with pytest.raises(PathError, match="which no file name can hold"):
        Root(str(tree) + "/\ud800")
    assert sorted(os.listdir(tree)) == ["a.txt", "sub"]


def test_a_path_longer_than_path_max_is_refused_before_any_lookup(tree: Path) -> None:
    """Each component costs a system call or two: a megabyte of `sub/..` took the event loop
    a second per call; the system's own limit (4096 bytes) bounds the work instead."""
    at_limit = "./" * ((4096 - len("a.txt")) // 2) + "a.txt"
    assert len(at_limit) <= 4096
    over = "sub/../" * 600 + "a.txt"
    with Root(tree) as root:
        assert root.read_bytes(at_limit) == b"alpha\n"
        for attempt in (
            lambda: root.read_bytes(over),
            lambda: root.write_bytes(over, b"x"),
            lambda: Roots([root]).locate(f"{tree}/{over}"),
            lambda: root.read_bytes("é" * 2049),  # counted in bytes, not characters
        ):
            with pytest.raises(PathError, match=r"bytes long; a path may have 4096$") as caught:
                attempt()
            assert len(str(caught.value)) < 300  # the path is shown cut
    assert (tree / "a.txt").read_bytes() == b"alpha\n"


def test_tilde_spaces_and_quotes_are_plain_names(tree: Path) -> None:
    with Root(tree) as root:
        root.write_bytes("~/x", b"1", create_parents=True)
        root.write_bytes("a.txt ", b"2")
        root.write_bytes("a.txt'", b"3")
        root.write_bytes('"a.txt"', b"4")
        assert (tree / "~" / "x").read_bytes() == b"1"
        assert (tree / "a.txt ").read_bytes() == b"2"
        assert (tree / "a.txt'").read_bytes() == b"3"
        assert (tree / '"a.txt"').read_bytes() == b"4"
        assert (tree / "a.txt").read_bytes() == b"alpha\n"
    outside_untouched(tree)


def test_nfc_and_nfd_twins_stay_distinct(tree: Path) -> None:
    nfc = unicodedata.normalize("NFC", "café")
    nfd = unicodedata.normalize("NFD", "café")
    with Root(tree) as root:
        root.write_bytes(nfc, b"composed")
        root.write_bytes(nfd, b"decomposed")
        assert root.read_bytes(nfc) == b"composed"
        assert root.read_bytes(nfd) == b"decomposed"
    composed = tree.parent / unicodedata.normalize("NFC", "rooté")
    twin = tree.parent / unicodedata.normalize("NFD", "rooté")
    composed.mkdir()
    twin.mkdir()
    (twin / "secret.txt").write_bytes(SECRET)
    with Root(composed) as root:
        with pytest.raises(PathOutsideError):
            root.read_bytes(str(twin / "secret.txt"))
        with pytest.raises(PathNotFoundError):
            root.read_bytes("secret.txt")


def test_links_inside_are_followed(tree: Path) -> None:
    (tree / "to_b").symlink_to("sub/b.txt")
    (tree / "abs_to_b").symlink_to(tree / "sub" / "b.txt")
    (tree / "sub" / "up").symlink_to("..")
    (tree / "dirlink").symlink_to("sub/deep")
    with Root(tree) as root:
        assert root.read_bytes("to_b") == b"beta\n"
        assert root.read_bytes("abs_to_b") == b"beta\n"
        assert root.read_bytes("sub/up/a.txt") == b"alpha\n"
        assert root.read_bytes("dirlink/c.txt") == b"gamma\n"
        assert root.resolve("dirlink/c.txt") == "sub/deep/c.txt"
        assert root.resolve("to_b", follow=False) == "to_b"
        root.write_bytes("to_b", b"through\n")
        assert (tree / "sub" / "b.txt").read_bytes() == b"through\n"
        assert (tree / "to_b").is_symlink()


@pytest.mark.parametrize(
    "target",
    ["../outside/secret.txt", "{base}/outside/secret.txt", "../outside", "{base}/root_evil", "/"],
)
def test_links_out_are_refused_for_every_operation(tree: Path, target: str) -> None:
    link = tree / "out"
    link.symlink_to(target.format(base=tree.parent))
    with Root(tree) as root:
        for path in ("out", "out/secret.txt"):
            with pytest.raises(PathOutsideError, match=r"points outside|above the root"):
                root.read_bytes(path)
            with pytest.raises(PathOutsideError):
                root.write_bytes(path, b"pwned")
            with pytest.raises(PathOutsideError):
                root.stat(path)
        with pytest.raises(PathOutsideError):
            root.write_bytes("out/new.txt", b"pwned", create_parents=True)
        with pytest.raises(PathOutsideError):
            root.mkdir("out/newdir")
        with pytest.raises(PathOutsideError):
            root.list_directory("out")
        with pytest.raises(PathOutsideError):
            root.rename("a.txt", "out/secret.txt", overwrite=True)
        # the link itself can be removed or moved: its target is not touched
        root.rename("out", "moved_link")
        root.delete("moved_link")
    outside_untouched(tree)
    assert (tree / "a.txt").read_bytes() == b"alpha\n"


def test_a_dangling_link_is_written_only_when_its_target_is_inside(tree: Path) -> None:
    (tree / "dangling_in").symlink_to("sub/created.txt")
    (tree / "dangling_out").symlink_to(tree.parent / "outside" / "created.txt")
    (tree / "dangling_rel_out").symlink_to("../outside/created.txt")
    with Root(tree) as root:
        root.write_bytes("dangling_in", b"made")
        assert (tree / "sub" / "created.txt").read_bytes() == b"made"
        for name in ("dangling_out", "dangling_rel_out"):
            with pytest.raises(PathOutsideError):
                root.write_bytes(name, b"pwned")
            with pytest.raises(PathOutsideError):
                root.write_bytes(name, b"pwned", exclusive=True)
    outside_untouched(tree)


def test_loops_end_with_an_error(tree: Path) -> None:
    (tree / "loop_a").symlink_to("loop_b")
    (tree / "loop_b").symlink_to("loop_a")
    (tree / "self").symlink_to("self/x")
    with Root(tree) as root:
        for path in ("loop_a", "loop_a/x", "self", "self/y"):
            with pytest.raises(PathError, match="too many symbolic links"):
                root.read_bytes(path)
            with pytest.raises(PathError, match="too many symbolic links"):
                root.write_bytes(path, b"x")


def test_fifos_devices_and_sockets_are_never_opened(tree: Path) -> None:
    os.mkfifo(tree / "fifo")
    (tree / "fifo_link").symlink_to("fifo")
    with Root(tree) as root:
        for path in ("fifo", "fifo_link"):
            with pytest.raises(PathError, match="FIFO"):
                root.read_bytes(path)
            with pytest.raises(PathError, match="FIFO"):
                root.write_bytes(path, b"x")
        assert stat.S_ISFIFO(os.lstat(tree / "fifo").st_mode)
        try:
            os.mknod(tree / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))
        except PermissionError:
            pytest.skip("mknod needs privileges here")
        with pytest.raises(PathError, match="a device"):
            root.read_bytes("zero")
        with pytest.raises(PathError, match="a device"):
            root.open_file("zero")


def test_hard_links_are_read_only_when_allowed_and_never_written_through(tree: Path) -> None:
    secret = tree.parent / "outside" / "secret.txt"
    os.link(secret, tree / "hard")
    with Root(tree, allow_hard_links=False) as root:
        with pytest.raises(PathError, match="hard links"):
            root.read_bytes("hard")
    with Root(tree) as root:
        assert root.read_bytes("hard") == SECRET
        root.write_bytes("hard", b"replaced")
    assert (tree / "hard").read_bytes() == b"replaced"
    assert secret.read_bytes() == SECRET


def test_writes_are_atomic_and_keep_the_mode(tree: Path) -> None:
    target = tree / "script.sh"
    target.write_bytes(b"old")
    target.chmod(0o751)
    inode = target.stat().st_ino
    with Root(tree) as root:
        root.write_bytes("script.sh", b"new")
        root.write_bytes("made/on/the/way.txt", b"deep", create_parents=True)
        with pytest.raises(PathNotFoundError, match="'missing' on its way does not exist"):
            root.write_bytes("missing/x.txt", b"x")
        with pytest.raises(PathError, match="already exists"):
            root.write_bytes("script.sh", b"x", exclusive=True)
        with pytest.raises(PathError, match="is a directory"):
            root.write_bytes("sub", b"x")
        with pytest.raises(PathError, match="not a directory"):
            root.write_bytes("a.txt/x", b"x")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert target.stat().st_ino != inode
    assert (tree / "made" / "on" / "the" / "way.txt").read_bytes() == b"deep"
    leftovers = [name for name in os.listdir(tree) if name.endswith(".tmp")]
    assert leftovers == []


def test_a_long_non_ascii_name_is_written_in_place(tree: Path) -> None:
    name = "日" * 80  # 240 bytes: a valid name, too long to copy whole into a temporary one
    (tree / name).write_bytes(b"old")
    with Root(tree) as root:
        root.write_bytes(name, b"new")
        root.write_bytes("é" * 127, b"made", exclusive=True)
    assert (tree / name).read_bytes() == b"new"
    assert (tree / ("é" * 127)).read_bytes() == b"made"
    assert [n for n in os.listdir(tree) if n.endswith(".tmp")] == []


def test_read_only_roots_refuse_every_change(tree: Path) -> None:
    before = sorted(p.name for p in tree.rglob("*"))
    with Root(tree, read_only=True) as root:
        assert root.read_bytes("a.txt") == b"alpha\n"
        for change in (
            lambda: root.write_bytes("a.txt", b"x"),
            lambda: root.mkdir("new"),
            lambda: root.delete("a.txt"),
            lambda: root.rename("a.txt", "b.txt"),
            lambda: root.open_directory("new", create=True),
        ):
            with pytest.raises(PathError, match="read-only"):
                change()
    assert sorted(p.name for p in tree.rglob("*")) == before


def test_mkdir_delete_rename_list_and_walk(tree: Path) -> None:
    with Root(tree) as root:
        root.mkdir("n1/n2")
        root.mkdir("n1/n2")
        with pytest.raises(PathError, match="already exists"):
            root.mkdir("n1/n2", exist_ok=False)
        with pytest.raises(PathError, match="already exists"):
            root.mkdir("a.txt")
        root.rename("a.txt", "n1/a.txt")
        with pytest.raises(PathError, match="already exists"):
            root.rename("sub/b.txt", "n1/a.txt")
        root.rename("sub/b.txt", "n1/a.txt", overwrite=True)
        with pytest.raises(PathNotFoundError):
            root.rename("nothing", "n1/z")
        assert [e.name for e in root.list_directory("n1")] == ["a.txt", "n2"]
        assert [e.kind for e in root.list_directory("n1")] == ["file", "directory"]
        with pytest.raises(PathError, match="is a directory"):
            root.delete("n1/n2")
        root.delete("n1/n2", directory=True)
        root.delete("n1/a.txt")
        with pytest.raises(PathNotFoundError):
            root.delete("n1/a.txt")
        with pytest.raises(PathError, match="root"):
            root.delete("")
        walked = [(rel, [e.name for e in entries]) for rel, entries in root.walk()]
        assert walked == [
            ("", ["n1", "sub"]),
            ("n1", []),
            ("sub", ["deep"]),
            ("sub/deep", ["c.txt"]),
        ]
        assert [rel for rel, _ in root.walk(max_depth=1)] == ["", "n1", "sub"]


def test_walk_never_enters_links(tree: Path) -> None:
    (tree / "sub" / "up").symlink_to("..")
    (tree / "out").symlink_to(tree.parent / "outside")
    with Root(tree) as root:
        seen = [rel for rel, _ in root.walk()]
    assert seen == ["", "sub", "sub/deep"]


def test_open_directory_and_directory_for_a_working_directory(tree: Path) -> None:
    (tree / "out").symlink_to(tree.parent / "outside")
    with Root(tree) as root:
        fd = root.open_directory("sub/deep")
        try:
            assert sorted(os.listdir(fd)) == ["c.txt"]
        finally:
            os.close(fd)
        assert root.directory("sub") == str(tree / "sub")
        with pytest.raises(PathOutsideError):
            root.directory("out")
        with pytest.raises(PathError, match="not a directory"):
            root.directory("a.txt")
        with pytest.raises(PathNotFoundError):
            root.directory("nope")
        os.close(root.open_directory("made/here", create=True))
        assert (tree / "made" / "here").is_dir()


def test_subroots_and_roots(tree: Path) -> None:
    other = tree.parent / "outside"
    with Root(tree) as root:
        sub = root.subroot("sub")
        assert sub.path == str(tree / "sub")
        with pytest.raises(PathOutsideError):
            sub.read_bytes("../a.txt")
        sub.close()
        with pytest.raises(PathOutsideError):
            root.subroot("..")
    roots = Roots([tree, tree / "sub"])
    try:
        assert roots.locate(str(tree / "sub" / "b.txt"))[0].path == str(tree / "sub")
        assert roots.locate(str(tree / "a.txt"))[1] == "a.txt"
        assert roots.locate("a.txt")[0].path == str(tree)
        with pytest.raises(PathOutsideError, match="outside the allowed directories"):
            roots.locate(str(other / "secret.txt"))
        with pytest.raises(PathOutsideError, match="outside"):
            roots.locate(str(tree.parent / "root_evil" / "secret.txt"))
    finally:
        roots.close()
    with pytest.raises(PathOutsideError, match="no directory is allowed"):
        Roots([]).locate("a.txt")


def test_a_root_given_through_a_link_accepts_both_spellings(tree: Path) -> None:
    alias = tree.parent / "alias"
    alias.symlink_to(tree)
    with Root(alias) as root:
        assert root.path == str(tree)
        assert root.read_bytes(str(alias / "a.txt")) == b"alpha\n"
        assert root.read_bytes(str(tree / "a.txt")) == b"alpha\n"


def test_a_parent_swapped_for_a_link_never_leads_outside(tree: Path) -> None:
    """One thread swaps `sub` for a link to outside and back while reads and writes run."""
    base = tree.parent
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                os.rename(tree / "sub", tree / "sub.real")
                os.symlink(base / "outside", tree / "sub")
                os.unlink(tree / "sub")
                os.rename(tree / "sub.real", tree / "sub")
            except OSError:
                pass

    (base / "outside" / "b.txt").write_bytes(SECRET)
    swapper = threading.Thread(target=swap)
    swapper.start()
    leaked = 0
    try:
        with Root(tree) as root:
            for i in range(500):
                try:
                    if i % 2:
                        data = root.read_bytes("sub/b.txt")
                        leaked += data == SECRET
                    else:
                        root.write_bytes("sub/w.txt", b"written")
                except PathError:
                    pass
    finally:
        stop.set()
        swapper.join()
    assert leaked == 0
    assert sorted(os.listdir(base / "outside")) == ["b.txt", "secret.txt"]
    assert (base / "outside" / "b.txt").read_bytes() == SECRET


def test_open_file_by_name_in_an_open_directory(tree: Path) -> None:
    (tree / "sub" / "link").symlink_to("b.txt")
    os.mkfifo(tree / "sub" / "fifo")
    with Root(tree) as root:
        fd = root.open_directory("sub")
        try:
            with root.open_file("b.txt", directory=fd) as file:
                assert file.read() == b"beta\n"
            for name, reason in (
                ("link", "a symbolic link"),
                ("fifo", "FIFO"),
                ("deep", "a directory"),
                ("../a.txt", "one name"),
                ("..", "one name"),
            ):
                with pytest.raises(PathError, match=reason):
                    root.open_file(name, directory=fd)
            with pytest.raises(PathNotFoundError):
                root.open_file("missing", directory=fd)
            with pytest.raises(PathError, match="NUL byte"):
                root.open_file("b.txt\x00", directory=fd)
            with pytest.raises(PathError, match="must be a string"):
                root.open_file(b"b.txt", directory=fd)  # type: ignore[arg-type]
        finally:
            os.close(fd)


def test_listings_can_be_bounded(tree: Path) -> None:
    for i in range(50):
        (tree / "sub" / f"n{i:02}").write_text("")
    with Root(tree) as root:
        few = root.list_directory("sub", limit=10)
        assert len(few) == 10 and [e.name for e in few] == sorted(e.name for e in few)
        walked = dict(root.walk("sub", limit=5))
        assert all(len(entries) <= 5 for entries in walked.values())


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd (Linux)")
def test_a_root_nobody_closes_releases_its_descriptor_when_collected(tmp_path: Path) -> None:
    # A server's directory resources hold a Root for the server's life; servers made and
    # dropped (a test suite makes thousands) must not pile up directory descriptors.
    import gc

    from toolwire import Server

    (tmp_path / "a.txt").write_text("a")
    before = _open_descriptors()
    for n in range(40):
        server = Server(f"s{n}")
        server.add_directory_resources(tmp_path, "docs://")
        Root(tmp_path)  # dropped at once
        del server
    gc.collect()
    # At most as many as before: collecting may close what other tests left, never more.
    assert _open_descriptors() <= before


def test_close_then_collection_closes_once(tmp_path: Path) -> None:
    import gc

    root = Root(tmp_path)
    held = root.fileno()
    root.close()
    reused = os.open(tmp_path, os.O_RDONLY)  # may take the number the root had
    try:
        del root
        gc.collect()
        os.fstat(reused)  # still open: collecting the closed root closed nothing else
    finally:
        os.close(reused)
    assert held >= 0


def test_a_rename_without_overwrite_never_replaces_a_file_that_appears_meanwhile(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rival creates the destination right after any look at it, as another process could
    # between a check and a rename: the rename must then fail, not replace the rival's file.
    from toolwire import paths

    looked = paths._lstat
    rivals: list[str] = []

    def look_then_rival(name: str, dir_fd: int) -> os.stat_result | None:
        seen = looked(name, dir_fd)
        if name == "moved.txt" and seen is None:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, dir_fd=dir_fd)
            os.write(fd, b"the rival's")
            os.close(fd)
            rivals.append(name)
        return seen

    monkeypatch.setattr(paths, "_lstat", look_then_rival)
    with Root(tree) as root:
        try:
            root.rename("a.txt", "moved.txt")
        except PathError as refused:
            assert "already exists" in str(refused)
    if rivals:  # the rename looked first: it must have been refused, both files whole
        assert (tree / "moved.txt").read_bytes() == b"the rival's"
        assert (tree / "a.txt").read_bytes() == b"alpha\n"
    else:  # moved in one step, without a look that left room for a rival
        assert (tree / "moved.txt").read_bytes() == b"alpha\n"
        assert not (tree / "a.txt").exists()


@pytest.mark.parametrize("one_step", [True, False], ids=["renameat2", "check-then-rename"])
def test_a_rename_without_overwrite_refuses_an_existing_file_or_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch, one_step: bool
) -> None:
    from toolwire import paths

    if not one_step:  # a system without renameat2 checks first
        monkeypatch.setattr(paths, "_renameat2", lambda: None)
    (tree / "empty").mkdir()
    with Root(tree) as root:
        with pytest.raises(PathError, match="already exists"):
            root.rename("a.txt", "sub/b.txt")
        with pytest.raises(PathError, match="already exists"):
            root.rename("sub/deep", "empty")
        root.rename("sub/deep", "deeper")
        root.rename("a.txt", "deeper/a.txt")
    assert (tree / "sub" / "b.txt").read_bytes() == b"beta\n"
    assert (tree / "deeper" / "a.txt").read_bytes() == b"alpha\n"
    assert (tree / "deeper" / "c.txt").read_bytes() == b"gamma\n"
    assert not (tree / "a.txt").exists() and (tree / "empty").is_dir()


def _snapshot(directory: Path) -> list[tuple[str, bytes | None]]:
    return sorted(
        (str(path.relative_to(directory)), None if path.is_dir() else path.read_bytes())
        for path in directory.rglob("*")
    )


def test_a_protected_directory_inside_a_root_is_never_changed_through_it(tree: Path) -> None:
    kept = tree / "sub" / "kept"
    (kept / "inner").mkdir(parents=True)
    (kept / "k.txt").write_bytes(b"keep")
    os.symlink("sub/kept", tree / "link_kept")
    (tree / "empty").mkdir()
    before = _snapshot(kept)
    with Root(tree) as root, Root(kept, read_only=True) as ro, Root(tree / "empty") as empty:
        assert root.protect(ro) is True
        with Root(tree.parent / "outside") as elsewhere:
            assert root.protect(elsewhere) is False  # not inside: nothing changes
        assert empty.protect(ro) is False
        changes = [
            lambda: root.write_bytes("sub/kept/k.txt", b"x"),
            lambda: root.write_bytes("sub/kept/new.txt", b"x"),
            lambda: root.write_bytes("link_kept/k.txt", b"x"),
            lambda: root.write_bytes(str(tree / "sub" / "deep" / ".." / "kept" / "n"), b"x"),
            lambda: root.write_bytes("nothing/../sub/kept/n", b"x", create_parents=True),
            lambda: root.write_bytes("sub/kept/inner/a/b", b"x", create_parents=True),
            lambda: root.mkdir("sub/kept/made"),
            lambda: root.mkdir("link_kept/inner/made"),
            lambda: root.delete("sub/kept/k.txt"),
            lambda: root.delete("sub/kept/inner", directory=True),
            lambda: root.rename("sub/kept/k.txt", "moved.txt"),
            lambda: root.rename("a.txt", "sub/kept/a.txt"),
            lambda: root.rename("sub/kept", "elsewhere"),
            lambda: root.rename("sub", "sub2"),
            lambda: root.rename("empty", "sub/kept", overwrite=True),
            lambda: root.open_directory("sub/kept/new", create=True),
            lambda: root.subroot("sub").write_bytes("kept/k.txt", b"x"),
            lambda: root.subroot("sub/kept").write_bytes("k.txt", b"x"),
        ]
        for number, change in enumerate(changes):
            with pytest.raises(PathError, match="read-only directory") as caught:
                change()
            assert str(kept) in str(caught.value), number
        # Beside it, everything still works.
        root.write_bytes("sub/b.txt", b"changed")
        root.mkdir("sub/deep/made")
        root.rename("sub/deep/made", "sub/made")
        root.delete("sub/made", directory=True)
    assert _snapshot(kept) == before
    assert (tree / "sub" / "b.txt").read_bytes() == b"changed"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: Root(5), "Root directory must be a path, not int"),
        (lambda d: Root(None), "Root directory must be a path, not NoneType"),
        (lambda d: Root(d, read_only="no"), "Root read_only must be True or False, not 'no'"),
        (lambda d: Root(d, read_only=None), "Root read_only must be True or False, not None"),
        (
            lambda d: Root(d, allow_hard_links="no"),
            "Root allow_hard_links must be True or False, not 'no'",
        ),
        (lambda d: Root(d, allow_hard_links=0), "Root allow_hard_links must be True or False"),
        (Roots, "Roots takes a list of directories, not str"),
        (lambda d: Roots(Path(d)), "Roots takes a list of directories, not PosixPath"),
        (lambda d: Roots(3), "Roots takes a list of directories, not int"),
    ],
)
def test_a_root_option_of_the_wrong_kind_is_refused_by_name(
    make: Callable[[str], object], message: str, tmp_path: Path
) -> None:
    """`allow_hard_links="no"` is truthy and allowed them; `Roots("/srv/data")` was read as
    its characters, and the first of them, `/`, opened the whole disk as a root; a number
    for a directory failed inside `os.fspath`, naming nothing."""
    with pytest.raises(TypeError) as refused:
        make(str(tmp_path))
    assert str(refused.value).startswith(message)
