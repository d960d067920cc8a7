"""`toolwire.redis`, the package: its public names, the error without redis-py, and the
top-level name it replaced."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import toolwire
import toolwire.redis

HINT = "pip install 'toolwire[redis]'"


def _without_redis_py(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter where `import redis` fails, as where it is not
    installed."""
    probe = "import sys\nsys.modules['redis'] = None\n" + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_public_names() -> None:
    assert sorted(toolwire.redis.__all__) == [
        "RedisBackplane",
        "RedisChangeBus",
        "RedisEventStore",
        "RedisSessionStore",
    ]
    backplane = toolwire.redis.RedisBackplane("redis://127.0.0.1:1/0")
    assert isinstance(backplane.sessions, toolwire.redis.RedisSessionStore)
    assert isinstance(backplane.events, toolwire.redis.RedisEventStore)
    assert isinstance(backplane.changes, toolwire.redis.RedisChangeBus)
    assert toolwire.redis.__doc__ is not None
    assert len(toolwire.redis.__doc__.splitlines()[0]) <= 100


@pytest.mark.parametrize(
    "code",
    [
        "import toolwire.redis",
        "from toolwire.redis import RedisBackplane",
        "import toolwire.redis.sessions",
        # a backplane URL makes the app load the package
        "import toolwire\ntoolwire.Server('s').http_app(backplane='redis://127.0.0.1:1/0')",
    ],
)
def test_without_redis_py_the_error_says_what_to_install(code: str) -> None:
    done = _without_redis_py(code)
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"ImportError: toolwire.redis needs the redis package: {HINT}", done.stderr


def test_without_redis_py_an_app_without_backplane_is_made() -> None:
    done = _without_redis_py(
        """
        import toolwire
        app = toolwire.Server("s").http_app()
        print(callable(app), "redis" in sys.modules and sys.modules["redis"] is not None)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


def test_the_top_level_name_is_gone_and_says_where_it_went() -> None:
    with pytest.raises(AttributeError) as caught:
        _ = toolwire.RedisBackplane  # type: ignore[attr-defined]
    assert str(caught.value) == (
        "module 'toolwire' has no attribute 'RedisBackplane': it moved, "
        "use toolwire.redis.RedisBackplane instead"
    )
    assert "RedisBackplane" not in toolwire.__all__
    assert "RedisBackplane" not in dir(toolwire)
    assert not hasattr(toolwire, "RedisBackplane")
    with pytest.raises(AttributeError, match=r"has no attribute 'RedisBackplan'$"):
        _ = toolwire.RedisBackplan  # type: ignore[attr-defined]
