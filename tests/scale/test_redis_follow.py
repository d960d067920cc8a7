"""A stream broken on one process and resumed on another while its call still runs on the
first: the second follows it live through Redis, to the call's result, and ends it when the
first process dies instead of waiting forever.

Two `toolwire run --redis` processes share a real redis-server; the tool (servers/
slow_progress.py) reports ten steps of progress slowly, then answers.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.scale._infra import Backend, backends_on_one_redis
from tests.scale._shared import events, initialize, request, session_headers

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

TARGET = "tests.scale.servers.slow_progress:server"
STEPS = 10
READ_SECONDS = 60.0  # no read of a stream waits longer: a follower that hangs fails the test


@pytest.fixture
def two_processes() -> Iterator[tuple[Backend, Backend]]:
    with backends_on_one_redis(TARGET) as (_, first, second):
        yield first, second


def _count_call(rid: int, pause: float) -> bytes:
    params = {
        "name": "count_slowly",
        "arguments": {"steps": STEPS, "pause": pause},
        "_meta": {"progressToken": f"count-{rid}"},
    }
    return request("tools/call", params, rid)


def _sse_events(lines: Iterator[str]) -> Iterator[tuple[str | None, dict[str, Any] | None]]:
    """The events of an SSE body as its lines come: (id, message; None for a priming event)."""
    block: list[str] = []
    for line in lines:
        if line:
            block.append(line)
            continue
        if block:
            yield from events("\n".join(block) + "\n\n")
        block = []
    if block:
        yield from events("\n".join(block) + "\n\n")


def _read_until_progress(
    url: str, session_id: str, rid: int, steps: int, pause: float
) -> tuple[str, list[dict[str, Any]]]:
    """POST the call, read its stream until `steps` progress events, drop the connection;
    return the last event id read and the messages."""
    seen: list[dict[str, Any]] = []
    last_id = None
    with httpx.stream(
        "POST",
        url,
        content=_count_call(rid, pause),
        headers=session_headers(session_id),
        timeout=READ_SECONDS,
    ) as answer:
        assert answer.status_code == 200, answer.read()
        for event_id, message in _sse_events(answer.iter_lines()):
            last_id = event_id or last_id
            if message is not None:
                seen.append(message)
            if len(seen) == steps:
                break
    assert last_id is not None
    return last_id, seen


def _progress(messages: list[dict[str, Any]]) -> list[float]:
    return [
        m["params"]["progress"] for m in messages if m.get("method") == "notifications/progress"
    ]


@contextlib.contextmanager
def _resumed(
    url: str, session_id: str, last_id: str
) -> Iterator[Iterator[tuple[str | None, dict[str, Any] | None]]]:
    """GET the session's stream on `url` from after `last_id`: its events as they come."""
    headers = session_headers(session_id, **{"last-event-id": last_id})
    with httpx.stream("GET", url, headers=headers, timeout=READ_SECONDS) as resumed:
        assert resumed.status_code == 200, resumed.read()
        yield _sse_events(resumed.iter_lines())


def _resume_again(url: str, session_id: str, last_id: str) -> httpx.Response:
    """Resume once more after the stream ended: a 409, there being nothing to replay."""
    headers = session_headers(session_id, **{"last-event-id": last_id})
    again = httpx.get(url, headers=headers, timeout=READ_SECONDS)
    assert again.status_code == 409, again.text
    return again


def test_a_stream_resumed_on_another_process_follows_the_call_live_to_its_result(
    two_processes: tuple[Backend, Backend],
) -> None:
    producer, follower = two_processes
    session_id = initialize(producer.url)
    last_id, before = _read_until_progress(producer.url, session_id, 7, steps=3, pause=0.3)
    assert _progress(before) == [1, 2, 3]
    ids: list[str] = []
    after: list[dict[str, Any]] = []
    with _resumed(follower.url, session_id, last_id) as resumed:
        for event_id, message in resumed:
            if message is not None:
                assert event_id is not None
                ids.append(event_id)
                after.append(message)
    # Every remaining event exactly once, in order, the result last; the call ran on the
    # first process all along.
    assert _progress(after) == list(range(4, STEPS + 1))
    assert after[-1]["id"] == 7
    assert after[-1]["result"]["content"][0]["text"] == f"{producer.pid}: counted {STEPS}"
    assert [m for m in after if "result" in m] == [after[-1]]
    assert len(set(ids)) == len(ids)
    # The stream ended with the result: resuming once more gets nothing to replay.
    _resume_again(follower.url, session_id, ids[-1])


class _RouteResumptions(httpx.AsyncBaseTransport):
    """Sends every GET carrying `Last-Event-ID` to another port: a balancer that happens to
    send the client's resumption to the other process."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx.AsyncHTTPTransport()
        self.rerouted: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and "last-event-id" in request.headers:
            request.url = request.url.copy_with(port=self.port)
            self.rerouted.append(request.headers["last-event-id"])
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_the_official_client_gets_every_progress_and_the_result_through_another_process(
    two_processes: tuple[Backend, Backend],
) -> None:
    producer, follower = two_processes
    route = _RouteResumptions(follower.port)
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async def scenario() -> Any:
        http = httpx.AsyncClient(transport=route, timeout=httpx.Timeout(30, read=READ_SECONDS))
        async with (
            http,
            streamable_http_client(producer.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            with anyio.fail_after(READ_SECONDS):
                # The tool ends its POST response after step 3; the client resumes, and the
                # resumption reaches the other process.
                return await session.call_tool(
                    "count_slowly",
                    {"steps": STEPS, "pause": 0.3, "close_after": 3},
                    progress_callback=on_progress,
                )

    result = anyio.run(scenario)
    # One resumption carried the rest of the call: the second process followed it live
    # (replaying and ending would have the client come back for each later event, and give
    # up once a resumption found nothing new).
    assert len(route.rerouted) == 1, route.rerouted
    assert not result.is_error, result
    assert result.content[0].text == f"{producer.pid}: counted {STEPS}"
    assert progress == [float(step) for step in range(1, STEPS + 1)]


def test_a_follower_whose_producer_is_sigkilled_ends_the_stream_instead_of_hanging(
    two_processes: tuple[Backend, Backend],
) -> None:
    producer, follower = two_processes
    session_id = initialize(producer.url)
    last_id, _ = _read_until_progress(producer.url, session_id, 9, steps=2, pause=1.0)
    heard: list[dict[str, Any]] = []
    ended = False
    with _resumed(follower.url, session_id, last_id) as resumed:
        for event_id, message in resumed:
            if message is None:
                continue
            heard.append(message)
            last_id = event_id or last_id
            if _progress(heard) and _progress(heard)[-1] >= 4:
                producer.kill()  # SIGKILL mid-stream: no end marker is ever written
        ended = True  # the follower ended the response (a hang would time the read out)
    assert ended
    assert 4 in _progress(heard)
    assert not [m for m in heard if "result" in m]
    deadline = time.monotonic() + 30
    while "stopped renewing its lease" not in follower.log_text():
        assert time.monotonic() < deadline, follower.log_text()
        time.sleep(0.1)
    # A client resuming again learns that nothing more will come here: retry the request.
    again = _resume_again(follower.url, session_id, last_id)
    assert "retry the request" in json.loads(again.text)["error"]["message"]


def test_a_producer_stopped_gracefully_ends_its_followers_with_an_end_marker(
    two_processes: tuple[Backend, Backend],
) -> None:
    producer, follower = two_processes
    session_id = initialize(producer.url)
    # Thirty seconds of steps: the call is still running when the 5 s grace ends.
    last_id, _ = _read_until_progress(producer.url, session_id, 11, steps=2, pause=3.0)
    heard: list[dict[str, Any]] = []
    with _resumed(follower.url, session_id, last_id) as resumed:
        for event_id, message in resumed:
            if message is None:
                continue
            heard.append(message)
            last_id = event_id or last_id
            if _progress(heard)[-1:] == [3]:
                # SIGTERM: the call gets the grace (its client left, but may resume, as this
                # one did elsewhere), then is refused; the refusal is the stream's last
                # event, stored with its end marker before the process exits.
                assert producer.stop() == 0
    assert not [m for m in heard if "result" in m]
    assert heard[-1] == {
        "jsonrpc": "2.0",
        "id": 11,
        "error": {
            "code": -32000,
            "message": "Server is shutting down: the call did not finish within the 5 s "
            "shutdown grace period and was cancelled",
        },
    }
    # Ended by the marker, not by the lease lapsing.
    assert "stopped renewing its lease" not in follower.log_text(), producer.log_text()
    _resume_again(follower.url, session_id, last_id)
