"""The one way the Redis stores reach Redis: a pool of at most `POOL_SIZE` connections, each
operation bounded by `timeout` seconds, a broken connection retried once, and after a failure
every operation failing at once for `COOL_DOWN` seconds with an error naming the store, the
action and the cause (an outage is logged once at ERROR, its end at WARNING)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit, urlunsplit

from ..errors import check_seconds
from ..transports.http.streamable.records import StoreUnavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisLink", "RedisStore"]

logger = logging.getLogger("toolwire.http")

T = TypeVar("T")

DEFAULT_TIMEOUT = 2.0
COOL_DOWN = 1.0
POOL_SIZE = 100  # connections at most; an operation past them waits for one (within timeout)


_SCHEMES = ("redis", "rediss", "unix")  # what redis-py's from_url connects to


def _shown(url: object) -> str:
    """`url` for an error message: a string without its password, else its type."""
    return repr(_redacted(url)) if isinstance(url, str) else type(url).__name__


def _redacted(url: str) -> str:
    """`url` without its password: it is named in logs and error bodies."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}:***@" if parts.username else "***@"
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


class RedisLink:
    """A lazily made `redis.asyncio.Redis` client for a redis-py `url`, and the way every store
    calls it, each operation (connecting included) bounded by `timeout` seconds."""

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        check_seconds("timeout", timeout)
        if not isinstance(url, str) or urlsplit(url).scheme not in _SCHEMES:
            raise ValueError(f"url must be a redis://, rediss:// or unix:// URL, not {_shown(url)}")
        self.url = url
        self.where = _redacted(url)
        self.timeout = timeout
        self._client: Redis | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._failing = False
        self._cause = ""  # why the last operation failed
        self._quiet_until = 0.0  # until then, operations fail without trying

    @property
    def client(self) -> Redis:
        """The client, made on first use and again on another event loop, which cannot use the
        connections of the first."""
        loop = asyncio.get_running_loop()
        if self._client is not None and loop is not self._loop:
            self._client = None  # the old loop's connections die with it
        self._loop = loop
        if self._client is None:
            from redis.asyncio import BlockingConnectionPool, Redis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff
            from redis.exceptions import ConnectionError as RedisConnectionError

            pool = BlockingConnectionPool.from_url(
                self.url,
                max_connections=POOL_SIZE,
                timeout=self.timeout,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 1),
                retry_on_error=[RedisConnectionError],
            )
            self._client = Redis.from_pool(pool)
        return self._client

    async def call(self, store: str, action: str, operation: Callable[[Redis], Awaitable[T]]) -> T:
        """Run `operation(client)` within `timeout`; a failure names `store` and `action`."""
        from redis.exceptions import RedisError

        where = f"{store} at {self.where}"
        if self._failing and time.monotonic() < self._quiet_until:
            failure = StoreUnavailable(where, action, f"{self._cause} (retried shortly)")
            logger.debug("%s", failure)
            raise failure
        task = asyncio.current_task()
        cancels = task.cancelling() if task is not None else 0
        try:
            async with asyncio.timeout(self.timeout):
                result = await operation(self.client)
        except (RedisError, OSError, TimeoutError) as error:
            if task is not None and task.cancelling() > cancels:
                raise asyncio.CancelledError from error  # cancelled, not failing
            cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            if isinstance(error, TimeoutError):
                cause = f"no answer within {self.timeout:g} s"
            failure = StoreUnavailable(where, action, cause)
            self._cause = cause
            self._quiet_until = time.monotonic() + COOL_DOWN
            if not self._failing:
                self._failing = True
                logger.error("%s (further failures are logged at DEBUG until it recovers)", failure)
            else:
                logger.debug("%s", failure)
            raise failure from error
        if task is not None and task.cancelling() > cancels:
            raise asyncio.CancelledError  # redis-py may swallow a cancellation mid-command
        if self._failing:
            self._failing = False
            logger.warning("Redis at %s answers again (%s: %s)", self.where, store, action)
        return result

    async def close(self) -> None:
        """Close the pool's connections (the client is made again if used later)."""
        client, self._client = self._client, None
        if client is not None:
            try:
                await client.aclose()
            except Exception as error:  # closing a pool to a dead server may fail: no matter
                logger.debug("closing the Redis client failed: %r", error)


class RedisStore:
    """What the Redis stores share: a link (their own, or one handed in), a key prefix, and
    closing the link at an app's shutdown."""

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolwire",
        timeout: float = DEFAULT_TIMEOUT,
        link: RedisLink | None = None,
    ) -> None:
        if not isinstance(prefix, str):
            raise ValueError(f"prefix must be a string, not {type(prefix).__name__}")
        self.link = link if link is not None else RedisLink(url, timeout=timeout)
        self.prefix = prefix

    async def close(self) -> None:
        """Close the connections (an app's shutdown; they open again on next use)."""
        await self.link.close()
