"""`Stream`'s waits, driven directly where the order of events must be exact: a response
handler's wait and a reconnecting client's wait on the same stream."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

from toolwire.transports.http.channel import Stream

BOUND_SECONDS = 5.0


def test_a_left_connections_wait_does_not_unhook_the_wait_of_the_one_that_took_over() -> None:
    # A GET stream whose client left and came back at once: the first handler's wait ended
    # only after the second had begun, and cleared the second's waiter on its way out. That
    # second GET then outlived DELETE and shutdown (uvicorn cancelled it: a traceback).
    sent: list[bytes] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message.get("body", b""))

    async def still_there() -> MutableMapping[str, Any]:
        await asyncio.Event().wait()  # the client never leaves on its own here
        raise AssertionError("unreachable")

    async def scenario() -> None:
        stream = Stream("s.g1", None, sse=True, live=False)
        stream.send_to = send
        first = asyncio.create_task(stream.wait(still_there, 60.0))
        await asyncio.sleep(0)
        stream.detach()  # the first client left: its wait is woken...
        stream.send_to = send  # ...and the reconnecting client's GET takes the stream over
        second = asyncio.create_task(stream.wait(still_there, 60.0))
        await asyncio.wait_for(first, BOUND_SECONDS)
        assert not second.done()
        stream.finish()  # the session ends
        await asyncio.wait_for(second, BOUND_SECONDS)

    asyncio.run(scenario())
