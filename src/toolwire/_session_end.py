"""The functions a `Server` runs when it stops serving an MCP session (`Server.on_session_end`).

Each hook takes the session's id. All of one session's hooks run together, after the
session's calls are over, shielded from the cancellation that may be closing the session,
and within `SESSION_END_BOUND_SECONDS` altogether: an async hook still running then is
cancelled, a sync one (run in a worker thread, so that it may block) is left to finish on its
own. A hook that raises is logged on the `toolwire` logger; nothing it does reaches the
session's close.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

import anyio

from .tools.threads import run_sync

__all__ = ["SESSION_END_BOUND_SECONDS", "run_hooks"]

logger = logging.getLogger("toolwire")

SESSION_END_BOUND_SECONDS = 5.0
"""How long the hooks of one ending session may run, all together, before they are left."""


async def run_hooks(hooks: list[Callable[[str], Any]], session_id: str) -> None:
    """Run every hook for `session_id` together, bounded and shielded; never raises."""
    with anyio.move_on_after(SESSION_END_BOUND_SECONDS, shield=True) as scope:
        async with anyio.create_task_group() as group:
            for hook in hooks:
                group.start_soon(_one, hook, session_id)
    if scope.cancelled_caught:
        logger.warning(
            "session %s: the on_session_end hooks did not finish within %g seconds; left running",
            session_id,
            SESSION_END_BOUND_SECONDS,
        )


async def _one(hook: Callable[[str], Any], session_id: str) -> None:
    name = getattr(hook, "__qualname__", repr(hook))
    try:
        if inspect.iscoroutinefunction(hook) or inspect.iscoroutinefunction(type(hook).__call__):
            await hook(session_id)
        else:
            made = await run_sync(hook, session_id)
            if inspect.isawaitable(made):
                await made
    except Exception:
        logger.exception("on_session_end hook %s failed for session %s", name, session_id)
