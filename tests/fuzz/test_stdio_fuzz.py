"""Bad input over stdio against one live server process (bounded in count and time).

More than 10 000 frames reach a single `toolwire` server process: requests before
`initialize`, invalid JSON, non-UTF-8 bytes, wrong types in every field, unknown methods,
duplicate and huge ids, batches, responses, notifications and a 10 MB line. Each frame gets
exactly the replies `tests/fuzz/wire.expect` says, in order (checked with a ping sentinel
after every group), every stdout line is a JSON-RPC 2.0 message, and the process stays up:
afterwards it still answers `ping` and `tools/list`, and it exits 0 on stdin EOF.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Iterator
from typing import IO, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fuzz.wire import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Ambiguous,
    Wire,
    expect,
    key,
    outcome,
)
from tests.interop._support import KITCHEN, KITCHEN_TOOLS, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

TOOLS = frozenset(KITCHEN_TOOLS)
MIN_FRAMES = 10_000
MAX_MESSAGE = 4 * 1024 * 1024  # Server's default max_message_bytes


def _frame(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _check(wire: Wire, frames: list[bytes], tools: frozenset[str] = TOOLS) -> None:
    """Send `frames`; the replies must be exactly the oracle's, in order."""
    wanted = [reply for frame in frames for reply in expect(frame, tools)]
    got = wire.exchange(frames)
    assert [outcome(message) for message in got] == wanted, (frames, got)


# ---------------------------------------------------------------- generators (hypothesis)

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
any_id = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=10**30, max_value=10**60),  # huge ids are echoed exactly
    st.text(max_size=16).filter(lambda s: not s.startswith(("sentinel-", "call-"))),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.lists(json_leaf, max_size=2),
    st.dictionaries(st.text(max_size=3), json_leaf, max_size=2),
)
method = st.one_of(
    st.sampled_from(
        [
            "ping",
            "tools/list",
            "tools/call",
            "logging/setLevel",
            "resources/list",
            "prompts/get",
            "server/discover",
            "notifications/initialized",
            "notifications/progress",
            "tools/call/",
            "PING",
            "",
        ]
    ),
    st.text(max_size=16),
    json_value,
)
tool_name = st.one_of(
    st.sampled_from(["nope", "", "ADD", "add ", "tools/call"]),
    st.text(max_size=8).filter(lambda s: s not in TOOLS),
    json_leaf.filter(lambda v: not isinstance(v, str)),
)
meta = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "progressToken": st.one_of(st.text(max_size=4), st.integers(), json_value),
            "io.modelcontextprotocol/protocolVersion": st.sampled_from(["2026-07-28", "x"]),
            "io.modelcontextprotocol/clientCapabilities": json_value,
        },
    ),
    json_value,
)
params = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "name": tool_name,
            "arguments": json_value,
            "_meta": meta,
            "cursor": json_leaf.filter(lambda v: not isinstance(v, str)),
            "level": st.one_of(st.sampled_from(["debug", "error", "emergency", "loud"]), json_leaf),
        },
    ),
    st.lists(json_leaf, max_size=3),
    json_leaf,
)
message = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), st.just("2.0"), st.just("2.0"), json_leaf),
        "id": any_id,
        "method": method,
        "params": params,
        "result": json_value,
        "error": json_value,
    },
)

good_id = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=10**30, max_value=10**60),
    st.text(max_size=16).filter(lambda s: not s.startswith(("sentinel-", "call-"))),
)
# Well-formed envelopes with bad contents reach method dispatch and parameter checks.
request_like = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": good_id, "method": method}, optional={"params": params}
)
notification_like = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "method": method}, optional={"params": params}
)


def _unambiguous(frame: bytes) -> bool:
    try:
        expect(frame, TOOLS)
    except Ambiguous:
        return False
    return True


def _no_newline(data: bytes) -> bytes:
    return data.replace(b"\n", b" ")


frames = st.one_of(
    message.map(_frame),  # wrong types in every field
    message.map(_frame),
    request_like.map(_frame),
    request_like.map(_frame),
    request_like.map(_frame),
    notification_like.map(_frame),
    st.lists(message, max_size=4).map(_frame),  # batches
    json_value.map(_frame),  # any JSON at all
    st.binary(max_size=64).map(_no_newline),  # not UTF-8, not JSON
    st.text(max_size=40).map(lambda s: _no_newline(s.encode("utf-8", "surrogatepass"))),
    st.tuples(message.map(_frame), st.integers(min_value=0, max_value=80)).map(
        lambda pair: pair[0][: pair[1]]  # truncated JSON
    ),
).filter(_unambiguous)


# ---------------------------------------------------------------- fixed corpus

HANDSHAKE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "1999-01-01",  # unknown: the server counter-offers its latest
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"},
    },
}


def _fixed_corpus() -> Iterator[bytes]:
    """Hand-picked nasty frames (each checked by the oracle like the generated ones)."""
    yield b"NaN"
    yield b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}'
    yield b'{"jsonrpc":"2.0","id":Infinity,"method":"ping"}'
    yield b"[" * 100_000  # nested far beyond any recursion limit
    yield b'{"a":' * 50_000
    yield b"\xef\xbb\xbf" + b'{"jsonrpc":"2.0","id":"bom","method":"ping"}'  # UTF-8 BOM
    yield b'{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r'
    yield b"   \t  "  # blank: ignored
    yield b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}'  # lone surrogate id
    yield b'{"jsonrpc":"2.0","id":"\xff","method":"ping"}'  # invalid UTF-8 inside a string
    yield b'{"jsonrpc":"2.0","id":"\xc3\xa9","method":"ping"}'  # é
    yield _frame({"jsonrpc": "2.0", "id": 2**200, "method": "ping"})
    yield _frame({"jsonrpc": "2.0", "id": -(2**200), "method": "tools/list"})
    yield _frame({"jsonrpc": "2.0", "id": "x" * 100_000, "method": "nope"})
    yield b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}'
    yield b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}'
    yield b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}'  # duplicate key: last wins
    for bad_id in (True, False, None, {}, {"a": 1}, [], [1], 0.5):
        yield _frame({"jsonrpc": "2.0", "id": bad_id, "method": "ping"})
    for bad_method in (7, 0.5, True, None, [], {}, ["ping"]):
        yield _frame({"jsonrpc": "2.0", "id": "m", "method": bad_method})
    for bad_params in ([1, 2], "s", 3, True, [], 0.0):
        for name in ("ping", "tools/list", "tools/call", "logging/setLevel", "nope"):
            yield _frame({"jsonrpc": "2.0", "id": "p", "method": name, "params": bad_params})
    for bad_call in (
        {},
        {"name": 5},
        {"name": "add", "arguments": [1, 2]},
        {"name": "add", "arguments": "a=1"},
        {"name": "add", "_meta": []},
        {"name": "add", "_meta": {"progressToken": 1.5}},
        {"name": "add", "_meta": {"progressToken": {}}},
        {"name": "nope", "arguments": {}},
    ):
        yield _frame({"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": bad_call})
    yield _frame({"jsonrpc": "2.0", "id": "l", "method": "logging/setLevel", "params": {}})
    yield _frame(
        {"jsonrpc": "2.0", "id": "l", "method": "logging/setLevel", "params": {"level": 1}}
    )
    yield _frame(
        {"jsonrpc": "2.0", "id": "l", "method": "logging/setLevel", "params": {"level": "error"}}
    )
    yield _frame({"jsonrpc": "2.0", "id": "cur", "method": "tools/list", "params": {"cursor": 5}})
    envelope = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    yield _frame(
        {"jsonrpc": "2.0", "id": "env", "method": "tools/list", "params": {"_meta": envelope}}
    )
    for notification in ("notifications/initialized", "notifications/progress", "x/y", ""):
        yield _frame({"jsonrpc": "2.0", "method": notification, "params": {}})
    yield _frame(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "zz"}}
    )
    yield _frame({"jsonrpc": "2.0", "id": 99, "result": {}})  # responses: ignored
    yield _frame({"jsonrpc": "2.0", "id": 99, "error": {"code": 1, "message": "x"}})
    yield _frame({"jsonrpc": "2.0", "id": None, "result": None})
    for batch in (
        [],
        [1, 2],
        [{"jsonrpc": "2.0", "id": "b1", "method": "ping"}],
        [
            {"jsonrpc": "2.0", "id": "b2", "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "b3", "result": {}},
            "x",
            [],
        ],
        [[{"jsonrpc": "2.0", "id": "b4", "method": "ping"}]],
    ):
        yield _frame(batch)
    yield from (b"null", b"true", b"1", b'"ping"', b"{}", b"[]", b"{", b"}", b'{"jsonrpc"')
    for method_name in ("widgets/list", "tools/call/x"):
        yield _frame({"jsonrpc": "2.0", "id": method_name, "method": method_name})
    for method_name in ("prompts/list", "prompts/get", "completion/complete"):
        yield _frame({"jsonrpc": "2.0", "id": method_name, "method": method_name})
    # Requests (inline ones) may reuse an id: each is answered.
    yield _frame({"jsonrpc": "2.0", "id": 7, "method": "ping"})
    yield _frame({"jsonrpc": "2.0", "id": 7, "method": "ping"})


# ---------------------------------------------------------------- the test


@contextlib.contextmanager
def _server() -> Iterator[tuple[Wire, IO[bytes]]]:
    with tempfile.TemporaryFile() as stderr:
        live = Wire([str(KITCHEN)], ROOT, stderr)
        try:
            yield live, stderr
        finally:
            if live.proc.poll() is None:
                live.proc.kill()
                live.proc.wait(timeout=10)


def _requests_before_initialize(wire: Wire) -> None:
    def request(request_id: str, method_name: str, request_params: Any = None) -> bytes:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method_name}
        if request_params is not None:
            body["params"] = request_params
        return _frame(body)

    got = wire.exchange(
        [
            request("pre-ping", "ping"),  # the first request: decides the handshake era
            request("pre-list", "tools/list"),
            request("pre-call", "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
            request("pre-level", "logging/setLevel", {"level": "error"}),
            request("pre-unknown", "widgets/list"),
            b"{oops",
            request("pre-init-bad", "initialize", {"protocolVersion": 2025}),
            request(
                "pre-init-caps", "initialize", {"protocolVersion": "2025-11-25", "capabilities": []}
            ),
        ]
    )
    assert [outcome(message) for message in got] == [
        (key("pre-ping"), None),
        (key("pre-list"), INVALID_PARAMS),
        (key("pre-call"), INVALID_PARAMS),
        (key("pre-level"), INVALID_PARAMS),
        (key("pre-unknown"), METHOD_NOT_FOUND),
        (None, PARSE_ERROR),
        (key("pre-init-bad"), INVALID_PARAMS),
        (key("pre-init-caps"), INVALID_PARAMS),
    ]
    assert got[0]["result"] == {}
    got = wire.exchange(
        [_frame(HANDSHAKE), _frame({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    )
    assert len(got) == 1 and got[0]["id"] == "init"
    assert got[0]["result"]["protocolVersion"] == "2025-11-25"
    assert got[0]["result"]["serverInfo"]["name"] == "kitchen"


def _fixed_corpus_replies(wire: Wire) -> None:
    corpus = list(_fixed_corpus())
    for frame in corpus:  # one by one: a failure names its frame
        _check(wire, [frame])
    # Huge ids come back exactly, and ids stay valid UTF-8 on the wire.
    got = wire.exchange([_frame({"jsonrpc": "2.0", "id": 10**80 + 1, "method": "ping"})])
    assert got[0]["id"] == 10**80 + 1
    got = wire.exchange([b'{"jsonrpc":"2.0","id":"\\udfff\\u0000","method":"ping"}'])
    assert got[0]["id"] == "\udfff\x00"


def _oversized_line_and_the_largest_accepted_one(wire: Wire) -> None:
    padding = "x" * (10 * 1024 * 1024)
    huge = _frame({"jsonrpc": "2.0", "id": "huge", "method": "ping", "params": {"pad": padding}})
    got = wire.exchange([huge], timeout=120)
    # Answered to its own id, read from the line's first bytes (issue #11).
    assert [outcome(message) for message in got] == [(("str", "huge"), INVALID_REQUEST)]
    assert "maximum message size" in got[0]["error"]["message"]
    # A 10 MB line of garbage (no JSON at all) is refused the same way, not parsed.
    got = wire.exchange([b"\xff" * (10 * 1024 * 1024)], timeout=120)
    assert [outcome(message) for message in got] == [(None, INVALID_REQUEST)]
    # Just under the limit: served normally.
    big = "y" * (MAX_MESSAGE - 200)
    got = wire.exchange(
        [_frame({"jsonrpc": "2.0", "id": "big", "method": "ping", "params": {"pad": big}})],
        timeout=120,
    )
    assert [outcome(message) for message in got] == [(key("big"), None)]


def _tool_calls_with_bad_arguments_and_duplicate_ids(wire: Wire) -> None:
    calls = []
    for number, arguments in enumerate(
        [
            {},
            {"a": "x", "b": 1},
            {"a": None, "b": None},
            {"a": 1.5, "b": 2},
            {"a": [], "b": {}},
            {"a": 1, "b": 2, "c": 3},
            {"a": 10**40, "b": 1},
        ]
    ):
        call_id = f"call-bad-{number}"
        calls.append(call_id)
        wire.send(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": call_id,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": arguments},
                }
            )
        )
    # A call still in flight whose id is reused: the duplicate is ignored (one reply per id).
    nap = {"name": "nap", "arguments": {"seconds": 1.0}}
    dup = _frame({"jsonrpc": "2.0", "id": "call-dup", "method": "tools/call", "params": nap})
    assert wire.exchange([dup, dup]) == []
    wire.wait_async({*calls, "call-dup"})
    for call_id in calls[:5]:
        result = wire.async_replies[call_id]["result"]
        assert result["isError"] is True, (call_id, result)
        assert result["content"][0]["text"].startswith("Invalid arguments for tool 'add'"), result
    assert wire.async_replies["call-dup"]["result"]["content"][0]["text"] == "slept 1.0"
    # No second reply for call-dup: the next exchange sees nothing extra.
    time.sleep(0.2)
    assert wire.exchange([]) == []
    assert sum(1 for line in wire.all_lines if b'"call-dup"' in line) == 1


def _generated_frames(wire: Wire) -> None:
    @settings(
        max_examples=170,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(frames, min_size=60, max_size=90))
    def run(group: list[bytes]) -> None:
        _check(wire, group)

    run()  # bounded by max_examples and the test's timeout


def _still_serving_afterwards(wire: Wire) -> None:
    assert wire.proc.poll() is None, "the server died"
    assert wire.frames_sent >= MIN_FRAMES, wire.frames_sent
    got = wire.exchange(
        [
            _frame({"jsonrpc": "2.0", "id": "final-ping", "method": "ping"}),
            _frame({"jsonrpc": "2.0", "id": "final-list", "method": "tools/list"}),
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": "call-final",
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
                }
            ),
        ]
    )
    assert got[0] == {"jsonrpc": "2.0", "id": "final-ping", "result": {}}
    assert {tool["name"] for tool in got[1]["result"]["tools"]} == TOOLS
    wire.wait_async({"call-final"})
    assert wire.async_replies["call-final"]["result"]["structuredContent"] == {"result": 5}
    assert wire.close() == 0
    assert len(wire.all_lines) > MIN_FRAMES // 2
    for line in wire.all_lines:  # already checked as they arrived; the tail too
        assert line.endswith(b"\n")


def test_ten_thousand_bad_frames_against_one_process() -> None:
    with _server() as (wire, stderr):
        _requests_before_initialize(wire)
        _fixed_corpus_replies(wire)
        _oversized_line_and_the_largest_accepted_one(wire)
        _tool_calls_with_bad_arguments_and_duplicate_ids(wire)
        _generated_frames(wire)
        _still_serving_afterwards(wire)
        stderr.seek(0)
        log = stderr.read().decode("utf-8", "replace")
    # Nothing the client sent made the server fail internally.
    assert "Traceback" not in log, log[-4000:]
    assert "Internal error" not in log, log[-4000:]


def test_id_less_invalid_requests_get_invalid_request_with_null_id() -> None:
    """JSON-RPC 2.0 §4.1/§5.1: a message with neither a string method nor an id is not a
    notification; it is an Invalid Request answered with id null (the spec's own example is
    `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`)."""
    with _server() as (wire, _):
        wire.exchange([_frame(HANDSHAKE)])
        for frame in (
            b'{"jsonrpc":"2.0","method":1,"params":"bar"}',
            b'{"jsonrpc":"2.0"}',
            b'{"jsonrpc":"2.0","params":{}}',
        ):
            got = wire.exchange([frame])
            assert [outcome(message) for message in got] == [(None, INVALID_REQUEST)], frame
        assert wire.close() == 0
