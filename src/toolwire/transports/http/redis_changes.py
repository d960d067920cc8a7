"""`RedisChangeBus`: the change bus (see `changes.py`) over Redis pub/sub, one channel per
deployment, `<prefix>:changes`.

A member holds two tasks on its loop: one reads the channel (reconnecting with a growing
pause, at most `MAX_PAUSE` seconds, while Redis is away) and one publishes what `publish`
queued. A message is `{"o": <member>, "t": <topic>, "d": <data>}`; a member skips its own.
Pub/sub delivers to whoever listens at that moment and keeps nothing: a member that was
cut off hears each list change (`TOOLS_CHANGED`, `RESOURCES_CHANGED`, `PROMPTS_CHANGED`)
when it is back, since it may have missed one; a missed `SESSION_ENDED` leaves its live copy
until the copy's next refresh finds the record gone (at most one refresh interval; see
`session_manager.py`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from ._redis_link import DEFAULT_TIMEOUT, RedisLink
from .changes import PROMPTS_CHANGED, RESOURCES_CHANGED, TOOLS_CHANGED, BusMember, Hear
from .records import StoreUnavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisChangeBus"]

logger = logging.getLogger("toolwire.http")

STORE = "Redis change bus"
FIRST_PAUSE = 0.1
MAX_PAUSE = 2.0
QUEUE_BOUND = 1000
"""Notices waiting to be published; past it new ones are dropped (logged): a burst of the
same notice means no more than one."""
QUEUE_BYTES = 16 * 1024 * 1024
"""The data of the notices waiting, at most (client answers are up to 1 MiB each): past it
new ones are dropped (logged) until Redis has taken some."""


class RedisChangeBus:
    """Change notices, session ends and client answers shared by every process through Redis
    pub/sub (`toolwire[redis]`).

    Pass it as `Server.http_app(change_bus=...)` in every process serving one MCP URL (or use
    `RedisBackplane`): a tool, resource or prompt added or removed on any process, and a
    resource update announced on any, reach the clients of all.

    Args:
        url: The Redis URL (`redis://127.0.0.1:6379/0`).
        prefix: Names the channel (`<prefix>:changes`): processes sharing it hear each other.
        timeout: Seconds an operation may take.
        link: A `RedisLink` to share with other stores (then `url` and `timeout` are its).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolwire",
        timeout: float = DEFAULT_TIMEOUT,
        link: RedisLink | None = None,
    ) -> None:
        self.link = link if link is not None else RedisLink(url, timeout=timeout)
        self.channel = f"{prefix}:changes"

    async def join(self, hear: Hear) -> BusMember:
        """Start hearing the channel (see `ChangeBus.join`); never fails for Redis being
        down: the member keeps trying in the background."""
        member = _RedisMember(self, hear)
        member.start()
        return member

    async def close(self) -> None:
        """Close the connections (an app's shutdown)."""
        await self.link.close()


class _RedisMember:
    def __init__(self, bus: RedisChangeBus, hear: Hear) -> None:
        self._bus = bus
        self._hear = hear
        self._origin = secrets.token_hex(8)
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue(QUEUE_BOUND)
        self._queued_bytes = 0
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = asyncio.Event()  # subscribed (for tests and start-up ordering)

    def start(self) -> None:
        self._tasks = [
            self._loop.create_task(self._listen()),
            self._loop.create_task(self._publish_queued()),
        ]

    def publish(self, topic: str, data: str = "") -> None:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._enqueue(topic, data)
            return
        try:
            self._loop.call_soon_threadsafe(self._enqueue, topic, data)
        except RuntimeError:  # the loop is closed: the app stopped serving
            logger.debug("change bus: %s published after the app stopped", topic)

    def _enqueue(self, topic: str, data: str) -> None:
        if self._queued_bytes + len(data) > QUEUE_BYTES:
            logger.warning(
                "change bus: %d bytes of notices waiting for Redis; %s dropped",
                self._queued_bytes,
                topic,
            )
            return
        try:
            self._queue.put_nowait((topic, data))
        except asyncio.QueueFull:
            logger.warning("change bus: %d notices waiting; %s dropped", QUEUE_BOUND, topic)
            return
        self._queued_bytes += len(data)

    async def _publish_queued(self) -> None:
        channel = self._bus.channel
        while True:
            topic, data = await self._queue.get()
            pending = {(topic, data): None}
            while not self._queue.empty():  # a burst goes out once per notice
                pending[self._queue.get_nowait()] = None
            # The queue is empty again: it may fill up anew while this batch goes out.
            for topic, data in pending:
                message = json.dumps({"o": self._origin, "t": topic, "d": data})

                async def send(client: Redis, message: str = message) -> Any:
                    return await client.publish(channel, message)

                try:
                    await self._bus.link.call(STORE, f"publish {topic}", send)
                except StoreUnavailable:
                    continue  # logged by the link; the other processes miss this notice

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
                    for topic in (TOOLS_CHANGED, RESOURCES_CHANGED, PROMPTS_CHANGED):
                        self._hear(topic, "")  # a change may have passed meanwhile
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
        try:
            self._hear(topic, detail)
        except Exception:
            logger.exception("change bus: handling %s failed", topic)

    async def leave(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=self._bus.link.timeout)
        self._tasks = []


async def _close_quietly(pubsub: Any) -> None:
    try:
        async with asyncio.timeout(1.0):
            await pubsub.aclose()
    except Exception as error:  # the connection is already broken
        logger.debug("closing a pub/sub connection failed: %r", error)
