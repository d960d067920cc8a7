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


STORES = [
    toolwire.redis.RedisBackplane,
    toolwire.redis.RedisChangeBus,
    toolwire.redis.RedisEventStore,
    toolwire.redis.RedisSessionStore,
]


@pytest.mark.parametrize("store", STORES, ids=lambda store: store.__name__)
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": None}, "url must be a redis://, rediss:// or unix:// URL, not NoneType"),
        ({"url": 6379}, "url must be a redis://, rediss:// or unix:// URL, not int"),
        (
            {"url": "http://:secret@127.0.0.1:6379"},
            "url must be a redis://, rediss:// or unix:// URL, not 'http://***@127.0.0.1:6379'",
        ),
        ({"url": "127.0.0.1:6379"}, "url must be a redis://, rediss:// or unix:// URL"),
        ({"timeout": True}, "timeout must be a number of seconds > 0, not True"),
        ({"timeout": "2"}, "timeout must be a number of seconds > 0, not '2'"),
        ({"prefix": 5}, "prefix must be a string, not int"),
        ({"prefix": None}, "prefix must be a string, not NoneType"),
    ],
)
def test_a_store_refuses_a_bad_connection_option_when_made(
    store: type, options: dict[str, object], message: str
) -> None:
    """Each was taken and failed at the first request, inside redis-py (an AttributeError
    for a number, "Redis URL must specify one of the following schemes" for another scheme),
    or, for a prefix, made keys like `5:sessions:...`."""
    with pytest.raises(ValueError) as refused:
        store(**options)
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize("store", [toolwire.redis.RedisBackplane, toolwire.redis.RedisEventStore])
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_events_per_stream": float("nan")}, "max_events_per_stream must be an integer >= 1"),
        ({"max_events_per_stream": 1.5}, "max_events_per_stream must be an integer >= 1"),
        ({"max_followers": float("inf")}, "max_followers must be an integer >= 0, not inf"),
        ({"max_followers": "10"}, "max_followers must be an integer >= 0, not '10'"),
        ({"lease": True}, "lease must be a number of seconds > 0, not True"),
    ],
)
def test_an_event_store_refuses_a_limit_that_is_no_count_when_made(
    store: type, options: dict[str, object], message: str
) -> None:
    """NaN and infinity passed `< 1` (NaN compares false), and True counted as one second."""
    with pytest.raises(ValueError) as refused:
        store(**options)
    assert str(refused.value).startswith(message)


def test_a_backplane_refuses_a_bad_events_ttl_by_its_own_name() -> None:
    with pytest.raises(ValueError) as refused:
        toolwire.redis.RedisBackplane(events_ttl=True)
    assert str(refused.value) == "events_ttl must be a number of seconds > 0, not True"
