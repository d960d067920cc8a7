"""Redis change-bus members across an outage, against a real redis-server: a member that cannot
reach Redis holds what it publishes and sends it once Redis answers (in order, each notice
once, at most `QUEUE_BOUND`, none older than `HOLD_SECONDS`); a member that could not hear
hands its app the catch-up notices when it hears again.

One member at a time loses Redis through a `CutRelay` (tests/redis/_cut_relay.py) while the
other stays connected straight to redis-server, so what the connected one hears is exactly
what crossed the outage.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.redis._cut_relay import CutRelay
from tests.redis._server import RedisServer

from toolwire.redis import RedisChangeBus
from toolwire.redis import changes as redis_changes
from toolwire.redis.changes import QUEUE_BOUND, QUEUE_BYTES
from toolwire.transports.http.changes import (
    CLIENT_RESPONSE,
    FOLLOWED_RESOURCES_UPDATED,
    PROMPTS_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_CHANGED,
    SESSION_ENDED,
    TOOLS_CHANGED,
)

pytestmark = pytest.mark.timeout(120)

WAIT_SECONDS = 30.0
_prefixes = itertools.count()


@pytest.fixture
def relay(module_redis: RedisServer) -> Iterator[CutRelay]:
    with CutRelay(module_redis.port) as cuttable:
        yield cuttable


async def _until(done: Callable[[], bool], what: str) -> None:
    for _ in range(int(WAIT_SECONDS / 0.02)):
        if done():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"not within {WAIT_SECONDS} s: {what}")


async def _join(url: str, prefix: str, heard: list[tuple[str, str]]) -> Any:
    """A Redis member (its `listening` event and `held` notices are read here)."""
    bus = RedisChangeBus(url, prefix=prefix, timeout=1.0)
    return await bus.join(lambda topic, data: heard.append((topic, data)))


async def _subscribed(member: Any) -> None:
    await asyncio.wait_for(member.listening.wait(), WAIT_SECONDS)


def _warnings(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno == logging.WARNING and text in record.getMessage()
    ]


def _failed_to_publish(caplog: pytest.LogCaptureFixture) -> bool:
    return any(
        "Redis change bus at" in record.getMessage() and ": publish " in record.getMessage()
        for record in caplog.records
    )


def test_notices_held_while_redis_is_away_go_out_in_order_once_it_answers(
    module_redis: RedisServer, relay: CutRelay, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.http")

    async def scenario() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        prefix = f"held{next(_prefixes)}"
        heard: list[tuple[str, str]] = []
        hearer = await _join(module_redis.url, prefix, heard)
        sender = await _join(relay.url, prefix, [])
        try:
            await _subscribed(hearer)
            await _subscribed(sender)
            relay.cut()
            sender.publish(RESOURCE_UPDATED, "watched://a")
            sender.publish(TOOLS_CHANGED)
            sender.publish(RESOURCE_UPDATED, "watched://b")
            sender.publish(RESOURCE_UPDATED, "watched://a")  # restated: once, at its latest
            await _until(lambda: _failed_to_publish(caplog), "a publish failed")
            held = sender.held
            assert heard == []
            relay.mend()
            await _until(lambda: len(heard) >= 3, "the held notices heard")
            # A last notice after them: whatever came twice has arrived by the time it has.
            sender.publish(PROMPTS_CHANGED)
            await _until(lambda: heard[-1] == (PROMPTS_CHANGED, ""), "the last notice heard")
            assert sender.held == []
            return held, heard
        finally:
            await sender.leave()
            await hearer.leave()

    held, heard = asyncio.run(scenario())
    expected = [
        (TOOLS_CHANGED, ""),
        (RESOURCE_UPDATED, "watched://b"),
        (RESOURCE_UPDATED, "watched://a"),
    ]
    assert held == expected
    assert heard == [*expected, (PROMPTS_CHANGED, "")]


def test_the_held_notices_are_bounded_and_a_restated_one_costs_nothing(
    module_redis: RedisServer, relay: CutRelay, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> list[tuple[str, str]]:
        prefix = f"bound{next(_prefixes)}"
        heard: list[tuple[str, str]] = []
        hearer = await _join(module_redis.url, prefix, heard)
        relay.cut()  # the sender never reaches Redis until mended
        sender = await _join(relay.url, prefix, [])
        try:
            await _subscribed(hearer)
            for n in range(QUEUE_BOUND + 1):
                sender.publish(RESOURCE_UPDATED, f"watched://{n}")
            sender.publish(RESOURCE_UPDATED, "watched://0")  # held already: kept, moved last
            assert len(sender.held) == QUEUE_BOUND
            relay.mend()
            await _until(lambda: len(heard) >= QUEUE_BOUND, "every held notice heard")
            sender.publish(TOOLS_CHANGED)
            await _until(lambda: heard[-1] == (TOOLS_CHANGED, ""), "the last notice heard")
            return heard
        finally:
            await sender.leave()
            await hearer.leave()

    heard = asyncio.run(scenario())
    assert heard == [
        *((RESOURCE_UPDATED, f"watched://{n}") for n in range(1, QUEUE_BOUND)),
        (RESOURCE_UPDATED, "watched://0"),
        (TOOLS_CHANGED, ""),
    ]
    assert _warnings(caplog, "dropped") == [
        f"change bus: {QUEUE_BOUND} notices waiting; resource-updated dropped"
    ]


def test_a_notice_held_past_the_age_limit_is_dropped_with_a_log_line_naming_it(
    module_redis: RedisServer,
    relay: CutRelay,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> list[tuple[str, str]]:
        prefix = f"aged{next(_prefixes)}"
        heard: list[tuple[str, str]] = []
        hearer = await _join(module_redis.url, prefix, heard)
        relay.cut()
        sender = await _join(relay.url, prefix, [])
        try:
            await _subscribed(hearer)
            monkeypatch.setattr(redis_changes, "HOLD_SECONDS", 0.05)
            sender.publish(RESOURCE_UPDATED, "watched://old")
            sender.publish(SESSION_ENDED, "0f" * 16)  # a session id: never in a log line
            await _until(lambda: not sender.held, "the old notices dropped")
            monkeypatch.setattr(redis_changes, "HOLD_SECONDS", 600.0)
            sender.publish(RESOURCE_UPDATED, "watched://new")
            relay.mend()
            await _until(lambda: bool(heard), "the fresh notice heard")
            sender.publish(TOOLS_CHANGED)
            await _until(lambda: heard[-1] == (TOOLS_CHANGED, ""), "the last notice heard")
            return heard
        finally:
            await sender.leave()
            await hearer.leave()

    heard = asyncio.run(scenario())
    assert heard == [(RESOURCE_UPDATED, "watched://new"), (TOOLS_CHANGED, "")]
    (line,) = _warnings(caplog, "were dropped")
    assert line == (
        f"change bus: 2 notices waited over 0.05 s for {relay.url} and were dropped, too old "
        "to matter (the other processes never hear them): resource-updated watched://old, "
        "session-ended"
    )


def test_a_member_cut_off_from_the_channel_catches_up_when_it_hears_again(
    module_redis: RedisServer, relay: CutRelay
) -> None:
    async def scenario() -> list[tuple[str, str]]:
        prefix = f"deaf{next(_prefixes)}"
        heard: list[tuple[str, str]] = []
        hearer = await _join(relay.url, prefix, heard)
        sender = await _join(module_redis.url, prefix, [])
        try:
            await _subscribed(hearer)
            await _subscribed(sender)
            relay.cut()  # Redis drops the hearer's subscription; the sender goes on
            sender.publish(RESOURCE_UPDATED, "watched://missed")
            await _until(lambda: not sender.held, "the sender published")
            relay.mend()
            await _until(lambda: len(heard) >= 4, "the catch-up heard")
            return heard
        finally:
            await sender.leave()
            await hearer.leave()

    heard = asyncio.run(scenario())
    assert heard == [
        (TOOLS_CHANGED, ""),
        (RESOURCES_CHANGED, ""),
        (PROMPTS_CHANGED, ""),
        (FOLLOWED_RESOURCES_UPDATED, ""),
    ]


def test_the_byte_bound_counts_what_waits_not_what_was_ever_published(
    module_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    # Client answers of 1 MiB, one after the other, more of them in all than QUEUE_BYTES:
    # each leaves the count when Redis has taken it, so none is refused.
    answer = "x" * (1024 * 1024)
    count = QUEUE_BYTES // len(answer) + 4

    async def scenario() -> int:
        prefix = f"bytes{next(_prefixes)}"
        heard: list[tuple[str, str]] = []
        hearer = await _join(module_redis.url, prefix, heard)
        sender = await _join(module_redis.url, prefix, [])
        try:
            await _subscribed(hearer)
            for n in range(count):
                sender.publish(CLIENT_RESPONSE, answer)
                await _until(lambda n=n: len(heard) > n, f"answer {n} heard")
            return len(heard)
        finally:
            await sender.leave()
            await hearer.leave()

    assert asyncio.run(scenario()) == count
    assert _warnings(caplog, "dropped") == []
