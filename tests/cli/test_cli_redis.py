"""`toolwire run --redis URL`: refused where it cannot apply (real subprocess)."""

from __future__ import annotations

import pytest
from _cli import toolwire


@pytest.mark.parametrize(
    "extra",
    [
        [],  # stdio
        ["--transport", "sse"],
        ["--transport", "http", "--stateless"],
    ],
)
def test_redis_needs_http_with_sessions(extra: list[str]) -> None:
    result = toolwire("run", "server.py", "--redis", "redis://127.0.0.1:6379/0", *extra)
    assert result.returncode == 2
    assert result.stderr == "toolwire run: --redis needs --transport http with sessions\n"
    assert result.stdout == ""
