"""Fixtures of the Redis tests: a private redis-server per test (`redis_server`) or one shared
by the tests of a module, each of them using keys of its own prefix (`module_redis`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.redis._server import RedisServer, redis_server, start_redis

__all__ = ["module_redis", "redis_server"]


@pytest.fixture(scope="module")
def module_redis() -> Iterator[RedisServer]:
    """One redis-server for the tests of a module, stopped after the last."""
    server = start_redis()
    try:
        yield server
    finally:
        server.stop()
