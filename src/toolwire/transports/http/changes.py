"""The change bus: how the processes serving one MCP URL tell each other what clients must hear
(list changes, resource updates, session ends and updates, client answers). `publish` returns at
once, from any thread; a member never hears its own notices; a notice may be merged or repeated,
never lost. `FOLLOWED_RESOURCES_UPDATED` is only handed by a member to its own app, when it may
have missed updates. See docs/decisions.md, `changes.py`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "CLIENT_RESPONSE",
    "FOLLOWED_RESOURCES_UPDATED",
    "PROMPTS_CHANGED",
    "RESOURCES_CHANGED",
    "RESOURCE_UPDATED",
    "SESSION_ENDED",
    "SESSION_UPDATED",
    "TOOLS_CHANGED",
    "BusMember",
    "ChangeBus",
    "Hear",
    "call_on",
]

TOOLS_CHANGED = "tools"
RESOURCES_CHANGED = "resources"
PROMPTS_CHANGED = "prompts"
RESOURCE_UPDATED = "resource-updated"
FOLLOWED_RESOURCES_UPDATED = "followed-resources-updated"
CLIENT_RESPONSE = "client-response"
SESSION_ENDED = "session-ended"
SESSION_UPDATED = "session-updated"

Hear = Callable[[str, str], None]
"""Receives one notice of another member: its topic and its data; called on the member's
event loop."""


class BusMember(Protocol):
    """One app's place on the bus, from `ChangeBus.join` until `leave`."""

    def publish(self, topic: str, data: str = "") -> None:
        """Tell every other member; returns at once, from any thread."""
        ...

    async def leave(self) -> None:
        """Stop hearing and publishing."""
        ...


@runtime_checkable
class ChangeBus(Protocol):
    """Carries notices between the apps (usually processes) serving one MCP URL."""

    async def join(self, hear: Hear) -> BusMember:
        """Join on the running event loop: `hear` gets every other member's notices."""
        ...


def call_on(loop: asyncio.AbstractEventLoop, function: Callable[..., None], *args: Any) -> bool:
    """Call `function(*args)` on `loop`, now if it is the running loop; False when closed."""
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        function(*args)
        return True
    try:
        loop.call_soon_threadsafe(function, *args)
    except RuntimeError:
        return False
    return True
