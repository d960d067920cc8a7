"""FrameFeed: frames handled in the reader's callback, in order, with backpressure.

A real pipe feeds a real ServerSession; its `send` can be held shut so that a frame's
handling suspends, which is what the feed must cope with: later frames wait for it."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress

import anyio

from toolwire import Server, function_tool
from toolwire.protocol.session import ServerSession
from toolwire.transports._fdguard import FdReader
from toolwire.transports._feed import MAX_WAITING, FrameFeed
from toolwire.transports._framing import LineSplitter


def ping(request_id: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode() + b"\n"


class Wire:
    """The session's `send`: records frames; while `gate` is clear, sending waits."""

    def __init__(self) -> None:
        self.frames: list[dict[str, object]] = []
        self.gate = asyncio.Event()
        self.gate.set()

    async def send(self, frame: bytes) -> None:
        await self.gate.wait()
        self.frames.append(json.loads(frame))

    def ids(self) -> list[object]:
        return [frame.get("id") for frame in self.frames]


@contextmanager
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    try:
        yield read_fd, write_fd
    finally:
        for fd in (read_fd, write_fd):
            with suppress(OSError):
                os.close(fd)


@asynccontextmanager
async def feeding(read_fd: int, wire: Wire) -> AsyncIterator[tuple[FrameFeed, FdReader]]:
    reader = FdReader(read_fd)
    async with ServerSession(Server("feed"), wire.send) as session:
        feed = FrameFeed.start(reader, LineSplitter(1 << 20), session)
        assert feed is not None, "a pipe on asyncio must be fed from the reader's callback"
        try:
            yield feed, reader
        finally:
            feed.close()
            reader.close()


async def until(predicate: object, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.001)


def test_frames_behind_a_suspended_one_wait_and_keep_their_order() -> None:
    async def main() -> None:
        wire = Wire()
        with pipe() as (read_fd, write_fd):
            async with feeding(read_fd, wire) as (feed, _):
                wire.gate.clear()  # the first reply cannot be written yet
                os.write(write_fd, ping(1))
                await until(lambda: feed._task is not None)
                os.write(write_fd, ping(2) + ping(3))
                await asyncio.sleep(0.05)
                assert len(feed._waiting) == 2  # 2 and 3 are not even started before 1 ends
                assert wire.ids() == []
                wire.gate.set()
                await until(lambda: len(wire.frames) == 3)
                assert wire.ids() == [1, 2, 3]
                os.write(write_fd, ping(4))  # and handling goes back to the callback
                await until(lambda: len(wire.frames) == 4)
                assert feed._task is None

    asyncio.run(main())


def test_reading_pauses_while_too_many_frames_wait_and_resumes_after() -> None:
    async def main() -> None:
        wire = Wire()
        with pipe() as (read_fd, write_fd):
            async with feeding(read_fd, wire) as (feed, reader):
                wire.gate.clear()
                os.write(write_fd, ping(0))
                await until(lambda: feed._task is not None)
                count = MAX_WAITING + 10
                for request_id in range(1, count + 1):
                    os.write(write_fd, ping(request_id))
                await until(lambda: not reader._registered)  # paused: backpressure
                wire.gate.set()
                await until(lambda: len(wire.frames) == count + 1)
                assert wire.ids() == list(range(count + 1))
                assert reader._registered  # reading again

    asyncio.run(main())


def test_the_end_of_the_stream_waits_for_every_frame_before_it() -> None:
    async def main() -> None:
        wire = Wire()
        with pipe() as (read_fd, write_fd):
            async with feeding(read_fd, wire) as (feed, _):
                wire.gate.clear()
                os.write(write_fd, ping(1) + ping(2) + b'{"jsonrpc":"2.0","id":3,"method":"ping"}')
                os.close(write_fd)  # EOF, with a last line that has no newline
                waiting = asyncio.ensure_future(feed.wait())
                await asyncio.sleep(0.05)
                assert not waiting.done()
                wire.gate.set()
                await asyncio.wait_for(waiting, 5)
                assert wire.ids() == [1, 2, 3]

    asyncio.run(main())


def test_close_cancels_the_suspended_frame_and_drops_the_waiting_ones() -> None:
    async def main() -> None:
        wire = Wire()
        with pipe() as (read_fd, write_fd):
            async with feeding(read_fd, wire) as (feed, _):
                wire.gate.clear()
                os.write(write_fd, ping(1) + ping(2))
                await until(lambda: feed._task is not None)
                task = feed._task
                assert task is not None
                feed.close()
                await asyncio.sleep(0.01)
                assert task.cancelled()
                wire.gate.set()
                await asyncio.sleep(0.05)
                assert wire.ids() == []

    asyncio.run(main())


def test_a_descriptor_the_loop_cannot_watch_is_read_by_the_pump_instead() -> None:
    async def main() -> None:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            reader = FdReader(null)
            async with ServerSession(Server("feed"), Wire().send) as session:
                assert FrameFeed.start(reader, LineSplitter(1024), session) is None
            assert await reader.read() == b""  # and read() still works (EOF at once)
        finally:
            os.close(null)

    asyncio.run(main())


def test_an_async_is_enabled_runs_in_a_task_of_its_own() -> None:
    # A request is handled in the reader's callback, outside any task; user code that needs
    # one (anyio cancel scopes, asyncio.timeout) must still get one.
    async def enabled(ctx: object, agent: object) -> bool:
        with anyio.fail_after(5):
            await asyncio.sleep(0)
        async with asyncio.timeout(5):
            await asyncio.sleep(0)
        return asyncio.current_task() is not None

    server = Server("feed")
    server.add_tool(function_tool(lambda: "yes", name_override="gated", is_enabled=enabled))

    async def main() -> None:
        wire = Wire()
        with pipe() as (read_fd, write_fd):
            reader = FdReader(read_fd)
            async with ServerSession(server, wire.send) as session:
                feed = FrameFeed.start(reader, LineSplitter(1 << 20), session)
                assert feed is not None
                try:
                    initialize = {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    }
                    frames = [
                        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
                        {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                        {
                            "jsonrpc": "2.0",
                            "id": 3,
                            "method": "tools/call",
                            "params": {"name": "gated", "arguments": {}},
                        },
                    ]
                    os.write(write_fd, b"".join(json.dumps(f).encode() + b"\n" for f in frames))
                    await until(lambda: len(wire.frames) == 3)
                finally:
                    feed.close()
                    reader.close()
        listed, called = wire.frames[1], wire.frames[2]
        assert [tool["name"] for tool in listed["result"]["tools"]] == ["gated"]  # type: ignore[index]
        assert called["result"]["content"] == [{"type": "text", "text": "yes"}]  # type: ignore[index]

    asyncio.run(main())
