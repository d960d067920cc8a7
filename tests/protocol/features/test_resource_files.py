"""`add_directory_resources`: a directory served read-only, and never a byte from outside it.

The tree built for these tests has a sentinel file next to the served root; every refusal is
checked by name, and thousands of fuzzed URIs are read while an audit hook records every file
the process opens: none may lie outside the root, and the sentinel's text never comes back.
"""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.protocol.features.resource_files import DirectoryResources
from toolwire.protocol.wire.jsonrpc import ProtocolError
from toolwire.server import Server

from ..harness import handshake, modern

SENTINEL = "SENTINEL-outside-the-root-7f3a"
PREFIX = "file:///docs/"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """base/outside/secret.txt (the sentinel), base/root/... (served)."""
    base = tmp_path_factory.mktemp("tree")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SENTINEL)
    (base / "secret.txt").write_text(SENTINEL)
    root = base / "root"
    (root / "guide").mkdir(parents=True)
    (root / "readme.md").write_text("# Read me\n")
    (root / "guide" / "intro.txt").write_text("Welcome.")
    (root / "guide" / "data.json").write_text('{"a": 1}')
    (root / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (root / "blob.bin").write_bytes(bytes(range(256)))
    (root / "odd name %?#.txt").write_text("odd")
    (root / "ünï.txt").write_text("unicode name")
    (root / ".env").write_text("TOKEN=hidden")
    (root / "big.txt").write_text("x" * 2048)
    os.symlink(outside / "secret.txt", root / "link_out.txt")
    os.symlink(outside, root / "dir_out")
    os.symlink(root / "readme.md", root / "link_in.md")
    os.mkfifo(root / "pipe")
    return root


def _server(root: Path, **options: Any) -> Server:
    server = Server("files")
    server.add_directory_resources(root, PREFIX, max_bytes=1024, **options)
    return server


def _read(server: Server, uri: str) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        with anyio.fail_after(10):
            return await server.read_resource(uri)

    return anyio.run(run)


def _refusal(server: Server, uri: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as refused:
        _read(server, uri)
    return refused.value


def test_files_are_read_as_text_or_blob(tree: Path) -> None:
    server = _server(tree)
    assert _read(server, PREFIX + "readme.md") == [
        {"uri": PREFIX + "readme.md", "mimeType": "text/markdown", "text": "# Read me\n"}
    ]
    assert _read(server, PREFIX + "guide/intro.txt")[0]["text"] == "Welcome."
    assert _read(server, PREFIX + "guide/data.json")[0]["mimeType"] == "application/json"
    png = _read(server, PREFIX + "picture.png")[0]
    assert png["mimeType"] == "image/png"
    assert base64.b64decode(png["blob"]) == b"\x89PNG\r\n\x1a\n\x00\x00"
    blob = _read(server, PREFIX + "blob.bin")[0]
    assert base64.b64decode(blob["blob"]) == bytes(range(256))
    assert _read(server, PREFIX + "link_in.md")[0]["text"] == "# Read me\n"  # a link inside
    encoded = PREFIX + "odd%20name%20%25%3F%23.txt"
    assert _read(server, encoded)[0]["text"] == "odd"
    assert _read(server, PREFIX + "%C3%BCn%C3%AF.txt")[0]["text"] == "unicode name"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../secret.txt", "it has a '..' path segment"),
        ("%2e%2e/secret.txt", "it has a '..' path segment"),
        ("%2E%2E%2Fsecret.txt", "it has a '..' path segment"),
        ("guide/../../secret.txt", "it has a '..' path segment"),
        ("./readme.md", "it has a '.' path segment"),
        ("%2Fetc%2Fpasswd", "it is an absolute path"),
        ("guide//intro.txt", "it has an empty path segment"),
        ("guide%5C..%5C..%5Csecret.txt", "it holds a backslash"),
        ("readme.md%00.png", "it holds a NUL byte"),
        (".env", "it names a hidden file or directory"),
        ("link_out.txt", "it leads outside the directory (a symbolic link)"),
        ("dir_out/secret.txt", "it leads outside the directory (a symbolic link)"),
        ("big.txt", "the file has 2048 bytes, more than the 1024 served"),
    ],
)
def test_anything_leaving_the_root_is_refused_naming_why(
    tree: Path, path: str, reason: str
) -> None:
    refused = _refusal(_server(tree), PREFIX + path)
    assert refused.code == -32602
    assert refused.message.startswith("Refused resource URI 'file:///docs/")
    assert refused.message.endswith(reason)
    assert refused.data == {"uri": PREFIX + path}
    assert SENTINEL not in refused.message


@pytest.mark.parametrize("path", ["missing.txt", "guide", "guide/nope/x", "pipe", "readme.md/x"])
def test_a_path_inside_that_names_no_file_is_not_found(tree: Path, path: str) -> None:
    refused = _refusal(_server(tree), PREFIX + path)
    assert refused.message == f"Resource not found: {PREFIX}{path}"


def test_uris_outside_the_prefix_are_not_the_directorys(tree: Path) -> None:
    server = _server(tree)
    for uri in ["file:///docs", "file:///doc/readme.md", "file:///DOCS/readme.md", "readme.md"]:
        assert _refusal(server, uri).message == f"Resource not found: {uri}"
    assert _refusal(server, PREFIX + "readme.md?x=1").message.startswith("Resource not found")


def test_hidden_files_on_request(tree: Path) -> None:
    server = _server(tree, include_hidden=True)
    assert _read(server, PREFIX + ".env")[0]["text"] == "TOKEN=hidden"
    assert _refusal(server, PREFIX + "..").message.endswith("it has a '..' path segment")


def test_the_listing_shows_servable_files_only(tree: Path) -> None:
    server = _server(tree)

    async def listed() -> list[dict[str, Any]]:
        async with handshake(server) as peer:
            return list((await peer.request(1, "resources/list"))["result"]["resources"])

    resources = anyio.run(listed)
    names = [item["name"] for item in resources]
    assert names == [
        "big.txt",
        "blob.bin",
        "link_in.md",
        "odd name %?#.txt",
        "picture.png",
        "readme.md",
        "ünï.txt",
        "guide/data.json",
        "guide/intro.txt",
    ]
    by_name = {item["name"]: item for item in resources}
    assert by_name["readme.md"] == {
        "uri": PREFIX + "readme.md",
        "name": "readme.md",
        "mimeType": "text/markdown",
        "size": 10,
    }
    # every listed URI reads back (the big file is listed but refused by max_bytes)
    for item in resources:
        if item["name"] != "big.txt":
            assert _read(server, item["uri"])[0]["uri"] == item["uri"]


def test_the_listing_is_bounded(tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    directory = DirectoryResources(tree, PREFIX, max_listed=2)
    assert [entry.uri for entry in directory.list_files()] == [
        PREFIX + "big.txt",
        PREFIX + "blob.bin",
    ]
    assert "listing only the first 2 files" in caplog.text


def test_templates_list_shows_the_directory_and_modern_reads_work(tree: Path) -> None:
    server = _server(tree)

    async def exchange() -> tuple[Any, Any]:
        async with modern(server) as peer:
            from ..harness import meta

            templates = await peer.request(1, "resources/templates/list", {"_meta": meta()})
            read = await peer.request(
                2, "resources/read", {"_meta": meta(), "uri": PREFIX + "../secret.txt"}
            )
            return templates["result"]["resourceTemplates"], read["error"]

    templates, error = anyio.run(exchange)
    assert templates == [{"uriTemplate": PREFIX + "{+path}", "name": "root"}]
    assert error["code"] == -32602 and "'..' path segment" in error["message"]


@pytest.mark.parametrize(
    ("root", "prefix", "message"),
    [
        ("/definitely/not/here", PREFIX, "is not a directory"),
        (None, "file:///docs", "must end with '/'"),
        (None, "file:///{x}/", "must end with '/' and hold no '{' or '}'"),
    ],
)
def test_bad_directory_options(tree: Path, root: str | None, prefix: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Server("s").add_directory_resources(root or tree, prefix)


# ---------------------------------------------------------------- fuzzing

_PIECES = [
    "..", ".", "%2e%2e", "%2E%2E", "%2e", ".%2e", "%252e%252e", "/", "//", "%2f", "%2F",
    "\\", "%5c", "%5C", "%00", "\x00", "secret.txt", "outside", "link_out.txt", "dir_out",
    "readme.md", "guide", "intro.txt", ".env", "~", "%", "%zz", "?", "#", ";", ":", "C:",
    "file:", "\u2024\u2024", "\uff0e\uff0e", "%c0%ae%c0%ae", "%e0%80%ae", "pipe", " ",
]  # fmt: skip


def _opened_outside(root: Path) -> Iterator[list[str]]:
    """Record every file opened (audit event "open") whose real path is outside `root`."""
    escapes: list[str] = []
    real_root = os.path.realpath(root)
    state = {"on": True}

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not state["on"] or event != "open" or not args or not isinstance(args[0], str | bytes):
            return
        path = os.fsdecode(args[0])
        real = os.path.realpath(path)
        if "tree" in path and not (real == real_root or real.startswith(real_root + os.sep)):
            escapes.append(path)

    sys.addaudithook(hook)  # hooks cannot be removed: this one switches itself off
    sentinel = root.parent / "outside" / "secret.txt"
    os.close(os.open(sentinel, os.O_RDONLY))  # the hook sees what it must see
    assert escapes == [str(sentinel)]
    escapes.clear()
    try:
        yield escapes
    finally:
        state["on"] = False


@pytest.fixture(scope="module")
def escapes(tree: Path) -> Iterator[list[str]]:
    yield from _opened_outside(tree)


_uris = st.one_of(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("/".join),
    st.text(max_size=40),
).flatmap(
    lambda path: st.sampled_from(
        [
            PREFIX + path,
            path,
            "file://" + path,
            PREFIX + "guide/" + path,
            PREFIX + "dir_out/" + path,
        ]
    )
)


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(uri=_uris)
def test_fuzzed_uris_never_read_outside_the_root(tree: Path, escapes: list[str], uri: str) -> None:
    server = _server(tree)
    directory = next(iter(server.resource_registry.templates.values())).reader
    assert isinstance(directory, DirectoryResources)
    try:
        contents = _read(server, uri)
    except ProtocolError as refused:
        assert refused.code in (-32002, -32602), refused
        assert SENTINEL not in refused.message
    else:
        for item in contents:
            assert SENTINEL not in item.get("text", "")
            assert SENTINEL.encode() not in base64.b64decode(item.get("blob", ""))
    assert escapes == []


def test_a_file_name_that_is_not_utf8_is_left_out_of_the_listing(tmp_path: Path) -> None:
    # Failed before the fix: quoting the name's lone surrogates raised, and the whole
    # resources/list became -32603, hiding every other file.
    (tmp_path / "plain.txt").write_text("plain")
    with open(os.fsencode(tmp_path) + b"/stray\xff.txt", "wb") as file:
        file.write(b"stray")
    (tmp_path / "sub\udcfe").mkdir()
    (tmp_path / "sub\udcfe" / "inner.txt").write_text("inner")
    server = _server(tmp_path)

    async def listed() -> dict[str, Any]:
        async with handshake(server) as peer:
            return await peer.request(1, "resources/list")

    reply = anyio.run(listed)
    assert [item["name"] for item in reply["result"]["resources"]] == ["plain.txt"]
    assert _refusal(server, PREFIX + "stray%FF.txt").code == -32002


@pytest.fixture
def linked_to_hidden(tmp_path: Path) -> Path:
    """root/.env, root/.git/config, and visible names linking to them; root/shown.txt."""
    root = tmp_path / "root"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("token = git-secret")
    (root / ".env").write_text("TOKEN=env-secret")
    (root / "shown.txt").write_text("shown")
    os.symlink(root / ".env", root / "settings.txt")  # a visible name for a dotfile
    os.symlink(".git", root / "repo")  # a visible directory that is a hidden one
    os.symlink("repo/config", root / "config.txt")  # through two links
    os.symlink("shown.txt", root / "alias.txt")  # a link to a visible file stays served
    return root


def _listed_names(server: Server) -> list[str]:
    async def listed() -> list[dict[str, Any]]:
        async with handshake(server) as peer:
            return list((await peer.request(1, "resources/list"))["result"]["resources"])

    return [item["name"] for item in anyio.run(listed)]


def test_a_link_to_a_hidden_file_is_neither_listed_nor_read(linked_to_hidden: Path) -> None:
    """Hidden is judged on the name asked for and on the file it leads to: a visible link to
    `.env` or into `.git` is refused as the hidden path itself is, and the listing leaves out
    what a read refuses. Before the fix `settings.txt` was listed and served `.env`."""
    server = _server(linked_to_hidden)
    for path in ("settings.txt", "repo/config", "config.txt"):
        refused = _refusal(server, PREFIX + path)
        assert refused.code == -32602, path
        assert refused.message == (
            f"Refused resource URI '{PREFIX}{path}': it leads to a hidden file or directory"
            " (a symbolic link)"
        )
        assert "secret" not in refused.message
    assert _read(server, PREFIX + "alias.txt")[0]["text"] == "shown"
    assert _listed_names(server) == ["alias.txt", "shown.txt"]


def test_with_hidden_files_included_links_to_them_are_served(linked_to_hidden: Path) -> None:
    server = _server(linked_to_hidden, include_hidden=True)
    assert _read(server, PREFIX + "settings.txt")[0]["text"] == "TOKEN=env-secret"
    assert _read(server, PREFIX + "config.txt")[0]["text"] == "token = git-secret"
    assert _listed_names(server) == [
        ".env",
        "alias.txt",
        "config.txt",
        "settings.txt",
        "shown.txt",
        ".git/config",
    ]
