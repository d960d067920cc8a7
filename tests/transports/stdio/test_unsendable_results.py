"""Issue #11: nothing but valid JSON on the wire, whatever a tool returns or a client sends.

A real server process; every stdout line is parsed with a strict parser (NaN, Infinity and
-Infinity refused, as `JSON.parse`, Go and serde refuse them).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import jsonschema
import pytest
from tests.transports._proc import INIT, ROOT, call, child_env, frame

SERVER = textwrap.dedent(
    '''
    import math
    from toolwire import Server

    server = Server("unsendable", version="1")

    @server.tool
    def ratio(a: float, b: float) -> float:
        """a / b, with IEEE semantics for b == 0."""
        if b == 0:
            return math.copysign(math.inf, a) if a else math.nan
        return a / b

    @server.tool
    def echo_number(x: float) -> float:
        """Return x as given."""
        return x

    @server.tool
    def stats(values: list[float]) -> dict[str, float]:
        """Mean and max of values."""
        return {"mean": sum(values) / len(values) if values else math.nan, "max": max(values, default=-math.inf)}

    @server.tool
    def loose(x: float):
        """No return annotation, so no output schema."""
        return {"x": x}

    @server.tool
    def huge() -> int:
        """A number past Python's int-to-str digit limit."""
        return 10**5000

    @server.tool
    def fine(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    if __name__ == "__main__":
        server.run()
    '''
)


def _strict(line: bytes) -> dict[str, Any]:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} on the wire: {line[:200]!r}")

    return dict(json.loads(line, parse_constant=refuse))


@pytest.fixture(scope="module")
def replies(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    script = tmp_path_factory.mktemp("unsendable") / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    requests = [
        frame(INIT),
        frame({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        frame({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "ratio", {"a": 0.0, "b": 0.0}),
        call(4, "ratio", {"a": -1.0, "b": 0.0}),
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo_number","arguments":{"x":1e400}}}\n',
        call(6, "stats", {"values": []}),
        call(7, "stats", {"values": [1.0, 3.0]}),
        b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"loose","arguments":{"x":-1e999}}}\n',
        call(9, "huge"),
        call(10, "fine", {"a": 2, "b": 3}),
    ]
    proc = subprocess.run(
        [sys.executable, str(script)],
        input=b"".join(requests),
        capture_output=True,
        env=child_env(),
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    messages = [_strict(line) for line in proc.stdout.split(b"\n") if line]
    by_id = {m["id"]: m for m in messages}
    by_id[0] = {"stderr": proc.stderr.decode("utf-8", "replace")}
    return by_id


def _schemas(replies: dict[int, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t.get("outputSchema") for t in replies[2]["result"]["tools"]}


@pytest.mark.parametrize(("request_id", "spelled"), [(3, "NaN"), (4, "-Infinity"), (5, "Infinity")])
def test_non_finite_float_results_keep_honest_text_and_no_structured_content(
    replies: dict[int, dict[str, Any]], request_id: int, spelled: str
) -> None:
    result = replies[request_id]["result"]
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": spelled}]
    assert "structuredContent" not in result


def test_a_dict_holding_nan_keeps_its_text_mirror(replies: dict[int, dict[str, Any]]) -> None:
    result = replies[6]["result"]
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": '{"mean":NaN,"max":-Infinity}'}]
    assert "structuredContent" not in result
    loose = replies[8]["result"]
    assert loose["content"] == [{"type": "text", "text": '{"x":-Infinity}'}]
    assert "structuredContent" not in loose


def test_finite_structured_content_still_matches_the_output_schema(
    replies: dict[int, dict[str, Any]],
) -> None:
    result = replies[7]["result"]
    assert result["structuredContent"] == {"mean": 2.0, "max": 3.0}
    jsonschema.validate(result["structuredContent"], _schemas(replies)["stats"])
    assert replies[10]["result"]["structuredContent"] == {"result": 5}


def test_each_left_out_structured_content_is_logged(replies: dict[int, dict[str, Any]]) -> None:
    stderr = replies[0]["stderr"]
    for name in ("ratio", "echo_number", "stats", "loose"):
        assert f"tool '{name}' returned NaN or Infinity" in stderr


def test_an_integer_past_the_digit_limit_is_a_clear_tool_error(
    replies: dict[int, dict[str, Any]],
) -> None:
    result = replies[9]["result"]
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith("Tool 'huge' returned a value that cannot be sent as JSON: ")
    assert "4300 digits" in text
    assert "Internal error" not in text
