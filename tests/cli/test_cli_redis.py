"""`toolwire run --redis URL`: refused where it cannot apply, or without redis-py (real
subprocess)."""

from __future__ import annotations

import subprocess
import sys

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


def test_redis_without_redis_py_says_what_to_install() -> None:
    # `import redis` fails in this interpreter as where redis-py is not installed; the server
    # file is never loaded (it does not exist), so the check comes first.
    probe = (
        "import sys\n"
        "sys.modules['redis'] = None\n"
        "from toolwire.cli import main\n"
        "raise SystemExit(main(['run', 'missing.py', '--transport', 'http', "
        "'--redis', 'redis://127.0.0.1:6379/0']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "toolwire run: --redis needs the redis package: pip install 'toolwire[redis]'\n"
    )
    assert done.stdout == ""
