"""How many worker threads a `Server`'s sync functions may hold at once, per event loop.

A base class of `Server`. Every sync function the server runs on behalf of a client (a tool,
a resource function, a prompt, a directory's reads and listings) runs in a worker thread
under this one bound, so that a server's threads stay bounded whatever mix of requests
arrives. A bound belongs to the event loop that made it: the same `Server` may be served
from several loops (tests, an embedding application), and a limiter must not be awaited
from a loop other than its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import anyio

    from .tools.threads import SyncBudget

__all__ = ["SyncWorkers"]


class SyncWorkers:
    """`Server.sync_limiter`, made on first use on each event loop.

    Args:
        max_sync_workers: How many sync functions may run at once.
    """

    def __init__(self, max_sync_workers: int) -> None:
        self.max_sync_workers = max_sync_workers
        self._limiter: SyncBudget | anyio.CapacityLimiter | None = None
        self._limiter_loop: object = None

    @property
    def sync_limiter(self) -> SyncBudget | anyio.CapacityLimiter:
        """Bounds the threads running sync tools, resources and prompts.

        On asyncio a `SyncBudget` (see `toolwire.tools.threads`), which also accounts for
        bodies still running after their calls timed out; its uncontended acquire does not
        yield to the event loop (anyio's limiter always does, which costs every sync call a
        loop pass). On another anyio backend (trio), an `anyio.CapacityLimiter`.
        """
        import asyncio

        try:
            loop: object = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self._limiter is None or self._limiter_loop is not loop:
            if loop is not None:
                from .tools.threads import SyncBudget

                self._limiter = SyncBudget(self.max_sync_workers)
            else:
                import anyio

                self._limiter = anyio.CapacityLimiter(self.max_sync_workers)
            self._limiter_loop = loop
        return self._limiter
