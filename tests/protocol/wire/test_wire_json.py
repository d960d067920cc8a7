"""Frames are JSON every parser accepts, whatever value reaches the encoder."""

from __future__ import annotations

import json
import logging
import math

import pydantic_core
import pytest

from toolwire.protocol.wire.jsonrpc import (
    compact_json,
    encode_value,
    notification,
    wire_json,
)


def _strict(data: bytes) -> object:
    def refuse(name: str) -> object:
        raise AssertionError(f"{name} in {data!r}")

    return json.loads(data, parse_constant=refuse)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_become_null_with_a_warning(
    bad: float, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        frame = notification("notifications/progress", {"progress": bad, "nested": [1, {"x": bad}]})
    assert _strict(frame) == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progress": None, "nested": [1, {"x": None}]},
    }
    assert "JSON cannot carry" in caplog.text


def test_integers_past_the_digit_limit_become_null() -> None:
    assert _strict(encode_value({"n": 10**5000, "m": 7})) == {"n": None, "m": 7}


def test_lone_surrogates_and_nan_together_stay_valid_utf8_json() -> None:
    data = encode_value({"text": "a\ud800b\ud83d\ude00", "x": math.nan})
    data.decode("utf-8")
    assert _strict(data) == {"text": "a\ufffdb\U0001f600", "x": None}
    pydantic_core.from_json(data)  # strict: an escaped lone surrogate is refused


def test_finite_values_are_untouched_and_nothing_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    value = {"a": 1.5, "b": [True, None, "é"], "c": 10**100}
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        assert encode_value(value) == compact_json(value).encode()
    assert caplog.text == ""


def test_wire_json_refuses_what_compact_json_allows() -> None:
    assert compact_json([math.nan]) == "[NaN]"
    with pytest.raises(ValueError):
        wire_json([math.nan])


def test_a_cycle_still_raises() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(ValueError):
        encode_value({"x": math.nan, "cycle": cycle})


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":"aaa', 7),
        (b' \r\n{"method":"m", "id" : "req-1", "params":[1,2', "req-1"),
        (b"\xef\xbb\xbf" + '{"id":"é","method":"m"'.encode(), "é"),
        (b'{"method":"m","id":12345678901234567890123,"params":[[[', 12345678901234567890123),
        (b'{"params":{"id":3,"a":"xx', None),  # an id inside params is not the request's
        (b'{"id":"abc","result":{}}', None),  # a response is never answered
        (b'{"id":5,"error":{"code":1', None),
        (b'{"id":"ab', None),  # the id itself is cut off
        (b'{"id":1.5,"method":"m"', None),  # not a valid id
        (b'{"id":null,"method":"m"', None),
        (b'{"id":true,"method":"m"', None),
        (b'[{"id":1}]', None),
        (b"", None),
        (b"not json at all", None),
        (b"{" + b"[" * 5000, None),
        (b'{"method":"m","params":' + b"[" * 5000, None),
    ],
)
def test_sniff_request_id(head: bytes, expected: object) -> None:
    from toolwire.protocol.wire.jsonrpc import sniff_request_id

    assert sniff_request_id(head) == expected
