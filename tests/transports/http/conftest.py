"""Fixtures shared by the HTTP transport tests."""

from __future__ import annotations

from tests.scale._redis import redis_server

__all__ = ["redis_server"]  # a private redis-server per test
