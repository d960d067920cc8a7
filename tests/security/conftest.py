"""Security tests run on asyncio (the backend the transports use)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
