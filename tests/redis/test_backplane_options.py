"""`RedisBackplane(lease=, max_followers=)` reach its `RedisEventStore`, with the store's
defaults and checks; on a real redis-server: the lease a running stream holds lasts what the
backplane was given, and a backplane's follower bound answers 503 beyond it."""

from __future__ import annotations

import asyncio
import inspect
import json
import secrets

import httpx2 as httpx
import pytest
from tests.redis._server import RedisServer
from tests.redis._streams import break_off, open_streaming_session, slow_server
from tests.transports.http._http_harness import serving

from toolwire.redis import RedisBackplane, RedisEventStore

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("name", ["lease", "max_followers"])
def test_the_defaults_are_the_stores(name: str) -> None:
    ours = inspect.signature(RedisBackplane).parameters[name]
    store = inspect.signature(RedisEventStore).parameters[name]
    assert ours.default == store.default
    assert ours.kind is inspect.Parameter.KEYWORD_ONLY
    backplane = RedisBackplane()
    assert getattr(backplane.events, name) == store.default


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lease": 0}, "lease must be a number of seconds > 0, not 0"),
        ({"lease": -1.5}, "lease must be a number of seconds > 0, not -1.5"),
        ({"max_followers": -1}, "max_followers must be an integer >= 0, not -1"),
        ({"max_followers": True}, "max_followers must be an integer >= 0, not True"),
    ],
)
def test_bad_values_are_refused_as_the_store_refuses_them(
    options: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        RedisBackplane(**options)  # type: ignore[arg-type]


def test_a_running_streams_lease_lasts_what_the_backplane_was_given(
    module_redis: RedisServer,
) -> None:
    prefix = f"t{secrets.token_hex(4)}"

    async def scenario() -> int:
        backplane = RedisBackplane(module_redis.url, prefix=prefix, lease=1.5)
        store = backplane.events
        store.produce("s.a.1")
        await store.store("s.a.1", b'{"n":1}')
        try:
            return int(await backplane.link.client.pttl(f"{prefix}:live:s.a.1"))
        finally:
            await backplane.close()

    remaining = asyncio.run(scenario())
    assert 0 < remaining <= 1500  # the default lease would be 6000 ms


def test_a_backplanes_follower_bound_is_kept(module_redis: RedisServer) -> None:
    server = slow_server()
    prefix = f"t{secrets.token_hex(4)}"
    producer = server.http_app(backplane=RedisBackplane(module_redis.url, prefix=prefix))
    follower = server.http_app(
        backplane=RedisBackplane(module_redis.url, prefix=prefix, max_followers=1)
    )
    with (
        serving(producer) as a,
        serving(follower) as b,
        httpx.Client(base_url=a, timeout=30) as on_a,
        httpx.Client(base_url=b, timeout=30) as on_b,
    ):
        headers = open_streaming_session(on_a)
        resume = {**headers, "last-event-id": break_off(on_a, headers)}
        with on_b.stream("GET", "/mcp", headers=resume) as followed:
            assert followed.status_code == 200
            lines = followed.iter_lines()
            next(line for line in lines if line.startswith("data:"))  # followed, live
            second = on_b.get("/mcp", headers=resume)
            assert second.status_code == 503, second.text
            message = json.loads(second.text)["error"]["message"]
            assert "already follows 1 streams of other processes" in message
            heard = [line for line in lines if line.startswith("data:")]
        assert '"result"' in heard[-1]
