"""The change bus: how the processes serving one MCP URL tell each other what their clients
must hear about.

The notices it carries:

- `TOOLS_CHANGED`, `RESOURCES_CHANGED`, `PROMPTS_CHANGED`: a process's list of that kind
  changed, so every process tells its own clients (handshake-era sessions get
  `notifications/<kind>/list_changed`, 2026-07-28 `subscriptions/listen` streams theirs).
- `RESOURCE_UPDATED` (data: the URI): the server announced that a resource's contents changed;
  every process tells its clients that follow that URI.
- `FOLLOWED_RESOURCES_UPDATED` (no data): never published; a member hands it to its own app
  when it may have missed `RESOURCE_UPDATED` notices (it was cut off from the others). The
  app tells each of its clients that every URI it follows may have changed.
- `SESSION_ENDED` (data: the session id): a session was ended (DELETE), so a process still
  holding a live copy of it drops it. `SESSION_UPDATED`: a session's record changed (its log
  level, its subscriptions), so a process holding a copy reloads it.
- `CLIENT_RESPONSE` (data: see `_client_answers.py`): a client's answer to a request the
  server sent during a call reached a process that did not send it; the process whose call
  waits for it takes it.

A handshake-era session copied on several processes still hears each notice once: every copy
is told, but a notice without a request to travel with goes out on the session's GET stream,
and only the process the client opened that stream on holds it; the other copies drop theirs.

Why here, in the HTTP transport, and not in `protocol/`: a session never needs to know that
other processes exist. Within one process the server already tells every session of a change
(its registries' listeners); the bus only carries that fact between processes, and only an
HTTP deployment has several. The app's runtime joins the bus while it serves, publishes its
registries' changes, and hands what it hears from others to the same registry listeners.

Decisions:

- A member never hears its own notices: the process that made a change already told its
  clients, and a notice bounced back would tell them twice.
- `publish` returns at once and may be called from any thread (a sync tool adding a tool runs
  on a worker thread); delivery is the member's business, on its own loop.
- Change notices are level triggers ("refetch if you care"): a member may merge a burst of
  the same notice into one, and it may tell its clients of a change that did not happen;
  what it must not do is leave a client unaware of one that did. So a member that cannot
  reach the others holds what it publishes (in order, each notice once, bounded) and sends
  it once they are reachable again; and one that could not hear for a while tells its own
  clients, once it hears again, that each list may have changed and that every resource
  they follow may have (`FOLLOWED_RESOURCES_UPDATED`: which URIs were updated meanwhile is
  not known, and a client reading a resource again costs one read). A session's copy reads
  its record again before it tells, since a subscription made through another process
  meanwhile (`SESSION_UPDATED`) was missed too. A topic of its own
  rather than a special URI on `RESOURCE_UPDATED`: a URI is whatever a server names, and
  the registry's update listeners, the server's included, take only real ones.
- Held notices do not wait for ever: one held past an age limit is dropped, with a log line
  naming it (the limit and why it is enough: `redis_changes.py`).
- `LocalChangeBus` (several apps in one process, e.g. in tests) is the in-process bus;
  without any bus, an app behaves as before: its own clients only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol, runtime_checkable

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
    "LocalChangeBus",
]

logger = logging.getLogger("toolwire.http")

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


class _LocalMember:
    def __init__(self, bus: LocalChangeBus, hear: Hear) -> None:
        self._bus = bus
        self._hear = hear
        self._loop = asyncio.get_running_loop()

    def publish(self, topic: str, data: str = "") -> None:
        for member in list(self._bus.members):
            if member is not self:
                member.deliver(topic, data)

    def deliver(self, topic: str, data: str) -> None:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._hear(topic, data)
            return
        try:
            self._loop.call_soon_threadsafe(self._hear, topic, data)
        except RuntimeError:  # that member's loop is closed: it left without saying so
            self._bus.members.discard(self)

    async def leave(self) -> None:
        self._bus.members.discard(self)


class LocalChangeBus:
    """A bus within one process: the apps given the same instance hear each other."""

    def __init__(self) -> None:
        self.members: set[_LocalMember] = set()

    async def join(self, hear: Hear) -> BusMember:
        """Join the bus (see `ChangeBus.join`)."""
        member = _LocalMember(self, hear)
        self.members.add(member)
        return member
