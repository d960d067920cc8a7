"""Resource updates that cross a Redis outage: two toolwire processes (`--redis`), the official
`mcp` client following resources on the second one, updates announced on the first while
Redis, or the second process's way to it, is gone.

- Redis itself goes (killed, then started again on its port): the first process holds the
  update it could not publish and publishes it once Redis is back.
- Only the second process loses Redis (its connections run through a `CutRelay`): it misses
  an update the first one published, and once it hears again it tells each of its clients
  that every resource it follows may have changed, on a handshake-era session's GET stream
  and on a 2026-07-28 `subscriptions/listen` stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.redis._cut_relay import CutRelay
from tests.redis._server import RedisServer, start_redis
from tests.scale._infra import Backend, start_backend
from tests.scale.test_redis_notices import Announcer, Heard

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    # The handshake era's subscribe methods: the SDK flags them as gone in 2026-07-28.
    pytest.mark.filterwarnings("ignore:resources/.*subscribe is removed as of 2026-07-28"),
]

TARGET = "tests.scale.servers.announcing:server"
RUN_SECONDS = 150.0
WAIT_SECONDS = 30.0
WARM = "watched://warm"


@asynccontextmanager
async def _following(heard: Heard, url: str, uris: list[str]) -> AsyncIterator[ClientSession]:
    """A handshake-era session on `url` subscribed to `uris` and to WARM."""
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write, message_handler=heard) as session,
    ):
        await session.initialize()
        for uri in [WARM, *uris]:
            await session.subscribe_resource(uri)
        yield session


async def _until_the_get_stream_hears(heard: Heard, announcer: Announcer, backend: Backend) -> None:
    # The client opens its GET stream in the background: announce on its process until it
    # hears (announced there, the update needs no Redis).
    for _ in range(200):
        await announcer.run(backend, "touch", uri=WARM)
        with anyio.move_on_after(0.25):
            await heard.until(heard.uris, WARM, 1)
        if heard.uris[WARM]:
            return
    raise AssertionError("the GET stream never heard an update")


def test_an_update_announced_while_redis_is_down_reaches_a_client_of_another_process() -> None:
    redis = start_redis()
    first = start_backend(TARGET, args=["--redis", redis.url])
    second = start_backend(TARGET, args=["--redis", redis.url])
    announcer = Announcer((first, second))  # its sessions are made while Redis is there
    heard = Heard()
    back: list[RedisServer] = []

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with _following(heard, second.url, ["watched://doc"]) as _session:
                await _until_the_get_stream_hears(heard, announcer, second)
                redis.kill()
                # The first process holds its session: the call runs, the notice waits.
                await announcer.run(first, "touch", uri="watched://doc")
                back.append(await anyio.to_thread.run_sync(lambda: start_redis(port=redis.port)))
                with anyio.fail_after(WAIT_SECONDS):
                    await heard.until(heard.uris, "watched://doc", 1)

    try:
        anyio.run(scenario)
    finally:
        for process in (first, second, *back):
            process.stop()
    assert heard.uris["watched://doc"] >= 1
    assert "Traceback" not in first.log_text() + second.log_text()


@pytest.fixture
def second_behind_a_relay() -> Iterator[tuple[Backend, Backend, CutRelay]]:
    redis = start_redis()
    relay = CutRelay(redis.port)
    first = start_backend(TARGET, args=["--redis", redis.url])
    second = start_backend(TARGET, args=["--redis", relay.url])
    yield first, second, relay
    first.stop()
    second.stop()
    relay.close()
    redis.stop()


def test_a_process_cut_off_from_redis_tells_its_followers_when_it_hears_again(
    second_behind_a_relay: tuple[Backend, Backend, CutRelay],
) -> None:
    from mcp import Client
    from mcp.client.subscriptions import ResourceUpdated

    first, second, relay = second_behind_a_relay
    announcer = Announcer((first, second))
    heard = Heard()
    listened: list[Any] = []

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with (
                _following(heard, second.url, ["watched://doc"]) as _session,
                Client(second.url, mode="2026-07-28") as modern,
                modern.listen(resource_subscriptions=["watched://listened"]) as subscription,
            ):
                assert subscription.honored.resource_subscriptions == ["watched://listened"]
                events = aiter(subscription)
                await _until_the_get_stream_hears(heard, announcer, second)
                warmed = heard.uris[WARM]
                relay.cut()  # the second process alone loses Redis
                await announcer.run(first, "touch", uri="watched://doc")
                await announcer.run(first, "touch", uri="watched://listened")
                await anyio.sleep(1.0)  # time enough to hear it, had it come
                assert heard.uris["watched://doc"] == 0, "heard while cut off"
                relay.mend()
                with anyio.fail_after(WAIT_SECONDS):
                    listened.append(await anext(events))
                    await heard.until(heard.uris, "watched://doc", 1)
                    # Every URI the client follows is told, not only the one it missed.
                    await heard.until(heard.uris, WARM, warmed + 1)

    anyio.run(scenario)
    assert listened == [ResourceUpdated(uri="watched://listened")]
    assert heard.uris["watched://doc"] == 1


def test_a_subscription_made_on_another_process_while_cut_off_is_told_too(
    second_behind_a_relay: tuple[Backend, Backend, CutRelay],
) -> None:

    from tests.scale._shared import request, session_headers

    first, second, relay = second_behind_a_relay
    announcer = Announcer((first, second))
    heard = Heard()
    session_ids: set[str] = set()

    async def note_session(response: httpx2.Response) -> None:
        if "mcp-session-id" in response.headers:
            session_ids.add(response.headers["mcp-session-id"])

    def subscribe_on_first(session_id: str, uri: str) -> None:
        # The same session, through the other process: it saves the subscription in the
        # session's record and announces SESSION_UPDATED, which the cut-off process misses.
        answer = httpx2.post(
            first.url,
            content=request("resources/subscribe", {"uri": uri}, 77),
            headers=session_headers(session_id),
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        assert '"error"' not in answer.text, answer.text

    async def scenario() -> None:
        client = httpx2.AsyncClient(timeout=30, event_hooks={"response": [note_session]})
        with anyio.fail_after(RUN_SECONDS):
            async with (
                client,
                streamable_http_client(second.url, http_client=client) as (read, write, *_),
                ClientSession(read, write, message_handler=heard) as session,
            ):
                await session.initialize()
                await session.subscribe_resource(WARM)
                await _until_the_get_stream_hears(heard, announcer, second)
                (session_id,) = session_ids
                relay.cut()  # the second process alone loses Redis
                await anyio.to_thread.run_sync(subscribe_on_first, session_id, "watched://new")
                await anyio.sleep(1.0)
                relay.mend()
                with anyio.fail_after(WAIT_SECONDS):
                    # Told on the second process's GET stream: its copy read the record
                    # again before it told, so the subscription made elsewhere is in it.
                    await heard.until(heard.uris, "watched://new", 1)

    anyio.run(scenario)
    assert heard.uris["watched://new"] == 1
    assert "Traceback" not in first.log_text() + second.log_text()
