"""Fixtures shared by the HTTP transport tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.scale._redis import RedisServer, start_redis


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for one test, stopped after it."""
    server = start_redis()
    yield server
    server.stop()
