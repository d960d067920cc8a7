"""Where synchronous tool functions run: worker threads, bounded by a limiter the server sets."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import anyio

__all__ = ["run_sync", "sync_limiter"]

T = TypeVar("T")

sync_limiter: ContextVar[anyio.CapacityLimiter | None] = ContextVar(
    "toolwire_sync_limiter", default=None
)
"""The limiter for sync tool threads; None means anyio's default (40 threads)."""


async def run_sync(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run `func` in a worker thread and wait for it.

    Cancelling the waiting task abandons the thread (it runs to its end, its result is dropped)
    and frees its limiter slot at once, so a stuck sync tool cannot starve later calls.
    """
    call = functools.partial(func, *args, **kwargs)
    limiter = sync_limiter.get()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is None:  # another anyio backend (trio): let anyio do it
        import anyio.to_thread

        return await anyio.to_thread.run_sync(call, abandon_on_cancel=True, limiter=limiter)
    context = contextvars.copy_context()
    if limiter is None:
        # Outside a server (e.g. an Agents SDK run): what asyncio.to_thread does.
        return await loop.run_in_executor(None, context.run, call)
    # In a server: the limiter bounds concurrency; a cancelled call leaves its thread running
    # (Python cannot stop it) but gives its slot back at once. The pool is larger than any
    # sane limiter so abandoned threads do not starve new calls.
    async with limiter:
        return await loop.run_in_executor(_pool(), context.run, call)


_POOL: concurrent.futures.ThreadPoolExecutor | None = None


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL  # noqa: PLW0603 - one pool per process, made on first use
    if _POOL is None:
        _POOL = concurrent.futures.ThreadPoolExecutor(
            max_workers=64, thread_name_prefix="toolwire-sync"
        )
    return _POOL
