"""`Server.run(..., workers=N)` refuses, before any process starts, what worker processes
could not rebuild or serve, with a message naming the fix."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolwire import Server
from toolwire.transports.http.streamable.events import MemoryEventStore


def test_a_server_made_in_a_function_cannot_reach_the_workers() -> None:
    server = Server("local")
    with pytest.raises(ValueError, match="is not a global of any module") as caught:
        server.run("http", port=1, workers=2, stateless=True)
    assert "at module level" in str(caught.value)
    assert "toolwire run app.py:server --transport http --workers N" in str(caught.value)


def test_a_server_typed_into_python_c_is_named_as_such() -> None:
    code = (
        "from toolwire import Server\n"
        "server = Server('typed')\n"
        "server.run('http', port=1, workers=2, stateless=True)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 1
    assert "an interactive session or `python -c` code" in completed.stderr


def test_options_that_are_objects_cannot_be_sent_to_workers() -> None:
    server = Server("objects")
    with pytest.raises(ValueError, match=r"event_store=<.*MemoryEventStore") as caught:
        server.run("http", port=1, workers=2, event_store=MemoryEventStore())
    assert "Give backplane= a Redis URL" in str(caught.value)


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_workers_must_be_a_whole_number_of_at_least_one(workers: object) -> None:
    with pytest.raises(ValueError, match=f"workers must be an integer >= 1, not {workers!r}"):
        Server("count").run("http", port=1, workers=workers)


@pytest.mark.parametrize("transport", ["sse", "stdio"])
def test_workers_need_the_http_transport(transport: str) -> None:
    with pytest.raises(ValueError, match=f"workers= needs transport 'http', not '{transport}'"):
        Server("one").run(transport, workers=2)


@pytest.mark.parametrize("seconds", [30, None])
@pytest.mark.parametrize("transport", ["http", "sse"])
def test_header_timeout_is_refused_pointing_to_a_proxy(transport: str, seconds: object) -> None:
    with pytest.raises(ValueError) as caught:
        Server("heads").run(transport, port=1, header_timeout=seconds)
    message = str(caught.value)
    assert message.startswith("header_timeout no longer exists: uvicorn offers no public way")
    assert "nginx: client_header_timeout" in message


@pytest.mark.parametrize("seconds", [-1, "5", True, float("nan"), float("inf")])
@pytest.mark.parametrize("transport", ["http", "sse"])
def test_shutdown_grace_must_be_seconds_of_at_least_zero(transport: str, seconds: object) -> None:
    with pytest.raises(ValueError, match="shutdown_grace must be a number of seconds >= 0, not"):
        Server("grace").run(transport, port=1, shutdown_grace=seconds)
