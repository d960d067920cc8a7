"""Keeping the garbage collector's full passes cheap in a serving process.

A server process holds tens of thousands of objects that live until it exits: modules,
classes, functions, pydantic validators, the tool registry. CPython's full collection walks
all of them. While a server answers requests, the objects of the requests in flight survive
the young collections now and then and are counted towards the next full one, so a full pass
comes every couple of thousand requests and stalls the event loop for the whole walk (12-20 ms
on a 2-core VM, with about 45,000 objects): that was toolwire's p99 under load, at several
times its p50, and 4% of its CPU.

`gc.freeze()` moves every object alive at that moment to the permanent generation, which no
pass walks; a full pass then walks only what came later. A collection first clears what
start-up left behind, so none of it is frozen for good. When is the question: a frozen object
that later becomes part of unreachable cycles is never collected, so nothing a request holds
may be alive at the freeze (frozen sessions of a first wave of clients, once expired, stayed
in memory for good: tests/transports/http/test_http_session_memory.py caught it).

- HTTP (`settle_heap_now`): before the server accepts its first connection. The collection
  costs one full pass (~15 ms), which start-up can afford.
- stdio (`settle_heap_later`): `SETTLE_SECONDS` after serving began, on the event loop, so
  that a client that spawned the server gets its `tools/list` first. What is alive then is
  the one session, which lives as long as the process anyway.

Only the entry points that own their process do this (`Server.run`, `toolwire run`, each
`--workers` worker); an app mounted in someone else's process leaves that process's
collector alone. `TOOLWIRE_GC_FREEZE=0` turns it off.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time

__all__ = ["SETTLE_SECONDS", "settle_heap_later", "settle_heap_now"]

logger = logging.getLogger("toolwire.transports")

SETTLE_SECONDS = 1.0
"""How long after serving began the heap is collected once and frozen."""


def settle_heap_later(delay: float = SETTLE_SECONDS) -> asyncio.TimerHandle | None:
    """On the running loop, collect and freeze the heap once, `delay` seconds from now.

    Returns:
        The timer (cancel it to skip), or None when `TOOLWIRE_GC_FREEZE` is "0" or the
        collector is disabled (the application decided on its own).
    """
    if not _wanted():
        return None
    return asyncio.get_running_loop().call_later(delay, _settle)


def settle_heap_now() -> None:
    """Collect and freeze the heap now (unless `TOOLWIRE_GC_FREEZE` is "0" or the collector
    is disabled): before a server takes its first request."""
    if _wanted():
        _settle()


def _wanted() -> bool:
    return os.environ.get("TOOLWIRE_GC_FREEZE", "").strip() != "0" and gc.isenabled()


def _settle() -> None:
    started = time.perf_counter()
    found = gc.collect()
    gc.freeze()
    logger.debug(
        "heap settled: %d unreachable objects collected, %d frozen, in %.1f ms",
        found,
        gc.get_freeze_count(),
        (time.perf_counter() - started) * 1e3,
    )
