"""LineSplitter: frames, blank lines, CRLF, oversized lines, any chunking."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.transports.stdio.stdio import HEAD_BYTES, LineSplitter, Oversized


def _run(limit: int, chunks: list[bytes]) -> list[bytes | int]:
    """Frames, and the size of each oversized line."""
    splitter = LineSplitter(limit)
    out: list[bytes | Oversized] = []
    for chunk in chunks:
        out += splitter.feed(chunk)
    out += splitter.finish()
    return [item.size if isinstance(item, Oversized) else item for item in out]


def test_frames_crlf_blank_lines_and_a_last_line_without_newline() -> None:
    stream = b'{"a":1}\r\n\n   \r\n{"b":2}\n\t{"c":3}  \n{"d":4}'
    assert _run(100, [stream]) == [b'{"a":1}', b'{"b":2}', b'{"c":3}', b'{"d":4}']


def test_oversized_line_is_reported_with_its_length_and_the_next_frame_survives() -> None:
    long_line = b"x" * 50
    assert _run(10, [b"ok\n" + long_line + b"\nnext\n"]) == [b"ok", 50, b"next"]


def test_oversized_line_across_chunks_is_never_buffered_whole() -> None:
    splitter = LineSplitter(10)
    assert splitter.feed(b"first\n" + b"y" * 8) == [b"first"]
    for _ in range(1000):  # 1000 x 1 KiB: the splitter must not keep them
        assert splitter.feed(b"y" * 1024) == []
        assert len(splitter._buffer) <= 12
    assert splitter.feed(b"yy\nafter\n") == [Oversized(8 + 1000 * 1024 + 2, b"y" * 1032), b"after"]


def test_an_oversized_line_keeps_its_first_bytes_whole_or_streamed() -> None:
    line = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":' + b"x" * 3 * HEAD_BYTES
    whole = LineSplitter(HEAD_BYTES).feed(line + b"\n")
    streamed = LineSplitter(100)
    pieces: list[bytes | Oversized] = []
    for start in range(0, len(line), 7):
        pieces += streamed.feed(line[start : start + 7])
    pieces += streamed.feed(b"\r\n")
    assert whole == [Oversized(len(line), line[:HEAD_BYTES])]
    # Streamed, the head is what was buffered when the limit was passed: the line's start.
    [item] = pieces
    assert isinstance(item, Oversized) and item.size == len(line) + 1
    assert 100 < len(item.head) <= 107 and line.startswith(item.head)


def test_exactly_the_limit_is_accepted_and_one_more_byte_is_not() -> None:
    assert _run(5, [b"12345\n123456\n12345\r\n"]) == [b"12345", 6, b"12345"]


def test_unterminated_oversized_tail_is_reported_at_eof() -> None:
    assert _run(4, [b"ok\n", b"z" * 9]) == [b"ok", 9]


def test_a_non_positive_limit_is_refused() -> None:
    try:
        LineSplitter(0)
    except ValueError:
        return
    raise AssertionError("LineSplitter(0) must raise")


lines = st.lists(
    st.one_of(
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
        st.just(b""),
        st.just(b"   "),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(lines=lines, cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=20))
def test_any_chunking_gives_the_same_frames_as_splitting_whole(
    lines: list[bytes], cuts: list[int]
) -> None:
    limit = 20
    stream = b"\n".join(lines) + b"\n"
    expected: list[bytes | int] = []
    for line in lines:
        body = line[:-1] if line.endswith(b"\r") else line
        if len(body) > limit:
            expected.append(len(body))
        elif body.strip():
            expected.append(body.strip())
    positions = sorted({min(cut, len(stream)) for cut in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *positions], [*positions, len(stream)], strict=True)]
    got = _run(limit, [chunk for chunk in chunks if chunk])
    # An oversized line split across chunks may be counted with its trailing "\r": compare
    # lengths loosely there, frames exactly.
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        if isinstance(e, int):
            assert isinstance(g, int) and e <= g <= e + 1
        else:
            assert g == e
