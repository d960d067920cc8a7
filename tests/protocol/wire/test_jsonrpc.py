"""JSON-RPC framing: bad frames are answered (or ignored) exactly, and the session survives."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._jsonrpc import initialize_request

from toolwire.protocol.wire import jsonrpc
from toolwire.server import Server

from ..harness import session_for

pytestmark = pytest.mark.anyio


def _server() -> Server:
    server = Server("t", version="1.0")

    @server.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    return server


PARSE = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":'


@pytest.mark.parametrize(
    "frame",
    [b"{not json", b"\xff\xfe", b"", b"NaN", b'{"a":Infinity}', b'{"jsonrpc":"2.0"', b"\xc3\x28"],
)
async def test_unparseable_frames_get_parse_error_with_null_id(frame: bytes) -> None:
    async with session_for(_server()) as peer:
        await peer.feed(frame)
        assert len(peer.raw) == 1
        assert peer.raw[0].startswith(PARSE)
        # still alive
        assert (await peer.request(1, "ping"))["result"] == {}


async def test_utf16_bytes_are_not_guessed_as_json() -> None:
    async with session_for(_server()) as peer:
        await peer.feed('{"jsonrpc":"2.0","id":1,"method":"ping"}'.encode("utf-16"))
        assert peer.take()[0]["error"]["code"] == -32700


async def test_utf8_bom_is_tolerated() -> None:
    async with session_for(_server()) as peer:
        await peer.feed(b'\xef\xbb\xbf{"jsonrpc":"2.0","id":1,"method":"ping"}')
        assert peer.raw == [b'{"jsonrpc":"2.0","id":1,"result":{}}']


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (
            b"1",
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: not an object"}}',
        ),
        (
            b'"x"',
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: not an object"}}',
        ),
        (
            b"null",
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: not an object"}}',
        ),
        (
            b'{"id":1,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid request: \'jsonrpc\' must be \\"2.0\\""}}',
        ),
        (
            b'{"jsonrpc":"1.0","id":"a","method":"ping"}',
            b'{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"Invalid request: \'jsonrpc\' must be \\"2.0\\""}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: \'id\' must be a string or an integer"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: \'id\' must be a string or an integer"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: \'id\' must be a string or an integer"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: \'id\' must be a string or an integer"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":7,"method":5}',
            b'{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid request: \'method\' must be a string"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":7}',
            b'{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid request: \'method\' must be a string"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}',
            b'{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: \'params\' must be an object"}}',
        ),
        (
            b'{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}',
            b'{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: \'params\' must be an object"}}',
        ),
    ],
)
async def test_invalid_requests_are_answered_exactly(frame: bytes, expected: bytes) -> None:
    async with session_for(_server()) as peer:
        await peer.feed(frame)
        assert peer.raw == [expected]


@pytest.mark.parametrize(
    "frame",
    [
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","method":"no/such/notification","params":{"x":1}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled"}',
        b'{"jsonrpc":"1.0","method":"ping"}',
        b'{"jsonrpc":"2.0","id":5,"result":{}}',
        b'{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}}',
        b'{"jsonrpc":"2.0","result":{}}',
        b'{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}',
    ],
)
async def test_notifications_and_responses_never_get_replies(frame: bytes) -> None:
    async with session_for(_server()) as peer:
        await peer.feed(frame)
        assert peer.raw == []
        assert (await peer.request(1, "ping"))["result"] == {}


async def test_batches_are_answered_per_request_never_as_an_array() -> None:
    async with session_for(_server()) as peer:
        await peer.feed(
            b'[{"jsonrpc":"2.0","id":1,"method":"ping"},'
            b'{"jsonrpc":"2.0","method":"notifications/initialized"},'
            b'{"jsonrpc":"2.0","id":"b","method":"tools/list"}]'
        )
        assert peer.take() == [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {"code": -32600, "message": "Batches are not supported"},
            },
            {
                "jsonrpc": "2.0",
                "id": "b",
                "error": {"code": -32600, "message": "Batches are not supported"},
            },
        ]
        await peer.feed(b"[]")
        await peer.feed(b"[1,2,3]")
        assert (
            peer.take()
            == [
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Batches are not supported"},
                }
            ]
            * 2
        )
        await peer.feed(b'[{"jsonrpc":"2.0","method":"notifications/initialized"}]')
        assert peer.raw == []
        assert (await peer.request(2, "ping"))["result"] == {}


async def test_huge_and_unusual_ids_are_echoed_exactly() -> None:
    huge = 2**200
    async with session_for(_server()) as peer:
        await peer.feed(b'{"jsonrpc":"2.0","id":' + str(huge).encode() + b',"method":"ping"}')
        await peer.feed(b'{"jsonrpc":"2.0","id":-1,"method":"ping"}')
        await peer.feed(b'{"jsonrpc":"2.0","id":"","method":"ping"}')
        await peer.feed('{"jsonrpc":"2.0","id":"é\\u2028","method":"ping"}'.encode())
        assert peer.raw == [
            b'{"jsonrpc":"2.0","id":' + str(huge).encode() + b',"result":{}}',
            b'{"jsonrpc":"2.0","id":-1,"result":{}}',
            b'{"jsonrpc":"2.0","id":"","result":{}}',
            '{"jsonrpc":"2.0","id":"é\u2028","result":{}}'.encode(),
        ]


async def test_a_lone_surrogate_in_an_id_still_yields_valid_utf8() -> None:
    async with session_for(_server()) as peer:
        await peer.feed(b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}')
        assert peer.raw == [b'{"jsonrpc":"2.0","id":"\\ud800","result":{}}']


async def test_deeply_nested_json_is_a_parse_error_not_a_crash() -> None:
    async with session_for(_server()) as peer:
        await peer.feed(b"[" * 100_000 + b"]" * 100_000)
        assert peer.take()[0]["error"]["code"] in (-32700, -32600)
        assert (await peer.request(1, "ping"))["result"] == {}


async def test_reject_oversized_names_the_sizes() -> None:
    server = _server()
    server.max_message_bytes = 1000
    async with session_for(server) as peer:
        assert peer.session is not None
        await peer.session.reject_oversized(5000)
        assert peer.raw == [
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":'
            b'"Message of 5000 bytes exceeds the maximum message size of 1000 bytes"}}'
        ]


def test_encoding_is_compact_and_keeps_non_ascii() -> None:
    assert (
        jsonrpc.result_message(1, {"a": "é", "b": [1, 2]})
        == '{"jsonrpc":"2.0","id":1,"result":{"a":"é","b":[1,2]}}'.encode()
    )
    assert jsonrpc.error_message("x", -32601, "Method not found", "m") == (
        b'{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found","data":"m"}}'
    )
    assert json.loads(jsonrpc.notification("notifications/progress", {"p": 1})) == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"p": 1},
    }


async def test_fuzzed_frames_never_kill_the_session() -> None:
    """Bounded: 3000 frames of mutated valid messages, every reply is JSON-RPC."""
    import random

    rng = random.Random(1234)
    seeds = [
        initialize_request(client="f"),
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "x"}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        },
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "info"}},
    ]
    junk: list[object] = [None, True, 1.5, -(2**70), "", "x" * 50, [], {}, [1, {}], {"a": None}]
    async with session_for(_server()) as peer:
        for _ in range(3000):
            message = json.loads(json.dumps(rng.choice(seeds)))
            target = message
            if "params" in message and rng.random() < 0.6:
                target = message["params"]
            key = rng.choice(sorted(target))
            action = rng.random()
            if action < 0.7:
                target[key] = rng.choice(junk)
            elif action < 0.85:
                del target[key]
            frame = json.dumps(message).encode()
            if rng.random() < 0.1:
                cut = rng.randrange(len(frame))
                frame = frame[:cut] + bytes([rng.randrange(256)]) + frame[cut + 1 :]
            await peer.feed(frame)
        assert peer.session is not None
        peer.session.close()
    assert len(peer.raw) > 1000
    for message in peer.messages:
        assert message["jsonrpc"] == "2.0"
        if "method" in message:  # the server only ever sends notifications
            assert "id" not in message
            assert message["method"].startswith("notifications/")
            continue
        assert "id" in message
        assert ("result" in message) != ("error" in message)
        if "error" in message:
            assert isinstance(message["error"]["code"], int)
            assert isinstance(message["error"]["message"], str)


@pytest.mark.parametrize(
    "frame",
    [
        b'{"jsonrpc":"2.0","method":1,"params":"bar"}',  # JSON-RPC 2.0's own example
        b'{"jsonrpc":"2.0"}',
        b'{"jsonrpc":"2.0","params":{}}',
        b'{"jsonrpc":"2.0","method":null}',
    ],
)
async def test_id_less_messages_that_are_not_notifications_get_invalid_request(
    frame: bytes,
) -> None:
    """JSON-RPC 2.0 section 5.1: no string method and no id is not a notification but an
    invalid request, answered with id null."""
    async with session_for(_server()) as peer:
        await peer.feed(frame)
        assert peer.raw == [
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,'
            b'"message":"Invalid request: \'method\' must be a string"}}'
        ]


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES, padding=st.sampled_from(["", " ", "\n\t "]))
def test_the_fast_decoder_and_encoder_agree_with_the_json_module(
    value: object, padding: str
) -> None:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert jsonrpc.compact_json(value) == text
    framed = (padding + text + padding).encode("utf-8", "surrogatepass")
    try:
        expected = json.loads(framed.decode("utf-8"))
    except UnicodeDecodeError:  # a lone surrogate is not UTF-8: the frame is refused
        with pytest.raises(ValueError):
            jsonrpc.decode(framed)
        return
    assert jsonrpc.decode(framed) == expected


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b'{"a":', "Expecting value"),
        (b'{"a":1} x', "Extra data"),
        (b"[1, NaN]", "NaN is not valid JSON"),
        (b"", "Expecting value"),
    ],
)
def test_the_fast_decoder_raises_what_the_json_module_raises(frame: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        jsonrpc.decode(frame)


def test_a_cycle_is_a_value_error_as_in_the_json_module() -> None:
    cyclic: dict[str, object] = {}
    cyclic["self"] = cyclic
    with pytest.raises(ValueError, match="Circular reference"):
        jsonrpc.compact_json(cyclic)


async def test_a_number_too_long_to_read_is_a_parse_error_naming_the_limit() -> None:
    """Not Python's own advice to call `sys.set_int_max_str_digits()`, which the client can't."""
    limit = sys.get_int_max_str_digits()
    async with session_for(_server()) as peer:
        await peer.feed(
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":' + b"9" * 5000 + b"}}"
        )
        assert peer.take() == [
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {
                    "code": -32700,
                    "message": "Parse error",
                    "data": f"a number has more than {limit} digits",
                },
            }
        ]
