"""A change bus within one process, for the tests: the apps given the same `LocalChangeBus`
hear each other as processes sharing a Redis bus would."""

from __future__ import annotations

import asyncio

from toolwire.transports.http.changes import BusMember, Hear, call_on


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
        if not call_on(self._loop, self._hear, topic, data):  # it left without saying so
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
