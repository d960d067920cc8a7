"""Keeping the garbage collector's full passes cheap in a process that serves: collect once,
then `gc.freeze()` what is alive, before serving (HTTP) or `SETTLE_SECONDS` into it (stdio).
Only entry points that own their process call it; `TOOLWIRE_GC_FREEZE=0` turns it off."""

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
    """Collect and freeze the heap once, `SETTLE_SECONDS` from now, on the running loop."""
    if _wanted():
        asyncio.get_running_loop().call_later(SETTLE_SECONDS, _settle)


def settle_heap_now() -> None:
    """Collect and freeze the heap now (before a server takes its first request)."""
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
