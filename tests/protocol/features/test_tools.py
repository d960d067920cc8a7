"""`tools/list` and what follows it: the listing is the request's one reply."""

from __future__ import annotations

import anyio
import pytest

from toolwire.server import Server

from ..harness import handshake

pytestmark = pytest.mark.anyio


async def test_a_warm_up_that_cannot_start_sends_no_second_reply() -> None:
    # After the first listing the server warms up for calls on a thread; a thread that cannot
    # start (the process is out of them) must not answer the listed request a second time.
    class OutOfThreads(Server):
        def tools_listed(self) -> None:
            raise RuntimeError("can't start new thread")

    server = OutOfThreads("s")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    async with handshake(server) as peer:
        reply = await peer.request(1, "tools/list")
        await peer.request(2, "ping")  # everything the listing caused has been sent by now
        await anyio.sleep(0.01)
        answers = [message for message in peer.messages if message.get("id") == 1]
    assert answers == [reply]
    assert [tool["name"] for tool in reply["result"]["tools"]] == ["add"]
