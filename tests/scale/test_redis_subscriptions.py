"""A handshake-era session's resource subscriptions live in its record: a session rebuilt
from Redis on another process still hears of updates to what its client subscribed to, and
an unsubscribe made on one process holds on the others."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from tests.scale._infra import Backend, backends_on_one_redis
from tests.scale._shared import call, initialize, request, session_headers

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TARGET = "tests.scale.servers.subscribing:server"
UPDATED = "notifications/resources/updated"
URI = "watched://doc"


@pytest.fixture
def two_backends() -> Iterator[tuple[Backend, Backend]]:
    with backends_on_one_redis(TARGET) as (_, first, second):
        yield first, second


def _post(url: str, session_id: str, method: str, params: dict[str, Any], rid: int) -> None:
    answer = httpx.post(
        url,
        content=request(method, params, rid),
        headers=session_headers(session_id),
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert '"error"' not in answer.text, answer.text


async def _heard_on_get_stream(url: str, session_id: str, *, updates: int) -> list[str]:
    """Open the session's GET stream on `url`, have `touch` run there, and collect what the
    stream carries until the tool's answer is in and the stream has been drained a while."""
    heard: list[str] = []

    async def collect(stream: httpx.Response) -> None:
        async for line in stream.aiter_lines():
            if line.startswith("data:") and line[5:].strip():
                heard.append(json.loads(line[5:])["method"])

    with anyio.fail_after(60):
        async with (
            httpx.AsyncClient(timeout=60) as client,
            client.stream("GET", url, headers=session_headers(session_id)) as stream,
        ):
            assert stream.status_code == 200
            async with anyio.create_task_group() as group:
                group.start_soon(collect, stream)
                await anyio.sleep(0.3)  # the stream is attached on this process
                answer = await anyio.to_thread.run_sync(call, url, session_id, "touch")
                assert answer.status_code == 200, answer.text
                if updates:
                    with anyio.fail_after(20):
                        while heard.count(UPDATED) < updates:
                            await anyio.sleep(0.02)
                else:  # nothing is expected: give a stray update the time to show up
                    await anyio.sleep(0.5)
                group.cancel_scope.cancel()
    return heard


def test_a_subscription_made_on_one_process_holds_on_another(
    two_backends: tuple[Backend, Backend],
) -> None:
    first, second = two_backends
    session_id = initialize(first.url, client="follower")
    _post(first.url, session_id, "resources/subscribe", {"uri": URI}, 2)
    # The second process has never seen this session: it rebuilds it from Redis.
    heard = anyio.run(lambda: _heard_on_get_stream(second.url, session_id, updates=1))
    assert heard.count(UPDATED) == 1


def test_an_unsubscribe_is_kept_in_the_record_too(
    two_backends: tuple[Backend, Backend],
) -> None:
    first, second = two_backends
    session_id = initialize(first.url, client="follower")
    _post(first.url, session_id, "resources/subscribe", {"uri": URI}, 2)
    _post(first.url, session_id, "resources/unsubscribe", {"uri": URI}, 3)
    heard = anyio.run(lambda: _heard_on_get_stream(second.url, session_id, updates=0))
    assert UPDATED not in heard
