"""One serving of a `Server` for every app of it served on one event loop.

An app enters `Server.serving()` from its lifespan, or on its first request when its parent
never runs it. With `SharedServing`, the first entry on an event loop holds the serving and the
entries made while it is held share it: they wait for its start-up, get the same session opener,
and leave without touching it. Only the first entrant enters and exits the lifespan, in its own
task, whenever it leaves; another event loop (another thread) gets a serving of its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING

from .lifespan import LifespanError

if TYPE_CHECKING:
    import asyncio

    from .protocol.session.serving import SessionOpener

__all__ = ["SharedServing"]


class SharedServing:
    """Enters serving once per event loop, however many apps ask for it at once.

    Args:
        enter: Makes the context manager that really serves (the lifespan, the contexts).
        name: The server's name, for the refusal a sharer gets when the start-up failed.
    """

    def __init__(
        self, enter: Callable[[], AbstractAsyncContextManager[SessionOpener]], name: str
    ) -> None:
        self._enter = enter
        self._name = name
        # The serving held, on its future's loop: its opener, or None if the start-up failed.
        self._held: asyncio.Future[SessionOpener | None] | None = None

    @asynccontextmanager
    async def __call__(self) -> AsyncIterator[SessionOpener]:
        """Serve for the duration; yields what opens sessions.

        Raises:
            toolwire.lifespan.LifespanError: The start-up failed (in this entry, or in the
                one whose serving this entry would have shared).
        """
        import asyncio

        loop = asyncio.get_running_loop()
        held = self._held
        if held is not None and held.get_loop() is loop:
            opener = await asyncio.shield(held)
            if opener is None:
                raise LifespanError(
                    f"server {self._name!r} did not start: its lifespan failed (logged above)"
                )
            yield opener
            return
        held = loop.create_future()
        owns = self._held is None  # else held on another loop: serve apart, unshared
        if owns:
            self._held = held
        try:
            async with self._enter() as opener:
                held.set_result(opener)
                try:
                    yield opener
                finally:
                    # Before the lifespan's exit: an entry made meanwhile starts afresh
                    # rather than share what is closing.
                    self._let_go(held, owns)
        finally:
            if not held.done():
                held.set_result(None)
            self._let_go(held, owns)

    def _let_go(self, held: asyncio.Future[SessionOpener | None], owns: bool) -> None:
        if owns and self._held is held:
            self._held = None
