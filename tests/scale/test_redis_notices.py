"""Resource and prompt notices cross processes on the Redis change bus: two toolwire processes
behind round-robin nginx, the official `mcp` client on the balancer, and the changes made on
one process or the other (each through a session of its own, straight to that process).

- Handshake era: the client's session has a live copy on both processes (round robin spreads
  its requests), its GET stream is on one of them. Each `notifications/resources/updated`
  for a URI it subscribed to, each `notifications/resources/list_changed` and
  `notifications/prompts/list_changed` reaches it exactly once, whichever process announced
  it: not once per copy.
- 2026-07-28: a `subscriptions/listen` stream hears the same, in that era's shape.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.scale._infra import Backend, Nginx, backends_on_one_redis, nginx_or_skip, start_nginx
from tests.scale._shared import call, initialize

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    # The handshake era's subscribe methods: the SDK flags them as gone in 2026-07-28.
    pytest.mark.filterwarnings("ignore:resources/.*subscribe is removed as of 2026-07-28"),
]

TARGET = "tests.scale.servers.announcing:server"
RUN_SECONDS = 150.0
WAIT_SECONDS = 20.0
UPDATED = "notifications/resources/updated"
RESOURCES_CHANGED = "notifications/resources/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"


@pytest.fixture
def two_behind_nginx() -> Iterator[tuple[Backend, Backend, Nginx]]:
    nginx_or_skip()
    with backends_on_one_redis(TARGET) as (_, first, second):
        balancer = start_nginx([first.port, second.port])
        yield first, second, balancer
        balancer.stop()


class Heard:
    """What the client's message handler received: notices by method, updates by URI."""

    def __init__(self) -> None:
        self.methods: Counter[str] = Counter()
        self.uris: Counter[str] = Counter()

    async def __call__(self, message: Any) -> None:
        inner = getattr(message, "root", message)
        method = getattr(inner, "method", None)
        if isinstance(method, str):
            self.methods[method] += 1
            if method == UPDATED:
                self.uris[str(inner.params.uri)] += 1

    async def until(self, counted: Counter[str], key: str, count: int) -> None:
        with anyio.fail_after(WAIT_SECONDS):
            while counted[key] < count:
                await anyio.sleep(0.01)


class Announcer:
    """A session of its own on each process, to run the announcing tools right there."""

    def __init__(self, backends: tuple[Backend, ...]) -> None:
        self._sessions = {
            backend.port: initialize(backend.url, "announcer") for backend in backends
        }

    async def run(self, backend: Backend, tool: str, **arguments: str) -> None:
        session_id = self._sessions[backend.port]
        answer = await anyio.to_thread.run_sync(
            lambda: call(backend.url, session_id, tool, arguments)
        )
        assert answer.status_code == 200, answer.text
        assert '"isError":true' not in answer.text, answer.text


def test_a_handshake_session_hears_each_notice_once_whichever_process_made_it(
    two_behind_nginx: tuple[Backend, Backend, Nginx],
) -> None:
    first, second, balancer = two_behind_nginx
    announcer = Announcer((first, second))
    heard = Heard()
    rounds = [first, second, first, second]

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with (
                streamable_http_client(balancer.url) as (read, write, *_),
                ClientSession(read, write, message_handler=heard) as session,
            ):
                await session.initialize()
                for uri in ["watched://warm", "watched://end"] + [
                    f"watched://doc-{n}" for n in range(len(rounds))
                ]:
                    await session.subscribe_resource(uri)
                # The client opens its GET stream in the background: announce until it hears.
                for attempt in range(200):
                    await announcer.run(rounds[attempt % 2], "touch", uri="watched://warm")
                    with anyio.move_on_after(0.25):
                        await heard.until(heard.uris, "watched://warm", 1)
                    if heard.uris["watched://warm"]:
                        break
                assert heard.uris["watched://warm"], "the GET stream never heard an update"
                for n, backend in enumerate(rounds):
                    await announcer.run(backend, "touch", uri=f"watched://doc-{n}")
                    await heard.until(heard.uris, f"watched://doc-{n}", 1)
                for n, backend in enumerate(rounds):
                    await announcer.run(backend, "publish_resource", uri=f"added://r{n}")
                    await heard.until(heard.methods, RESOURCES_CHANGED, n + 1)
                for n, backend in enumerate(rounds):
                    await announcer.run(backend, "publish_prompt", name=f"p{n}")
                    await heard.until(heard.methods, PROMPTS_CHANGED, n + 1)
                # A last update from each process: whatever the earlier ones would have
                # brought twice has arrived by the time these have.
                for count, backend in enumerate((first, second), start=1):
                    await announcer.run(backend, "touch", uri="watched://end")
                    await heard.until(heard.uris, "watched://end", count)

    anyio.run(scenario)
    assert {uri: count for uri, count in heard.uris.items() if uri.startswith("watched://doc")} == {
        f"watched://doc-{n}": 1 for n in range(len(rounds))
    }
    assert heard.uris["watched://end"] == 2
    assert heard.methods[RESOURCES_CHANGED] == len(rounds)
    assert heard.methods[PROMPTS_CHANGED] == len(rounds)
    # The session had a copy on each process: nginx sent its requests to both.
    entries = balancer.entries()
    (session_id,) = {entry.session_out for entry in entries if not entry.session_in}
    bearing = [entry for entry in entries if entry.session_in == session_id]
    assert {entry.tried[-1] for entry in bearing} == {first.address, second.address}


def test_a_listen_stream_hears_resource_and_prompt_notices_from_either_process(
    two_behind_nginx: tuple[Backend, Backend, Nginx],
) -> None:
    from mcp import Client
    from mcp.client.subscriptions import PromptsListChanged, ResourcesListChanged, ResourceUpdated

    first, second, balancer = two_behind_nginx
    announcer = Announcer((first, second))
    heard: list[Any] = []

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with (
                Client(balancer.url, mode="2026-07-28") as client,
                client.listen(
                    resources_list_changed=True,
                    prompts_list_changed=True,
                    resource_subscriptions=["watched://doc"],
                ) as subscription,
            ):
                assert subscription.honored.resource_subscriptions == ["watched://doc"]
                events = aiter(subscription)

                async def expect(backend: Backend, tool: str, **arguments: str) -> None:
                    await announcer.run(backend, tool, **arguments)
                    with anyio.fail_after(WAIT_SECONDS):
                        heard.append(await anext(events))

                for n, backend in enumerate((first, second)):
                    await expect(backend, "touch", uri="watched://doc")
                    await expect(backend, "publish_resource", uri=f"added://r{n}")
                    await expect(backend, "publish_prompt", name=f"p{n}")
                await expect(first, "touch", uri="watched://doc")  # nothing came twice before

    anyio.run(scenario)
    assert heard == [
        ResourceUpdated(uri="watched://doc"),
        ResourcesListChanged(),
        PromptsListChanged(),
    ] * 2 + [ResourceUpdated(uri="watched://doc")]
