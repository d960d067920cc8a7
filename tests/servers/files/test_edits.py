"""Decoding, editing and diffing text files (toolwire_files._edits) without a server."""

from __future__ import annotations

import codecs
import difflib
import random

import pytest
from toolwire_files._edits import EditError, TextFile, _lines, apply_edits, unified_diff


@pytest.mark.parametrize(
    "data",
    [
        b"plain\nlines\n",
        b"crlf\r\nlines\r\n",
        b"mixed\r\nlines\nhere\r\n",
        codecs.BOM_UTF8 + b"bom\r\n",
        codecs.BOM_UTF16_LE + "utf16\r\nle".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + "utf16 be\n".encode("utf-16-be"),
        "latin-1 caf\xe9\n".encode("latin-1"),
        b"no final newline",
        b"",
    ],
)
def test_files_round_trip_byte_for_byte(data: bytes) -> None:
    text = TextFile.decode(data)
    assert text.encode(text.text) == data


def test_an_edit_keeps_crlf_and_the_bom() -> None:
    text = TextFile.decode(codecs.BOM_UTF8 + b"a\r\nb\r\nc\r\n")
    assert text.crlf and text.text == "a\nb\nc\n"
    edited = apply_edits(text.text, [("b\r\n", "B1\nB2\n")])
    assert text.encode(edited) == codecs.BOM_UTF8 + b"a\r\nB1\r\nB2\r\nc\r\n"


def test_characters_the_encoding_lacks_are_refused() -> None:
    text = TextFile.decode("caf\xe9 \xff\n".encode("latin-1") + b"\xff")
    assert text.encoding == "latin-1"
    with pytest.raises(EditError, match="cannot represent"):
        text.encode("snow \u2603")


def test_whitespace_tolerant_edits_keep_the_indentation() -> None:
    source = "def f():\n    if x:\n        return 1\n"
    edited = apply_edits(source, [("if x:\n    return 1", "if y:\n    return 2")])
    assert edited == "def f():\n    if y:\n        return 2\n"


def test_ambiguity_names_every_line() -> None:
    with pytest.raises(EditError, match=r"matches 3 times \(at lines 1, 3, 5\)"):
        apply_edits("x\ny\nx\ny\nx\n", [("x", "z")])
    with pytest.raises(EditError, match=r"when whitespace is ignored \(at lines 1, 2\)"):
        apply_edits("  x\n\tx\n", [(" x ", "z")])


def test_huge_lenient_searches_are_skipped_not_hung() -> None:
    text = "a\n" * 200_000
    with pytest.raises(EditError, match="oldText was not found"):
        apply_edits(text, [("a\n" * 150 + "b", "c")])


def test_the_windowed_diff_equals_difflib_on_the_whole_text() -> None:
    chance = random.Random(7)
    for _ in range(300):
        before = [f"line {i}\n" for i in range(chance.randint(0, 60))]
        after = list(before)
        for _ in range(chance.randint(1, 3)):
            at = chance.randint(0, len(after))
            kind = chance.choice("idr")
            if kind == "i":
                after.insert(at, f"new {at}\n")
            elif after and at < len(after):
                if kind == "d":
                    del after[at]
                else:
                    after[at] = f"changed {at}\n"
        old, new = "".join(before), "".join(after)
        whole = "".join(difflib.unified_diff(_lines(old), _lines(new), fromfile="p", tofile="p"))
        assert unified_diff(old, new, "p") == f"```diff\n{whole}```\n"
