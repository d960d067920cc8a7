"""Keeping the garbage collector's full passes cheap in a process that serves.

`settle_heap_now` (HTTP, before the first connection) and `settle_heap_later` (stdio,
`SETTLE_SECONDS` after serving began) collect once, then `gc.freeze()` what is alive, so that
later full passes walk only what came after. Only the entry points that own their process call
them (`Server.run`, `toolwire run`, each `--workers` worker), at a moment when nothing a request
holds is alive. `TOOLWIRE_GC_FREEZE=0` turns it off.
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


def settle_heap_later() -> None:
    """On the running loop, collect and freeze the heap once, `SETTLE_SECONDS` from now
    (unless `TOOLWIRE_GC_FREEZE` is "0" or the collector is disabled)."""
    if _wanted():
        asyncio.get_running_loop().call_later(SETTLE_SECONDS, _settle)


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
