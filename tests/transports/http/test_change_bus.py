"""The change bus wiring of HTTP apps, in one process on the in-process bus: a tool change
is published once per app, heard by the other members, and never echoed back onto the bus."""

from __future__ import annotations

import asyncio

from tests._local_bus import LocalChangeBus

from toolwire import Server


def test_a_change_is_published_by_each_app_and_never_echoed() -> None:
    async def scenario() -> list[tuple[str, str]]:
        bus = LocalChangeBus()
        server = Server("echo")
        # Two apps of one server on one bus: each hears the other's notice; passing it to
        # the other's publisher would bounce it back and forth for ever.
        first = server.http_app(change_bus=bus)
        second = server.http_app(change_bus=bus)
        heard: list[tuple[str, str]] = []
        async with first.lifespan(), second.lifespan():
            observer = await bus.join(lambda topic, data: heard.append((topic, data)))
            server.add_tool(lambda: "x", name="x")
            await asyncio.sleep(0.3)
            await observer.leave()
        return heard

    assert asyncio.run(scenario()) == [("tools", ""), ("tools", "")]


def test_a_change_heard_from_the_bus_reaches_the_servers_sessions() -> None:
    async def scenario() -> int:
        bus = LocalChangeBus()
        server = Server("hear")
        told: list[None] = []
        server.tool_registry.listeners.append(lambda: told.append(None))
        app = server.http_app(change_bus=bus)
        async with app.lifespan():
            elsewhere = await bus.join(lambda topic, data: None)
            elsewhere.publish("tools")
            await asyncio.sleep(0.05)
            await elsewhere.leave()
        return len(told)

    assert asyncio.run(scenario()) == 1
