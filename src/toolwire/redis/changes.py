"""`RedisChangeBus`: the change bus of `toolwire.transports.http.changes` over Redis pub/sub on
one channel, `<prefix>:changes`. Pub/sub keeps nothing, so a member holds the notices Redis did
not take (bounded, drops logged) and, once it hears again after being cut off, tells its app
that every list and followed resource may have changed: a notice may be heard twice, never
silently lost."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import secrets
import time
from typing import Any

from ..transports.http.changes import (
    CLIENT_RESPONSE,
    FOLLOWED_RESOURCES_UPDATED,
    PROMPTS_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_CHANGED,
    TOOLS_CHANGED,
    BusMember,
    Hear,
    call_on,
)
from ..transports.http.streamable.records import StoreUnavailable
from ._link import RedisStore

__all__ = ["RedisChangeBus"]

logger = logging.getLogger("toolwire.http")

STORE = "Redis change bus"
FIRST_PAUSE = 0.1
MAX_PAUSE = 2.0
QUEUE_BOUND = 1000  # notices held for Redis at most (equal ones merge)
QUEUE_BYTES = 16 * 1024 * 1024  # their data at most (a client answer is up to 1 MiB)
HOLD_SECONDS = 600.0  # as long as a call waits for its client's answer by default
LOGGED_NAMES = 10  # notices named in one log line; the rest are counted


class RedisChangeBus(RedisStore):
    """Change notices, session ends and client answers shared by every process through Redis
    pub/sub (`toolwire[redis]`).

    Pass it as `Server.http_app(change_bus=...)` in every process serving one MCP URL (or use
    `RedisBackplane`): what changes on any process reaches the clients of all.

    Args:
        url: The Redis URL (`redis://127.0.0.1:6379/0`).
        prefix: Names the channel (`<prefix>:changes`): processes sharing it hear each other.
        timeout: Seconds an operation may take.
        link: A `RedisLink` to share with other stores (then `url` and `timeout` are its).
    """

    @property
    def channel(self) -> str:
        """The pub/sub channel the processes of this prefix share."""
        return f"{self.prefix}:changes"

    async def join(self, hear: Hear) -> BusMember:
        """Start hearing the channel (see `ChangeBus.join`); never fails for Redis being
        down: the member keeps trying in the background."""
        return _RedisMember(self, hear)


class _RedisMember:
    def __init__(self, bus: RedisChangeBus, hear: Hear) -> None:
        self._bus = bus
        self._hear = hear
        self._origin = secrets.token_hex(8)
        self._loop = asyncio.get_running_loop()
        # Held for Redis, in order: (topic, data, 0 or, never merged, its ticket) -> (ticket,
        # when handed in). A restated notice gets a new ticket: the publisher keeps it then.
        self._held: dict[tuple[str, str, int], tuple[int, float]] = {}
        self._held_bytes = 0
        self._tickets = itertools.count()
        self._due = asyncio.Event()  # set while something is held
        self.listening = asyncio.Event()  # subscribed
        self._tasks = [
            self._loop.create_task(self._listen()),
            self._loop.create_task(self._publish_held()),
        ]

    @property
    def held(self) -> list[tuple[str, str]]:
        """The notices waiting for Redis, oldest first (for tests and diagnostics)."""
        return [(topic, data) for topic, data, _ in self._held]

    def publish(self, topic: str, data: str = "") -> None:
        if not call_on(self._loop, self._enqueue, topic, data):
            logger.debug("change bus: %s published after the app stopped", topic)

    def _enqueue(self, topic: str, data: str) -> None:
        ticket = next(self._tickets)
        # A client's answer is a message, not a state: two equal ones stay two.
        notice = (topic, data, ticket if topic == CLIENT_RESPONSE else 0)
        if notice in self._held:
            del self._held[notice]  # restated: it moves to the back, costing nothing more
        elif self._held_bytes + len(data) > QUEUE_BYTES:
            logger.warning(
                "change bus: %d bytes of notices waiting for Redis; %s dropped",
                self._held_bytes,
                topic,
            )
            return
        elif len(self._held) >= QUEUE_BOUND:
            logger.warning("change bus: %d notices waiting; %s dropped", QUEUE_BOUND, topic)
            return
        else:
            self._held_bytes += len(data)
        self._held[notice] = (ticket, time.monotonic())
        self._due.set()

    async def _publish_held(self) -> None:
        pause = FIRST_PAUSE
        while True:
            await self._due.wait()
            self._drop_stale()
            if not self._held:
                self._due.clear()
                continue
            notice, (ticket, _) = next(iter(self._held.items()))
            try:
                await self._send(*notice[:2])
            except StoreUnavailable:
                # Logged by the link; held until Redis answers.
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)
                continue
            pause = FIRST_PAUSE
            if self._held.get(notice, (None,))[0] == ticket:
                del self._held[notice]
                self._held_bytes -= len(notice[1])

    async def _send(self, topic: str, data: str) -> None:
        channel = self._bus.channel
        message = json.dumps({"o": self._origin, "t": topic, "d": data})
        await self._bus.link.call(STORE, f"publish {topic}", lambda c: c.publish(channel, message))

    def _drop_stale(self) -> None:
        """Drop the notices held longer than `HOLD_SECONDS` (the oldest come first)."""
        oldest_kept = time.monotonic() - HOLD_SECONDS
        stale = []
        for notice, (_, since) in self._held.items():
            if since > oldest_kept:
                break
            stale.append(notice)
        if not stale:
            return
        for notice in stale:
            del self._held[notice]
            self._held_bytes -= len(notice[1])
        # A resource update is named with its URI; other notices' data are not logged.
        names = ", ".join(
            f"{topic} {data}" if topic == RESOURCE_UPDATED else topic
            for topic, data, _ in stale[:LOGGED_NAMES]
        )
        if len(stale) > LOGGED_NAMES:
            names += f" and {len(stale) - LOGGED_NAMES} more"
        logger.warning(
            "change bus: %d notices waited over %g s for %s and were dropped, too old to "
            "matter (the other processes never hear them): %s",
            len(stale),
            HOLD_SECONDS,
            self._bus.link.where,
            names,
        )

    async def _listen(self) -> None:
        pause = FIRST_PAUSE
        cut_off = False
        while True:
            pubsub = None
            try:
                pubsub = self._bus.link.client.pubsub(ignore_subscribe_messages=True)
                async with asyncio.timeout(self._bus.link.timeout):
                    await pubsub.subscribe(self._bus.channel)
                self.listening.set()
                if cut_off:
                    logger.warning("change bus: listening on %s again", self._bus.link.where)
                    for topic in _CATCH_UP:
                        self._tell(topic, "")  # it may have passed meanwhile
                    cut_off = False
                pause = FIRST_PAUSE
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self._take(message.get("data"))
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self.listening.clear()
                if not cut_off:
                    logger.error(
                        "change bus: lost %s (%s: %s); changes made on other processes are "
                        "not heard until it is back",
                        self._bus.link.where,
                        type(error).__name__,
                        error,
                    )
                cut_off = True
            finally:
                if pubsub is not None:
                    await _close_quietly(pubsub)
            await asyncio.sleep(pause)
            pause = min(pause * 2, MAX_PAUSE)

    def _take(self, data: Any) -> None:
        try:
            notice = json.loads(data)
            origin, topic, detail = notice["o"], notice["t"], notice["d"]
        except (TypeError, ValueError, KeyError):
            logger.warning("change bus: ignored a message that is not a notice: %.200r", data)
            return
        if origin == self._origin or not isinstance(topic, str) or not isinstance(detail, str):
            return
        self._tell(topic, detail)

    def _tell(self, topic: str, data: str) -> None:
        # The app's failure is not the channel's: the member goes on listening.
        try:
            self._hear(topic, data)
        except Exception:
            logger.exception("change bus: handling %s failed", topic)

    async def leave(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=self._bus.link.timeout)
        self._tasks = []
        if self._held:
            logger.warning(
                "change bus: the app stopped with %d notices still waiting for %s; the other "
                "processes never hear them",
                len(self._held),
                self._bus.link.where,
            )
            self._held.clear()
            self._held_bytes = 0


# What a member that was cut off hands its app when it hears again: whatever may have passed.
_CATCH_UP = (TOOLS_CHANGED, RESOURCES_CHANGED, PROMPTS_CHANGED, FOLLOWED_RESOURCES_UPDATED)


async def _close_quietly(pubsub: Any) -> None:
    try:
        async with asyncio.timeout(1.0):
            await pubsub.aclose()
    except Exception as error:  # the connection is already broken
        logger.debug("closing a pub/sub connection failed: %r", error)
