"""The Codex envelope through `apply_patch`: the behaviours of Codex's own scenarios, its
leniency, and where this server departs from it (ambiguity, atomicity, endings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.servers.apply_patch._support import envelope, fails, patcher, snapshot, write


def _apply(root: Path, body: str) -> str:
    return patcher(root).apply_envelope(envelope(body))


def test_add_file(tmp_path: Path) -> None:
    out = _apply(tmp_path, "*** Add File: bar.md\n+This is a new file\n+with two lines")
    assert out == "Success. Updated the following files:\nA bar.md"
    assert (tmp_path / "bar.md").read_text() == "This is a new file\nwith two lines\n"


def test_several_operations_in_one_patch(tmp_path: Path) -> None:
    write(tmp_path, {"modify.txt": "line1\nline2\n", "delete.txt": "obsolete\n"})
    out = _apply(
        tmp_path,
        "*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n"
        "*** Update File: modify.txt\n@@\n-line2\n+changed",
    )
    assert out.splitlines()[1:] == ["A nested/new.txt", "D delete.txt", "M modify.txt"]
    assert (tmp_path / "nested/new.txt").read_text() == "created\n"
    assert not (tmp_path / "delete.txt").exists()
    assert (tmp_path / "modify.txt").read_text() == "line1\nchanged\n"


def test_several_hunks_in_one_file(tmp_path: Path) -> None:
    write(tmp_path, {"multi.txt": "line1\nline2\nline3\nline4\n"})
    _apply(tmp_path, "*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4")
    assert (tmp_path / "multi.txt").read_text() == "line1\nchanged2\nline3\nchanged4\n"


def test_move_to_a_new_directory(tmp_path: Path) -> None:
    write(tmp_path, {"old/name.txt": "old content\n", "old/other.txt": "x\n"})
    out = _apply(
        tmp_path,
        "*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n"
        "+new content",
    )
    assert out.endswith("M renamed/dir/name.txt")
    assert not (tmp_path / "old/name.txt").exists()
    assert (tmp_path / "renamed/dir/name.txt").read_text() == "new content\n"


def test_move_overwrites_its_destination(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "from\n", "b.txt": "was here\n"})
    _apply(tmp_path, "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-from\n+to")
    assert (tmp_path / "b.txt").read_text() == "to\n"
    assert not (tmp_path / "a.txt").exists()


def test_add_overwrites_an_existing_file(tmp_path: Path) -> None:
    write(tmp_path, {"duplicate.txt": "old\n"})
    _apply(tmp_path, "*** Add File: duplicate.txt\n+new")
    assert (tmp_path / "duplicate.txt").read_text() == "new\n"


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        ("", "names no file"),
        ("*** Update File: foo.txt\n@@\n-missing\n+x", "Failed to find expected lines in foo.txt"),
        ("*** Delete File: nope.txt", "cannot delete nope.txt: no such file"),
        ("*** Update File: foo.txt", "Update file hunk for path 'foo.txt' is empty"),
        ("*** Update File: nope.txt\n@@\n-a\n+b", "cannot update nope.txt: no such file"),
        ("*** Delete File: dir", "'dir': it is a directory"),
        ("*** Frobnicate File: foo.txt", "is not a valid hunk header"),
        ("*** Update File: foo.txt\n@@\n?what", "Unexpected line found in update hunk"),
        ("*** Update File: foo.txt\n@@\n*** End of File", "does not contain any lines"),
        ("*** Update File: foo.txt\n@@\n-foo\n+x\n?junk", "Expected update hunk to start"),
    ],
)
def test_refusals_change_nothing(tmp_path: Path, body: str, phrase: str) -> None:
    write(tmp_path, {"foo.txt": "foo\n", "dir/inner.txt": "x\n"})
    before = snapshot(tmp_path)
    message = fails(lambda: _apply(tmp_path, body))
    assert phrase in message, message
    assert "Nothing was changed" in message
    assert snapshot(tmp_path) == before


def test_missing_markers_are_named(tmp_path: Path) -> None:
    message = fails(lambda: patcher(tmp_path).apply_envelope("bad"))
    assert "The first line of the patch must be '*** Begin Patch', got 'bad'" in message
    message = fails(lambda: patcher(tmp_path).apply_envelope("*** Begin Patch\nbad"))
    assert "The last line of the patch must be '*** End Patch'" in message


def test_update_adds_the_missing_final_newline(tmp_path: Path) -> None:
    write(tmp_path, {"no_newline.txt": "no newline at end"})
    _apply(tmp_path, "*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line")
    assert (tmp_path / "no_newline.txt").read_text() == "first line\n"


def test_a_hunk_of_additions_only_goes_at_the_end(tmp_path: Path) -> None:
    write(tmp_path, {"input.txt": "line1\nline2\n"})
    _apply(tmp_path, "*** Update File: input.txt\n@@\n+added")
    assert (tmp_path / "input.txt").read_text() == "line1\nline2\nadded\n"


def test_padded_markers_and_hunk_headers(tmp_path: Path) -> None:
    write(tmp_path, {"file.txt": "one\ntwo\n"})
    patch = "  *** Begin Patch  \n *** Update File: file.txt \n@@   \n-two\n+2\n  *** End Patch  "
    patcher(tmp_path).apply_envelope(patch)
    assert (tmp_path / "file.txt").read_text() == "one\n2\n"


def test_heredoc_wrapper(tmp_path: Path) -> None:
    write(tmp_path, {"f.txt": "a\n"})
    for wrapper in ("<<'EOF'", "<<EOF", '<<"EOF"', "apply_patch <<'EOF'"):
        patch = (
            f"{wrapper}\n*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+a\n*** End Patch\nEOF\n"
        )
        assert patcher(tmp_path).apply_envelope(patch).endswith("M f.txt")


def test_blank_lines_between_hunks_and_files(tmp_path: Path) -> None:
    write(tmp_path, {"f.txt": "a\nb\nc\nd\n"})
    _apply(
        tmp_path,
        "*** Update File: f.txt\n@@\n-a\n+A\n\n\n@@\n-c\n+C\n\n*** Add File: g.txt\n+g",
    )
    assert (tmp_path / "f.txt").read_text() == "A\nb\nC\nd\n"
    assert (tmp_path / "g.txt").read_text() == "g\n"


def test_first_hunk_without_its_at_at_line(tmp_path: Path) -> None:
    write(tmp_path, {"f.py": "import foo\nx = 1\n"})
    _apply(tmp_path, "*** Update File: f.py\n import foo\n+import bar")
    assert (tmp_path / "f.py").read_text() == "import foo\nimport bar\nx = 1\n"


def test_unicode_punctuation_is_folded(tmp_path: Path) -> None:
    write(tmp_path, {"u.py": "import asyncio  # local import \u2013 avoids top\u2011level dep\n"})
    _apply(
        tmp_path,
        "*** Update File: u.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO",
    )
    assert (tmp_path / "u.py").read_text() == "import asyncio  # HELLO\n"


def test_delete_and_deletion_only_hunks(tmp_path: Path) -> None:
    write(tmp_path, {"obsolete.txt": "x\n", "lines.txt": "line1\nline2\nline3\n"})
    _apply(
        tmp_path,
        "*** Delete File: obsolete.txt\n*** Update File: lines.txt\n@@\n line1\n-line2\n line3",
    )
    assert not (tmp_path / "obsolete.txt").exists()
    assert (tmp_path / "lines.txt").read_text() == "line1\nline3\n"


def test_end_of_file_hunk_applies_at_the_end(tmp_path: Path) -> None:
    write(tmp_path, {"tail.txt": "last\nmiddle\nlast\n"})
    _apply(tmp_path, "*** Update File: tail.txt\n@@\n-last\n+end\n*** End of File")
    assert (tmp_path / "tail.txt").read_text() == "last\nmiddle\nend\n"


def test_interleaved_changes(tmp_path: Path) -> None:
    write(tmp_path, {"f.txt": "a\nb\nc\nd\ne\nf\n"})
    _apply(
        tmp_path,
        "*** Update File: f.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File",
    )
    assert (tmp_path / "f.txt").read_text() == "a\nB\nc\nd\nE\nf\ng\n"


def test_stacked_anchors_pick_the_block(tmp_path: Path) -> None:
    text = (
        "class A:\n    def run(self):\n        pass\nclass B:\n    def run(self):\n        pass\n"
    )
    write(tmp_path, {"m.py": text})
    _apply(
        tmp_path,
        "*** Update File: m.py\n@@ class B:\n@@     def run(self):\n-        pass\n+        return 2",
    )
    assert (tmp_path / "m.py").read_text() == text.rsplit("pass", 1)[0] + "return 2\n"


def test_an_ambiguous_hunk_names_every_match(tmp_path: Path) -> None:
    text = "def a():\n    return None\n\ndef b():\n    return None\n\ndef c():\n    return None\n"
    write(tmp_path, {"m.py": text})
    message = fails(
        lambda: _apply(tmp_path, "*** Update File: m.py\n@@\n-    return None\n+    return 1")
    )
    assert (
        "m.py, hunk 1: the hunk's context matches 3 places (starting at lines 2, 5, 8)" in message
    )
    assert "Add an @@ line" in message
    assert (tmp_path / "m.py").read_text() == text
    _apply(tmp_path, "*** Update File: m.py\n@@ def b():\n-    return None\n+    return 1")
    assert (tmp_path / "m.py").read_text() == text.replace(
        "return None\n\ndef c", "return 1\n\ndef c"
    )


def test_a_mismatch_shows_the_diverging_line(tmp_path: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 21))
    write(tmp_path, {"f.txt": text})
    message = fails(
        lambda: _apply(
            tmp_path,
            "*** Update File: f.txt\n@@\n line 10\n line 11\n-line twelve\n+x\n line 13",
        )
    )
    assert "f.txt, hunk 1: the hunk's context was not found in the file." in message
    assert "Closest place: line 10, where 3 of its 4 lines match." in message
    assert "The hunk's line 3 differs from the file's line 12:" in message
    assert '  hunk: "line twelve"\n  file: "line 12"' in message
    assert "  > 12 | line 12" in message


def test_a_later_hunk_above_the_cursor_is_explained(tmp_path: Path) -> None:
    write(tmp_path, {"f.txt": "a\nb\nc\nd\n"})
    message = fails(lambda: _apply(tmp_path, "*** Update File: f.txt\n@@\n-c\n+C\n@@\n-a\n+A"))
    assert "f.txt, hunk 2" in message
    assert "hunks must follow the file's order" in message
    assert (tmp_path / "f.txt").read_text() == "a\nb\nc\nd\n"


def test_context_lines_keep_the_files_text(tmp_path: Path) -> None:
    write(tmp_path, {"f.txt": "x = 1   \ny = 2\n"})
    _apply(tmp_path, "*** Update File: f.txt\n@@\n x = 1\n-y = 2\n+y = 3")
    assert (tmp_path / "f.txt").read_text() == "x = 1   \ny = 3\n"


def test_add_then_update_in_one_patch(tmp_path: Path) -> None:
    _apply(tmp_path, "*** Add File: n.txt\n+one\n+two\n*** Update File: n.txt\n@@\n-two\n+2")
    assert (tmp_path / "n.txt").read_text() == "one\n2\n"


def test_dry_run_returns_diffs_and_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "keep\nold\n", "gone.txt": "bye\n"})
    before = snapshot(tmp_path)
    out = patcher(tmp_path).apply_envelope(
        envelope(
            "*** Update File: a.txt\n*** Move to: b.txt\n@@\n keep\n-old\n+new\n"
            "*** Delete File: gone.txt\n*** Add File: c.txt\n+c"
        ),
        dry_run=True,
    )
    assert snapshot(tmp_path) == before
    assert out.startswith("Dry run: nothing was written.")
    assert "--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new" in out
    assert "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye" in out
    assert "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c" in out


def test_a_dry_run_shows_changes_of_final_newline_and_line_ending(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "1\n2", "dos.txt": "1\r\n2\r\n"})
    out = patcher(tmp_path).apply_envelope(
        envelope("*** Update File: a.txt\n@@\n 1\n-2\n+2"), dry_run=True
    )
    # Codex ends an updated file with a newline: the one change the dry run must show.
    assert out.endswith(
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n\\ No newline at end of file\n+2"
    ), out
    out = patcher(tmp_path).apply_operations(
        [{"type": "update_file", "path": "dos.txt", "diff": "@@\n 1\n-2\n+3\n+4"}], dry_run=True
    )
    # Each line keeps its "\r": a line whose ending changed would show as changed.
    assert out.endswith("@@ -1,2 +1,3 @@\n 1\r\n-2\r\n+3\r\n+4\r"), out
