"""Holding a born-ready session open in a task of its own, for the session pools that reuse
one `ServerSession` across POSTs (stateless mode, and 2026-07-28 requests).

Both pools keep a session's context (its task group) open in a task apart from any request,
so that a request can borrow the session without entering or leaving that context; the
pool's lease tells that task when to let go.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...protocol.jsonrpc import FrameKind, RequestId
    from ...protocol.serving import SessionOpener
    from ...protocol.session import ServerSession

__all__ = ["hold_session"]

logger = logging.getLogger("toolwire.http")


class _Holder(Protocol):
    session: ServerSession | None

    def route(
        self, frame: bytes, kind: FrameKind, request_id: RequestId | None
    ) -> Awaitable[None]: ...


async def hold_session(
    holder: _Holder,
    opener: SessionOpener,
    ready: asyncio.Future[None],
    options: dict[str, Any],
    stop: asyncio.Event,
    *,
    kind: str,
    era: str | None = None,
) -> None:
    """Open a routed session for `holder` (its frames go to `holder.route`), hand it over in
    `holder.session`, resolve `ready`, and keep it open until `stop` is set.

    A failure to open reaches whoever awaits `ready`; one after that is logged (naming the
    `kind` of session), since nobody awaits this task.

    Args:
        holder: The lease the session is held for.
        opener: Opens the session.
        ready: Resolved once the session is open (or failed with why it could not open).
        options: Passed on to `opener`.
        stop: Set when the session is to close.
        kind: The kind of session, for the log line.
        era: Set as the session's era before anyone sees it (no handshake decides it).
    """
    try:
        async with opener(holder.route, routed=True, **options) as session:
            if era is not None:
                session.era = era
            holder.session = session
            ready.set_result(None)
            await stop.wait()
    except Exception as error:
        if not ready.done():
            ready.set_exception(error)
        else:
            logger.exception("a %s session ended with an error", kind)
