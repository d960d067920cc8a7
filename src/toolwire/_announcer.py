"""Telling every open session of a change, from whichever thread the change happens on.

A change to what a server publishes (a tool added, a resource updated) may be made on the
event loop or from a sync tool's worker thread, and a server may be served by sessions on
several event loops at once. Each session is told on its own loop, in its own task group, so
that a slow client holds up nobody else, and a session that is closing is skipped quietly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .protocol.session.app import OpenSession

__all__ = ["Announcer"]

logger = logging.getLogger("toolwire")

# What to tell one session: given the session, the coroutine that tells it.
Message = Callable[["OpenSession"], Coroutine[Any, Any, Any]]


class Announcer:
    """The open sessions of one server, and the way to reach each of them."""

    def __init__(self) -> None:
        self._sessions: set[OpenSession] = set()

    def opened(self, session: OpenSession) -> None:
        """`session` hears of changes from now on, until `closed`."""
        self._sessions.add(session)

    def closed(self, session: OpenSession) -> None:
        """`session` is gone."""
        self._sessions.discard(session)

    def __len__(self) -> int:
        """How many sessions are open."""
        return len(self._sessions)

    def tell(self, message: Message) -> None:
        """Have every open session run `message(session)` soon, on its own event loop."""
        import asyncio  # here: importing toolwire.server need not load asyncio

        try:
            running: object = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for session in list(self._sessions):
            loop = session.loop
            if loop is None or loop is running:
                _start(session, message)
                continue
            # Through a task on that loop: from a bare loop callback, anyio cannot tell which
            # event loop it is on and refuses to start anything.
            hop = _hop(session, message)
            try:
                asyncio.run_coroutine_threadsafe(hop, loop)
            except RuntimeError:  # that loop is closed: the session is gone
                hop.close()
                logger.debug("a change came after a session's event loop closed")


async def _hop(session: OpenSession, message: Message) -> None:
    _start(session, message)


def _start(session: OpenSession, message: Message) -> None:
    # The coroutine is made here so that it can be closed if the session refuses it: a task
    # group may call the function before it finds itself closed.
    telling = message(session)
    try:
        session.start_soon(lambda: telling)
    except RuntimeError:  # the session is closing
        telling.close()
        logger.debug("a change came while a session was closing; it was not told")
