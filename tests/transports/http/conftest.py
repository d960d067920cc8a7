"""Fixtures shared by the HTTP transport tests."""

from __future__ import annotations

from tests.redis._server import redis_server

__all__ = ["redis_server"]  # a private redis-server per test
