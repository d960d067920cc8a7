"""The Redis backplane: sessions, SSE events and change notices shared by every serving process.

It needs redis-py (`pip install 'toolwire[redis]'`): importing this package without it raises an
`ImportError` that says so. `RedisBackplane` is the one argument `Server.http_app(backplane=...)`
takes; the three stores it holds implement `SessionStore`, `LiveEventStore` and `ChangeBus` of
`toolwire.transports.http` and can be used one by one.
"""

from __future__ import annotations

try:
    import redis as _redis_py  # noqa: F401  (checked here, used by the modules below)
except ImportError as missing:
    raise ImportError(
        "toolwire.redis needs the redis package: pip install 'toolwire[redis]'",
        name=missing.name,
    ) from missing

from .backplane import RedisBackplane
from .changes import RedisChangeBus
from .events import RedisEventStore
from .sessions import RedisSessionStore

__all__ = ["RedisBackplane", "RedisChangeBus", "RedisEventStore", "RedisSessionStore"]
