"""Handshake-era sessions across toolwire processes sharing a real Redis (`--redis URL`):
a session made on one process continues on another and after a restart, a stream broken on
one process resumes on another, and DELETE on one ends the session on all."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import anyio
import httpx2 as httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.redis._server import RedisServer, start_redis
from tests.scale._infra import Backend, nginx_or_skip, start_backend, start_nginx
from tests.scale._shared import (
    TARGET,
    call,
    events,
    initialize,
    request,
    result_text,
    session_headers,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = start_redis()
    yield server
    server.stop()


def backend(redis: RedisServer) -> Backend:
    return start_backend(TARGET, args=["--redis", redis.url])


def test_official_client_through_round_robin_nginx_keeps_one_session(
    redis_server: RedisServer,
) -> None:
    nginx_or_skip()
    first, second = backend(redis_server), backend(redis_server)
    balancer = start_nginx([first.port, second.port])  # round robin, no stickiness
    answers: list[str] = []

    async def scenario() -> None:
        with anyio.fail_after(120):
            async with (
                streamable_http_client(balancer.url) as (read, write, *_),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = await session.list_tools()
                assert {"whoami", "client_name", "grow"} <= {t.name for t in tools.tools}
                for _ in range(30):
                    result = await session.call_tool("client_name", {})
                    assert not result.is_error, result
                    answers.append(result.content[0].text)  # type: ignore[union-attr]

    anyio.run(scenario)
    pids = {int(text.split(":")[0]) for text in answers}
    assert pids == {first.pid, second.pid}  # one session, served by both processes
    # Whichever process served the call, it knew the client from the session's record.
    assert {text.split(":", 1)[1] for text in answers} == {"mcp"}


def test_a_session_made_on_one_process_goes_on_on_another_and_delete_ends_it_on_both(
    redis_server: RedisServer,
) -> None:
    first, second = backend(redis_server), backend(redis_server)
    session_id = initialize(first.url, client="alice")
    for url, backend_pid in ((first.url, first.pid), (second.url, second.pid)) * 2:
        answer = call(url, session_id, "client_name")
        assert answer.status_code == 200, answer.text
        assert result_text(answer) == f"{backend_pid}:alice"
    gone = httpx.delete(second.url, headers=session_headers(session_id), timeout=30)
    assert gone.status_code == 200, gone.text
    # The first process still held a live copy; the change bus told it the session ended.
    deadline = time.monotonic() + 10
    status = 200
    while time.monotonic() < deadline:
        status = call(first.url, session_id, "whoami").status_code
        if status == 404:
            break
        time.sleep(0.05)
    assert status == 404
    assert call(second.url, session_id, "whoami").status_code == 404


def _wait_for_log_level(redis: RedisServer, session_id: str, level: str) -> None:
    import redis as redis_py  # the test extra; the store's own client is the app's

    client = redis_py.Redis.from_url(redis.url)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            raw = client.get(f"toolwire:session:{session_id}")
            if raw is not None and json.loads(raw).get("log_level") == level:
                return
            time.sleep(0.01)
        raise AssertionError(f"the record of {session_id} never took log level {level!r}")
    finally:
        client.close()


def test_a_restarted_process_continues_its_sessions_with_their_log_level(
    redis_server: RedisServer,
) -> None:
    first = backend(redis_server)
    quiet = initialize(first.url, client="quiet")
    chatty = initialize(first.url, client="chatty")
    answer = httpx.post(
        first.url,
        content=request("logging/setLevel", {"level": "error"}, 5),
        headers=session_headers(quiet),
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    # The record is written back right after the reply is sent, not before: a SIGKILL inside
    # that window (one Redis round trip) loses the new level. What this test proves is that a
    # restart keeps what the record holds, so it waits for the record to hold it.
    _wait_for_log_level(redis_server, quiet, "error")
    first.kill()  # SIGKILL: nothing is saved on the way out
    again = backend(redis_server)
    assert again.pid != first.pid
    answer = call(again.url, quiet, "client_name")
    assert answer.status_code == 200, answer.text
    assert result_text(answer) == f"{again.pid}:quiet"
    # long_story logs at info: the session that asked for errors only hears none of it,
    # while the other one, at the default level, does.
    logs = {}
    for session_id in (quiet, chatty):
        told = call(again.url, session_id, "long_story", {"parts": 1}, rid=9)
        assert told.status_code == 200, told.text
        logs[session_id] = [
            message
            for _, message in events(told.text)
            if message and message.get("method") == "notifications/message"
        ]
    assert logs[quiet] == []
    assert [m["params"]["data"] for m in logs[chatty]] == ["part 1"]


def test_a_stream_broken_on_one_process_resumes_on_another(redis_server: RedisServer) -> None:
    first, second = backend(redis_server), backend(redis_server)
    session_id = initialize(first.url)
    # The tool sends part 1, ends the SSE response (the client is to resume), then goes on.
    answer = call(first.url, session_id, "long_story", {"parts": 3}, rid=7)
    assert answer.status_code == 200, answer.text
    seen = events(answer.text)
    assert [m["params"]["data"] for _, m in seen if m] == ["part 1"]
    last_id = seen[-1][0]
    assert last_id is not None
    replayed: list[dict[str, object]] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the call finishes on the first process meanwhile
        resumed = httpx.get(
            second.url,
            headers=session_headers(session_id, **{"last-event-id": last_id}),
            timeout=30,
        )
        if resumed.status_code == 409:  # nothing stored after last_id yet: the call goes on
            assert "carried by another server process" in resumed.text
            time.sleep(0.1)
            continue
        assert resumed.status_code == 200, resumed.text
        for event_id, message in events(resumed.text):
            if message is not None:
                replayed.append(message)
            if event_id is not None:
                last_id = event_id
        if any("result" in message for message in replayed):
            break
        time.sleep(0.1)
    logs = [m["params"]["data"] for m in replayed if m.get("method") == "notifications/message"]  # type: ignore[index]
    assert logs == ["part 2", "part 3"]
    assert replayed[-1]["id"] == 7
    assert replayed[-1]["result"]["content"][0]["text"] == f"{first.pid}: told 3 parts"  # type: ignore[index]


def test_a_get_stream_of_a_killed_process_resumes_on_another_and_goes_on_live(
    redis_server: RedisServer,
) -> None:
    first, second = backend(redis_server), backend(redis_server)
    session_id = initialize(first.url)
    with httpx.stream("GET", first.url, headers=session_headers(session_id), timeout=30) as stream:
        assert stream.status_code == 200
        lines = stream.iter_lines()
        priming = next(line for line in lines if line.startswith("id:"))
    last_id = priming[3:].strip()
    first.kill()
    heard: list[dict[str, object]] = []
    with httpx.stream(
        "GET",
        second.url,
        headers=session_headers(session_id, **{"last-event-id": last_id}),
        timeout=30,
    ) as stream:
        # Not a 409, not a dead end: the session's GET stream, carried by this process now.
        assert stream.status_code == 200, stream.read()
        answer = call(second.url, session_id, "grow", {"name": "grown_after_failover"})
        assert answer.status_code == 200, answer.text
        data = []
        for line in stream.iter_lines():
            if line.startswith("data:") and line[5:].strip():
                data.append(line[5:].strip())
                heard.append(json.loads(data[-1]))
                break
    assert heard == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}]


def test_workers_share_sessions_through_redis(redis_server: RedisServer) -> None:
    # `--workers 2`: the kernel spreads connections over two processes on one port; with
    # the Redis store any of them serves the session (no 404s, no warning printed).
    server = start_backend(TARGET, args=["--workers", "2", "--redis", redis_server.url])
    session_id = initialize(server.url, client="worker-client")
    pids = set()
    for _ in range(20):
        answer = call(server.url, session_id, "client_name")
        assert answer.status_code == 200, answer.text
        pid, name = result_text(answer).split(":")
        assert name == "worker-client"
        pids.add(int(pid))
    assert server.pid not in pids  # the workers answered, not their supervisor
    assert "without --stateless" not in server.log_text()
    print(f"\n20 calls of one session served by worker pids {sorted(pids)}")
