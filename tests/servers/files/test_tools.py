"""Each tool of the files server, through a real protocol session, checked on the disk."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest
from toolwire_files._access import Limits

from ._support import build, connected, make_tree, structured, text_of

READ_ONLY_TOOLS = {
    "read_text_file",
    "read_file",
    "read_media_file",
    "read_multiple_files",
    "list_directory",
    "list_directory_with_sizes",
    "directory_tree",
    "search_files",
    "search_file_contents",
    "get_file_info",
    "list_allowed_directories",
}
WRITE_TOOLS = {
    "write_file",
    "append_file",
    "edit_file",
    "create_directory",
    "move_file",
    "copy_file",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


def run(server: Any, body: Any, **options: Any) -> Any:
    async def go() -> Any:
        async with connected(server, **options) as client:
            return await body(client)

    return anyio.run(go)


def test_every_tool_is_listed_with_true_annotations_and_output_schemas(root: Path) -> None:
    tools = run(build(root), lambda c: c.tools())
    assert set(tools) == READ_ONLY_TOOLS | WRITE_TOOLS
    for name, tool in tools.items():
        hints = tool["annotations"]
        assert hints["openWorldHint"] is False
        assert hints["readOnlyHint"] is (name in READ_ONLY_TOOLS), name
        schema = tool["outputSchema"]
        assert schema["type"] == "object" and "content" in schema["properties"], name
    assert tools["write_file"]["annotations"]["destructiveHint"] is True
    assert tools["create_directory"]["annotations"]["destructiveHint"] is False
    assert tools["copy_file"]["annotations"]["destructiveHint"] is False
    props = tools["edit_file"]["inputSchema"]["properties"]
    assert set(props) == {"path", "edits", "dryRun", "expectedHash"}
    assert set(tools["read_text_file"]["inputSchema"]["properties"]) == {
        "path",
        "head",
        "tail",
        "offset",
        "limit",
    }
    assert set(tools["move_file"]["inputSchema"]["required"]) == {"source", "destination"}


def test_read_only_lists_only_read_only_tools(root: Path) -> None:
    tools = run(build(root, read_only=True), lambda c: c.tools())
    assert set(tools) == READ_ONLY_TOOLS


def test_reads_whole_and_by_lines(root: Path) -> None:
    async def body(c: Any) -> list[Any]:
        return [
            await c.call("read_text_file", {"path": "a.txt"}),
            await c.call("read_text_file", {"path": str(root / "a.txt"), "head": 2}),
            await c.call("read_text_file", {"path": "a.txt", "tail": 1}),
            await c.call("read_text_file", {"path": "a.txt", "tail": 2}),
            await c.call("read_text_file", {"path": "a.txt", "offset": 2, "limit": 1}),
            await c.call("read_text_file", {"path": "a.txt", "head": 1, "tail": 1}),
            await c.call("read_file", {"path": "sub/b.txt"}),
        ]

    whole, head, tail1, tail2, ranged, both, old = run(build(root), body)
    data = (root / "a.txt").read_bytes()
    assert structured(whole) == {
        "content": "alpha\nbeta\ngamma\n",
        "path": str(root / "a.txt"),
        "startLine": 1,
        "lineCount": 3,
        "totalLines": 3,
        "truncated": False,
        "sha256": hashlib.sha256(data).hexdigest(),
        "note": None,
    }
    assert json.loads(text_of(whole)) == structured(whole)
    assert structured(head)["content"] == "alpha\nbeta\n"
    # the last line of a newline-terminated file is its last line (the reference gives "")
    assert structured(tail1)["content"] == "gamma\n"
    assert structured(tail2)["content"] == "beta\ngamma\n"
    assert structured(tail2)["startLine"] == 2
    assert structured(ranged)["content"] == "beta\n"
    assert both["isError"] is True and "both head and tail" in text_of(both)
    assert structured(old)["content"] == "inside b\n"


def test_reads_are_bounded_and_say_so(root: Path) -> None:
    (root / "big.txt").write_text("".join(f"line {i}\n" for i in range(10_000)))
    server = build(root, limits=Limits(max_read_bytes=1000))

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("read_text_file", {"path": "big.txt"}),
            await c.call("read_text_file", {"path": "big.txt", "tail": 3}),
            await c.call("read_text_file", {"path": "big.txt", "head": 2}),
        ]

    whole, tail, head = run(server, body)
    cut = structured(whole)
    assert cut["truncated"] is True and cut["sha256"] is None
    assert "only" in cut["note"] and "1000" in cut["note"]
    assert len(cut["content"].encode()) <= 1000 and cut["content"].endswith("\n")
    assert structured(tail)["content"] == "line 9997\nline 9998\nline 9999\n"
    assert structured(tail)["truncated"] is False
    assert structured(tail)["startLine"] is None  # the 9,997 lines before were never read
    assert structured(head) | {"note": None} == structured(head)
    assert structured(head)["content"] == "line 0\nline 1\n"


def test_a_line_longer_than_the_read_bound_is_marked_truncated(root: Path) -> None:
    """A line longer than the bound comes back as the piece read: that piece must never pass
    for the whole line (it did, with `truncated: false`, for `head` and `tail`)."""
    (root / "long_first.txt").write_text("x" * 300 + "\nshort\n")
    (root / "long_last.txt").write_text("short\n" + "z" * 300)
    (root / "fits.txt").write_text("a" * 300 + "\nend one\nend two\n")
    server = build(root, limits=Limits(max_read_bytes=64))
    calls = [
        ("long_first.txt", {"head": 1}),
        ("long_first.txt", {}),
        ("long_first.txt", {"offset": 1, "limit": 1}),
        ("long_last.txt", {"tail": 1}),
        ("fits.txt", {"tail": 2}),
        ("fits.txt", {"head": 1}),
    ]

    async def body(c: Any) -> list[Any]:
        return [await c.call("read_text_file", {"path": path, **extra}) for path, extra in calls]

    first_head, first_all, first_range, last_tail, fits_tail, fits_head = map(
        structured, run(server, body)
    )
    for cut in (first_head, first_all, first_range):
        assert cut["content"] == "x" * 64 and cut["truncated"] is True, cut
        assert "only 64 bytes were read" in cut["note"]
    assert last_tail["content"] == "z" * 64 and last_tail["truncated"] is True
    assert fits_tail["content"] == "end one\nend two\n" and fits_tail["truncated"] is False
    assert fits_head["content"] == "a" * 64 and fits_head["truncated"] is True


def test_read_multiple_files_reports_each(root: Path) -> None:
    async def body(c: Any) -> Any:
        return await c.call("read_multiple_files", {"paths": ["a.txt", "nope.txt", "/etc/hosts"]})

    got = structured(run(build(root), body))
    files = got["files"]
    assert files[0] == {
        "path": "a.txt",
        "content": "alpha\nbeta\ngamma\n",
        "error": None,
        "truncated": False,
    }
    assert "does not exist" in files[1]["error"]
    assert "Access denied" in files[2]["error"]
    assert got["content"].startswith("a.txt:\nalpha\n")


# The output schema @modelcontextprotocol/server-filesystem 2026.8.31 lists for read_media_file
# (its `$schema` keyword aside), as its tools/list sent it.
REFERENCE_MEDIA_SCHEMA = {
    "type": "object",
    "properties": {
        "content": {
            "type": "array",
            "items": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "enum": ["image", "audio"]},
                            "data": {"type": "string"},
                            "mimeType": {"type": "string"},
                        },
                        "required": ["type", "data", "mimeType"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "const": "resource"},
                            "resource": {
                                "type": "object",
                                "properties": {
                                    "uri": {"type": "string"},
                                    "mimeType": {"type": "string"},
                                    "blob": {"type": "string"},
                                },
                                "required": ["uri", "blob"],
                                "additionalProperties": False,
                            },
                        },
                        "required": ["type", "resource"],
                        "additionalProperties": False,
                    },
                ]
            },
        }
    },
    "required": ["content"],
    "additionalProperties": False,
}


def _without_descriptions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_without_descriptions(item) for item in value]
    return value


def test_read_media_file(root: Path) -> None:
    import base64

    import jsonschema

    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
    (root / "p.png").write_bytes(png)
    (root / "s.wav").write_bytes(b"RIFF0000WAVE")
    (root / "d.bin").write_bytes(b"\x00\x01")
    (root / "sub" / "n a%me.bin").write_bytes(b"\xff")
    names = ("p.png", "s.wav", "d.bin", "sub/n a%me.bin")

    async def body(c: Any) -> tuple[Any, list[Any]]:
        tools = await c.tools()
        return tools, [await c.call("read_media_file", {"path": p}) for p in names]

    tools, (image, audio, blob, spaced) = run(build(root), body)
    schema = tools["read_media_file"]["outputSchema"]
    assert _without_descriptions(schema) == REFERENCE_MEDIA_SCHEMA
    for result in (image, audio, blob, spaced):
        assert result["isError"] is False
        # The structured result is the content block itself, and it fits the listed schema.
        assert result["structuredContent"] == {"content": result["content"]}
        jsonschema.validate(result["structuredContent"], schema)
    assert image["content"] == [
        {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}
    ]
    assert audio["content"] == [
        {
            "type": "audio",
            "data": base64.b64encode(b"RIFF0000WAVE").decode(),
            "mimeType": "audio/wav",
        }
    ]
    assert blob["content"] == [
        {
            "type": "resource",
            "resource": {
                "uri": (root / "d.bin").as_uri(),
                "mimeType": "application/octet-stream",
                "blob": "AAE=",
            },
        }
    ]
    assert spaced["content"][0]["resource"]["uri"] == (root / "sub" / "n a%me.bin").as_uri()
    assert spaced["content"][0]["resource"]["uri"].endswith("/sub/n%20a%25me.bin")


def test_read_media_file_encodes_a_binary_file_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import base64

    data = os.urandom(3000)
    (root / "blob.bin").write_bytes(data)
    encoded: list[bytes] = []
    real = base64.b64encode

    def counted(raw: Any, *args: Any) -> bytes:
        encoded.append(bytes(raw))
        return real(raw, *args)

    monkeypatch.setattr(base64, "b64encode", counted)

    async def body(c: Any) -> Any:
        return await c.call("read_media_file", {"path": "blob.bin"})

    result = run(build(root), body)
    expected = {
        "type": "resource",
        "resource": {
            "uri": (root / "blob.bin").as_uri(),
            "mimeType": "application/octet-stream",
            "blob": real(data).decode(),
        },
    }
    assert result["content"] == [expected]
    assert result["structuredContent"] == {"content": [expected]}
    assert encoded.count(data) == 1


def test_write_append_copy_move_create(root: Path) -> None:
    (root / "a.txt").chmod(0o640)

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("write_file", {"path": "a.txt", "content": "new\n"}),
            await c.call("write_file", {"path": "fresh/x.txt", "content": "x"}),
            await c.call("create_directory", {"path": "fresh/deeper"}),
            await c.call("write_file", {"path": "fresh/x.txt", "content": "x"}),
            await c.call("append_file", {"path": "fresh/x.txt", "content": "y"}),
            await c.call("copy_file", {"source": "a.txt", "destination": "copy.txt"}),
            await c.call("copy_file", {"source": "a.txt", "destination": "copy.txt"}),
            await c.call("move_file", {"source": "copy.txt", "destination": "sub/moved.txt"}),
            await c.call("move_file", {"source": "a.txt", "destination": "sub/b.txt"}),
        ]

    results = run(build(root), body)
    wrote, no_parent, made, wrote2, appended, copied, copied_again, moved, clash = results
    assert structured(wrote)["content"] == "Successfully wrote to a.txt"
    assert (root / "a.txt").read_text() == "new\n"
    assert stat.S_IMODE((root / "a.txt").stat().st_mode) == 0o640
    assert no_parent["isError"] and "'fresh' on its way does not exist" in text_of(no_parent)
    assert structured(made)["path"] == str(root / "fresh" / "deeper")
    assert structured(wrote2) and structured(appended)
    assert (root / "fresh" / "x.txt").read_text() == "xy"
    assert structured(copied)["path"] == str(root / "copy.txt")
    assert copied_again["isError"] and "already exists" in text_of(copied_again)
    assert structured(moved) and not (root / "copy.txt").exists()
    assert (root / "sub" / "moved.txt").read_text() == "new\n"
    assert clash["isError"] and "already exists" in text_of(clash)
    assert (root / "sub" / "b.txt").read_text() == "inside b\n"


def test_edits_refuse_ambiguity_keep_bytes_and_check_the_hash(root: Path) -> None:
    crlf = root / "win.txt"
    crlf.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\ntwo\r\n")
    latin = root / "latin.txt"
    latin.write_bytes("café = 1\n".encode("latin-1"))
    before = crlf.read_bytes()

    async def body(c: Any) -> list[Any]:
        edit = {"oldText": "two", "newText": "2"}
        return [
            await c.call("edit_file", {"path": "win.txt", "edits": [edit]}),
            await c.call(
                "edit_file",
                {
                    "path": "win.txt",
                    "edits": [{"oldText": "one\ntwo", "newText": "1\n2"}],
                    "dryRun": True,
                },
            ),
            await c.call(
                "edit_file",
                {"path": "win.txt", "edits": [{"oldText": "one\r\ntwo", "newText": "1\r\n2"}]},
            ),
            await c.call(
                "edit_file", {"path": "latin.txt", "edits": [{"oldText": "1", "newText": "2"}]}
            ),
            await c.call(
                "edit_file",
                {
                    "path": "latin.txt",
                    "edits": [{"oldText": "2", "newText": "3"}],
                    "expectedHash": "0" * 64,
                },
            ),
            await c.call(
                "edit_file",
                {"path": "a.txt", "edits": [{"oldText": "alpha\nbeta\nzeta", "newText": ""}]},
            ),
        ]

    ambiguous, dry, applied, latin_ok, stale, missing = run(build(root), body)
    assert ambiguous["isError"]
    assert "matches 2 times (at lines 2, 4)" in text_of(ambiguous)
    dry_result = structured(dry)
    assert dry_result["applied"] is False and "-one\n-two\n+1\n+2\n" in dry_result["content"]
    assert dry_result["content"].startswith("```diff\n")
    assert structured(applied)["applied"] is True
    assert crlf.read_bytes() == b"\xef\xbb\xbf1\r\n2\r\nthree\r\ntwo\r\n" != before
    assert structured(applied)["sha256"] == hashlib.sha256(crlf.read_bytes()).hexdigest()
    assert structured(latin_ok) and latin.read_bytes() == "café = 2\n".encode("latin-1")
    assert stale["isError"] and "changed since it was read" in text_of(stale)
    assert latin.read_bytes() == "café = 2\n".encode("latin-1")
    assert missing["isError"]
    assert "its line 3 ('zeta') differs from line 3 of the file ('gamma')" in text_of(missing)
    assert (root / "a.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_listings_tree_and_searches(root: Path) -> None:
    (root / "bin.dat").write_bytes(b"def \x00 binary")
    (root / "sub" / "notes.md").write_text("return here\nnothing\n")

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("list_directory", {"path": "."}),
            await c.call("list_directory_with_sizes", {"path": str(root), "sortBy": "size"}),
            await c.call("directory_tree", {"path": ".", "excludePatterns": ["deep"]}),
            await c.call("directory_tree", {"path": ".", "maxDepth": 0}),
            await c.call("search_files", {"path": ".", "pattern": "**/*.py"}),
            await c.call("search_files", {"path": "sub", "pattern": "*.txt"}),
            await c.call("search_file_contents", {"path": ".", "pattern": r"^\s*return"}),
            await c.call(
                "search_file_contents",
                {
                    "path": ".",
                    "pattern": "RETURN",
                    "caseSensitive": False,
                    "filePattern": "**/*.md",
                },
            ),
            await c.call("search_file_contents", {"path": ".", "pattern": "("}),
            await c.call("get_file_info", {"path": "a.txt"}),
            await c.call("list_allowed_directories", {}),
        ]

    listing, sizes, tree, flat, py, txt, grep, grep_md, bad, info, allowed = run(build(root), body)
    assert text_of(listing) and structured(listing)["content"].splitlines() == [
        "[FILE] a.txt",
        "[FILE] bin.dat",
        "[DIR] sub",
    ]  # .env is denied, so never listed
    sized = structured(sizes)
    assert "Total: 2 files, 1 directories" in sized["content"]
    assert [e["name"] for e in sized["entries"]] == ["a.txt", "bin.dat", "sub"]
    nodes = json.loads(structured(tree)["content"])
    assert nodes == [
        {"name": "a.txt", "type": "file"},
        {"name": "bin.dat", "type": "file"},
        {
            "name": "sub",
            "type": "directory",
            "children": [{"name": "b.txt", "type": "file"}, {"name": "notes.md", "type": "file"}],
        },
    ]
    shallow = structured(flat)
    assert shallow["truncated"] is True and "deeper than 0 levels" in shallow["note"]
    assert json.loads(shallow["content"])[2] == {"name": "sub", "type": "directory", "children": []}
    assert structured(py)["matches"] == [str(root / "sub" / "deep" / "c.py")]
    assert structured(txt)["matches"] == [str(root / "sub" / "b.txt")]
    found = structured(grep)
    assert [(m["path"], m["line"]) for m in found["matches"]] == [
        (str(root / "sub" / "notes.md"), 1),
        (str(root / "sub" / "deep" / "c.py"), 2),
    ]
    assert found["filesSkipped"] == 1  # bin.dat
    assert [m["path"] for m in structured(grep_md)["matches"]] == [str(root / "sub" / "notes.md")]
    assert bad["isError"] and "not a valid regular expression" in text_of(bad)
    facts = structured(info)
    assert facts["size"] == 17 and facts["isFile"] is True and facts["type"] == "file"
    assert "size: 17" in facts["content"]
    assert structured(allowed)["directories"] == [str(root)]


def test_results_are_capped_and_say_so(root: Path) -> None:
    for i in range(30):
        (root / f"f{i:02}.txt").write_text("hit\n" * 3)
    server = build(root, limits=Limits(max_results=10, max_entries=5))

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("search_file_contents", {"path": ".", "pattern": "hit"}),
            await c.call("search_files", {"path": ".", "pattern": "*.txt"}),
            await c.call("list_directory", {"path": "."}),
            await c.call("directory_tree", {"path": "."}),
        ]

    grep, names, listing, tree = run(server, body)
    assert len(structured(grep)["matches"]) == 10 and structured(grep)["truncated"] is True
    assert "stopped at 10 matches" in structured(grep)["content"]
    assert len(structured(names)["matches"]) == 10 and structured(names)["truncated"] is True
    assert len(structured(listing)["entries"]) == 5 and structured(listing)["truncated"] is True
    assert structured(tree)["entries"] == 5 and "cut at 5 entries" in structured(tree)["note"]


def test_deny_patterns_apply_to_every_tool(root: Path) -> None:
    (root / "sub" / "id_rsa").write_text("PRIVATE")
    (root / "cert.pem").write_text("PRIVATE")
    os.symlink(".env", root / "innocent.txt")

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("read_text_file", {"path": ".env"}),
            await c.call("read_text_file", {"path": "innocent.txt"}),
            await c.call("read_text_file", {"path": "sub/id_rsa"}),
            await c.call("write_file", {"path": "cert.pem", "content": "x"}),
            await c.call("search_files", {"path": ".", "pattern": "**"}),
            await c.call("search_file_contents", {"path": ".", "pattern": "PRIVATE|TOKEN"}),
            await c.call("directory_tree", {"path": "."}),
            await c.call("copy_file", {"source": "cert.pem", "destination": "c.txt"}),
            await c.call("move_file", {"source": "a.txt", "destination": ".env.local"}),
        ]

    results = run(build(root), body)
    for result in results[:4] + results[7:]:
        assert result["isError"] is True, result
        assert "denied by the server's deny list" in text_of(result)
    for result in results[4:7]:
        text = json.dumps(result)
        assert "id_rsa" not in text and "cert.pem" not in text and ".env" not in text
        assert "PRIVATE" not in text and "TOKEN" not in text
    assert (root / "cert.pem").read_text() == "PRIVATE"
    assert (root / "a.txt").exists()


def test_a_link_to_a_denied_file_lists_as_a_link(root: Path) -> None:
    """With sizes, a link is listed with what it points to, unless that is denied: the size
    and time of `.env` were shown under the link's innocent name."""
    (root / ".env").write_text("TOKEN=" + "x" * 1000)
    os.symlink(".env", root / "innocent.txt")
    os.symlink("a.txt", root / "fine.txt")

    async def body(c: Any) -> Any:
        return await c.call("list_directory_with_sizes", {"path": "."})

    entries = {e["name"]: e for e in structured(run(build(root), body))["entries"]}
    assert entries["innocent.txt"]["type"] == "symlink"
    assert entries["innocent.txt"]["size"] == len(".env")  # the link's own size
    assert entries["fine.txt"] == entries["fine.txt"] | {"type": "file", "size": 17}


def test_deny_patterns_ignore_case_and_unicode_form(root: Path) -> None:
    """A case-insensitive volume (macOS, Windows) opens `.env` for `.ENV`, and a
    normalisation-insensitive one `clé` for its decomposed twin: a deny list that compared
    names exactly let those spellings read the secret there."""
    import unicodedata

    composed = unicodedata.normalize("NFC", "clé.txt")
    decomposed = unicodedata.normalize("NFD", "clé.txt")
    spellings = [".ENV", ".Env.Local", "CERT.PEM", "Id_Rsa", decomposed, composed.upper()]
    for name in spellings:
        (root / name).write_text("PRIVATE")

    async def body(c: Any) -> list[Any]:
        reads = [await c.call("read_text_file", {"path": name}) for name in spellings]
        listing = await c.call("list_directory", {"path": "."})
        return [*reads, listing]

    *reads, listing = run(build(root, deny=(".env", ".env.*", "*.pem", "id_*", composed)), body)
    for name, result in zip(spellings, reads, strict=True):
        assert result["isError"] is True, name
        assert "denied by the server's deny list" in text_of(result), name
    names = [entry["name"] for entry in structured(listing)["entries"]]
    assert names == ["a.txt", "sub"]


def test_names_cannot_forge_lines_in_listings_and_searches(root: Path) -> None:
    """A name holding a line break, a control character or a direction override is quoted
    with escapes in the text the model reads, so it stays one line naming one file; the
    structured entries keep the name as it is."""
    names = [
        "nl\n[DIR] forged",
        "cr\r[FILE] x",
        "ls\u2028[DIR] y",
        "bidi\u202etxt.exe",
        '"plain.txt"',
        "esc\x1b[31mred",
    ]
    for name in names:
        (root / "sub" / name).write_text("needle\n")
    (root / "sub" / "b.txt").unlink()
    (root / "sub" / "deep" / "c.py").unlink()
    (root / "sub" / "hit.txt").write_text("needle\r/fake/path:9: x\u2028y\n")
    calls = [
        ("list_directory", {"path": "sub"}),
        ("list_directory_with_sizes", {"path": "sub"}),
        ("search_files", {"path": "sub", "pattern": "*"}),
        ("search_file_contents", {"path": "sub", "pattern": "needle"}),
    ]

    async def body(c: Any) -> list[Any]:
        return [structured(await c.call(name, arguments)) for name, arguments in calls]

    listing, sized, found, contents = run(build(root), body)
    quoted = [
        '"nl\\n[DIR] forged"',
        '"cr\\r[FILE] x"',
        '"ls\\u2028[DIR] y"',
        '"bidi\\u202etxt.exe"',
        '"\\"plain.txt\\""',
        '"esc\\u001b[31mred"',
    ]
    expected = sorted([*(f"[FILE] {q}" for q in quoted), "[FILE] hit.txt", "[DIR] deep"])
    assert sorted(listing["content"].splitlines()) == expected
    assert sorted(entry["name"] for entry in listing["entries"]) == sorted(
        [*names, "hit.txt", "deep"]
    )
    rows = sized["content"].splitlines()
    assert len(rows) == len(names) + 2 + 3  # entries, then a blank line and two totals
    assert not any(row.startswith("[DIR] forged") or "\u2028" in row for row in rows)
    assert len(found["content"].splitlines()) == len(names) + 2
    assert sorted(found["matches"]) == sorted(
        f"{root}/sub/{n}" for n in [*names, "hit.txt", "deep"]
    )
    lines = contents["content"].splitlines()
    assert len(lines) == len(names) + 1
    assert f"{root}/sub/hit.txt:1: needle\\r/fake/path:9: x\\u2028y" in lines
    for text in (listing["content"], sized["content"], found["content"], contents["content"]):
        assert not any(char in text for char in "\r\x1b\u2028\u202e")


def test_read_only_directories_refuse_changes(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "d.txt").write_text("doc")

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("write_file", {"path": str(docs / "d.txt"), "content": "x"}),
            await c.call("copy_file", {"source": "a.txt", "destination": str(docs / "n.txt")}),
            await c.call("read_text_file", {"path": str(docs / "d.txt")}),
            await c.call("list_allowed_directories", {}),
        ]

    wrote, copied, read, allowed = run(build(root, read_only_dirs=(docs,)), body)
    assert wrote["isError"] and "read-only" in text_of(wrote)
    assert copied["isError"] and "read-only" in text_of(copied)
    assert structured(read)["content"] == "doc"
    assert structured(allowed)["readOnly"] == [str(docs)]
    assert sorted(os.listdir(docs)) == ["d.txt"] and (docs / "d.txt").read_text() == "doc"


def test_a_read_only_directory_inside_a_writable_one_is_never_changed(root: Path) -> None:
    kept = root / "sub"  # holds b.txt and deep/c.py
    os.symlink("sub", root / "to_sub")
    before = sorted((str(p), p.read_bytes() if p.is_file() else b"") for p in kept.rglob("*"))
    server = build(root, read_only_dirs=(kept,))
    attempts = [
        ("write_file", {"path": "sub/b.txt", "content": "PWNED"}),
        ("write_file", {"path": f"{root}/sub/deep/../new.txt", "content": "PWNED"}),
        ("write_file", {"path": "to_sub/b.txt", "content": "PWNED"}),
        ("append_file", {"path": "sub/deep/c.py", "content": "PWNED"}),
        ("edit_file", {"path": "sub/b.txt", "edits": [{"oldText": "inside", "newText": "X"}]}),
        ("create_directory", {"path": "to_sub/made/deeper"}),
        ("copy_file", {"source": "a.txt", "destination": "sub/a.txt"}),
        ("move_file", {"source": "sub/b.txt", "destination": "b.txt"}),
        ("move_file", {"source": "a.txt", "destination": "sub/deep/a.txt"}),
        ("move_file", {"source": "sub", "destination": "elsewhere"}),
    ]

    # A client whose roots narrow the directories to the read-only one, reached through the
    # writable one, changes nothing either.
    narrowed = [
        ("write_file", {"path": f"{root}/sub/b.txt", "content": "PWNED"}),
        ("create_directory", {"path": f"{root}/sub/made"}),
        ("move_file", {"source": f"{root}/sub/b.txt", "destination": f"{root}/sub/b2.txt"}),
    ]

    async def body(c: Any) -> list[Any]:
        return [await c.call(name, arguments) for name, arguments in attempts]

    async def narrowed_body(c: Any) -> list[Any]:
        return [await c.call(name, arguments) for name, arguments in narrowed]

    answers = run(server, body) + run(server, narrowed_body, roots=[f"file://{root}/sub"])
    for (name, arguments), answer in zip(attempts + narrowed, answers, strict=True):
        assert answer["isError"], (name, arguments, answer)
        said = text_of(answer)  # the writable root's refusal, or the read-only root's own
        assert f"'{kept}'" in said and "read-only" in said, (name, said)
    assert sorted((str(p), p.read_bytes() if p.is_file() else b"") for p in kept.rglob("*")) == (
        before
    )
    assert (root / "a.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_a_lone_surrogate_in_a_path_or_content_is_refused_by_name(root: Path) -> None:
    """JSON can carry a lone surrogate (`"\\ud800"`), which no file name or UTF-8 text holds:
    each call says so, and one bad path among several reads stops nothing."""
    bad = "\ud800"
    attempts = [
        ("read_text_file", {"path": bad}),
        ("write_file", {"path": bad, "content": "x"}),
        ("create_directory", {"path": bad}),
        ("move_file", {"source": "a.txt", "destination": bad}),
        ("copy_file", {"source": "a.txt", "destination": bad}),
        ("get_file_info", {"path": bad}),
    ]

    async def body(c: Any) -> list[Any]:
        answers = [await c.call(name, arguments) for name, arguments in attempts]
        answers.append(await c.call("write_file", {"path": "w.txt", "content": f"a{bad}b"}))
        answers.append(await c.call("read_multiple_files", {"paths": ["a.txt", bad]}))
        return answers

    *refused, content, several = run(build(root), body)
    for (name, _), answer in zip(attempts, refused, strict=True):
        assert answer["isError"], name
        assert (
            text_of(answer) == "Error: '\\ud800': it holds '\\ud800', which no file name can hold"
        )
    assert content["isError"]
    assert (
        text_of(content) == "Error: 'w.txt': the content holds '\\ud800', which UTF-8 cannot encode"
    )
    files = structured(several)["files"]
    assert files[0]["content"] == "alpha\nbeta\ngamma\n"
    assert "which no file name can hold" in files[1]["error"]
    assert sorted(os.listdir(root)) == [".env", "a.txt", "sub"]


def test_bad_arguments_get_clear_errors(root: Path) -> None:
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\n")

    async def body(c: Any) -> list[Any]:
        return [
            await c.call("edit_file", {"path": "a.txt", "edits": [{"oldText": 1, "newText": "x"}]}),
            await c.call("edit_file", {"path": "a.txt", "edits": []}),
            await c.call(
                "edit_file", {"path": "a.txt", "edits": [{"oldText": "", "newText": "x"}]}
            ),
            await c.call("read_text_file", {"path": "a.txt", "offset": 0}),
            await c.call("read_text_file", {"path": "C:\\Windows\\win.ini"}),
            await c.call("read_text_file", {"path": ""}),
            await c.call("read_text_file", {"path": "sub"}),
            await c.call("list_directory", {"path": "a.txt"}),
            await c.call("read_multiple_files", {"paths": []}),
            await c.call("read_text_file", {"path": "bom.txt"}),
            await c.call("search_file_contents", {"path": "a.txt", "pattern": "^g"}),
        ]

    results = run(build(root), body)
    expected = [
        "edit 1 must be an object with string oldText and newText",
        "edits must hold at least one edit",
        "edit 1: oldText is empty",
        "offset must be a positive number, not 0",
        "a Windows drive path cannot name a file on this host",
        "a path must be a non-empty string",
        "'sub': it is a directory",
        "it is a file, not a directory",
        "paths must hold at least one path",
    ]
    for result, words in zip(results, expected, strict=False):
        assert result["isError"] is True, result
        assert words in text_of(result), (words, text_of(result))
    assert structured(results[9])["content"] == "hello\n"
    grep = structured(results[10])
    assert [(m["line"], m["text"]) for m in grep["matches"]] == [(3, "gamma")]
    assert (root / "a.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_arguments_that_do_not_fit_the_schema_are_not_answered_try_again(root: Path) -> None:
    """Arguments of the wrong type got "An error occurred while running the tool. Please try
    again.", which names nothing and invites the same call again."""
    calls = [
        ("read_text_file", {"path": "a.txt", "head": 1.5}),
        ("read_text_file", {"path": 5}),
        ("write_file", {"path": "x.txt"}),
        ("list_directory_with_sizes", {"path": ".", "sortBy": "date"}),
    ]

    async def body(c: Any) -> list[Any]:
        return [await c.call(name, arguments) for name, arguments in calls]

    for (name, _), result in zip(calls, run(build(root), body), strict=True):
        assert result["isError"] is True, name
        assert text_of(result) == (
            f"Error: Invalid JSON input for tool {name}; check each argument against the "
            "tool's input schema"
        )
    assert not (root / "x.txt").exists()


def test_a_pathological_regex_stops_at_the_time_bound_and_the_server_lives(root: Path) -> None:
    (root / "evil.txt").write_text("a" * 40 + "b\n")
    server = build(root, limits=Limits(search_seconds=0.5))

    async def body(c: Any) -> Any:
        with anyio.fail_after(30):
            return await c.call("search_file_contents", {"path": ".", "pattern": "^(a+)+$"})

    async def both(c: Any) -> list[Any]:
        return [await body(c), await c.call("read_text_file", {"path": "a.txt"})]

    result, after = run(server, both)
    found = structured(result)
    assert found["truncated"] is True and "stopped after 0.5 seconds" in found["note"]
    assert structured(after)["content"] == "alpha\nbeta\ngamma\n"
