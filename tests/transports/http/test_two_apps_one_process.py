"""Two HTTP apps served in one process, on one event loop, each under a uvicorn server that
toolwire's runner drives (`serve_with`): stopping one of them must leave the other's open
`subscriptions/listen` stream and its idle sessions alone, since each app's serving state is
its own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from _modern_support import body, enveloped, headers_for, sse_frames

from toolwire import Server
from toolwire.transports.http.run import ShutdownGate, bound_socket, serve_with, serving_config

GRACE = 1.0
WAIT = 20.0


class TwoServed:
    """Two apps, each behind its own uvicorn server on its own 127.0.0.1 port, both on one
    event loop in a thread of the test process."""

    def __init__(self, *apps: Any) -> None:
        self.apps = apps
        self.servers: list[uvicorn.Server] = []
        self.urls: list[str] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stopped = [threading.Event() for _ in apps]
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        tasks = []
        for number, app in enumerate(self.apps):
            gate = ShutdownGate(app, GRACE)
            config = serving_config(
                gate, host="127.0.0.1", port=0, access_log=False, grace=GRACE, log_level="warning"
            )
            server = uvicorn.Server(config)
            listening = bound_socket(config)
            self.urls.append(f"http://127.0.0.1:{listening.getsockname()[1]}/mcp")
            self.servers.append(server)
            task = asyncio.get_running_loop().create_task(
                serve_with(server, gate, sockets=[listening])
            )
            task.add_done_callback(lambda _, done=self.stopped[number]: done.set())
            tasks.append(task)
        self._ready.set()
        await asyncio.gather(*tasks)

    def __enter__(self) -> TwoServed:
        self._thread.start()
        assert self._ready.wait(WAIT)
        for _ in range(int(WAIT / 0.01)):
            if all(server.started for server in self.servers):
                return self
            threading.Event().wait(0.01)
        raise RuntimeError("the two test servers did not start")

    def stop(self, number: int) -> None:
        """Stop one app's server, as SIGTERM would, and wait until it has stopped."""
        self.servers[number].should_exit = True
        assert self.stopped[number].wait(WAIT), "the server did not stop"

    def __exit__(self, *exc: object) -> None:
        for server in self.servers:
            server.should_exit = True
        self._thread.join(WAIT)


class Listener:
    """A client holding a `subscriptions/listen` stream open in a thread, collecting its
    frames until the server ends the response."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.frames: list[dict[str, Any]] = []
        self.acknowledged = threading.Event()
        self.heard_change = threading.Event()
        self.over = threading.Event()  # the response ended (or failed)
        self._thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        try:
            self._collect()
        finally:
            self.over.set()

    def _collect(self) -> None:
        listen = enveloped(notifications={"toolsListChanged": True})
        text = ""
        with httpx.stream(
            "POST",
            self.url,
            headers=headers_for("subscriptions/listen"),
            content=body("subscriptions/listen", listen, "L"),
            timeout=WAIT,
        ) as stream:
            for chunk in stream.iter_text():  # until the server ends the response
                text += chunk
                if "acknowledged" in text:
                    self.acknowledged.set()
                if "list_changed" in text:
                    self.heard_change.set()
        self.frames = sse_frames(text)

    def hears_change(self) -> bool:
        """Whether a tool-list change arrives before the stream ends."""
        for _ in range(int(WAIT / 0.01)):
            if self.heard_change.is_set() or self.over.is_set():
                break
            self.over.wait(0.01)
        return self.heard_change.is_set()

    def __enter__(self) -> Listener:
        self._thread.start()
        assert self.acknowledged.wait(WAIT), "the listen stream was not acknowledged"
        return self

    def ended(self) -> bool:
        self._thread.join(WAIT)
        return not self._thread.is_alive()

    def __exit__(self, *exc: object) -> None:
        self._thread.join(WAIT)


def post(url: str, method: str, params: dict[str, Any]) -> httpx.Response:
    return httpx.post(url, headers=headers_for(method, params), content=body(method, params))


def _server(name: str, opened: list[Any]) -> Server:
    server = Server(name)

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    real = server.session_opened

    def counted(session: Any) -> None:
        opened.append(session)
        real(session)

    server.session_opened = counted  # type: ignore[method-assign]
    return server


@pytest.fixture(params=["two servers", "one server, two apps"])
def two(request: pytest.FixtureRequest) -> Iterator[tuple[TwoServed, list[Server], list[Any]]]:
    if request.param == "two servers":
        opened: list[list[Any]] = [[], []]
        servers = [_server("first", opened[0]), _server("second", opened[1])]
    else:
        shared: list[Any] = []
        opened = [shared, shared]
        servers = [_server("both", shared)] * 2
    with TwoServed(*(server.http_app() for server in servers)) as served:
        yield served, servers, opened


def _add_tool(served: TwoServed, server: Server) -> None:
    """Publish one more tool on `server`, on the serving loop (its listen streams hear)."""

    async def publish() -> None:
        server.add_tool(lambda: "more", name="more")

    assert served.loop is not None
    asyncio.run_coroutine_threadsafe(publish(), served.loop).result(WAIT)


def test_stopping_one_app_leaves_the_others_listen_stream_and_idle_sessions(
    two: tuple[TwoServed, list[Server], list[Any]],
) -> None:
    served, servers, opened = two
    call = enveloped(name="add", arguments={"a": 2, "b": 3})
    with Listener(served.urls[0]) as first, Listener(served.urls[1]) as second:
        for url in served.urls:  # each app keeps the session of this call for the next one
            assert post(url, "tools/call", call).json()["result"]["structuredContent"] == {
                "result": 5
            }
        kept = len(opened[1])
        # Each app's listen session and idle one (those of the second app, or of both).
        assert kept == (2 if servers[0] is not servers[1] else 4)

        served.stop(0)
        assert first.ended()
        assert [frame.get("method") for frame in first.frames] == [
            "notifications/subscriptions/acknowledged",
            None,  # the listen request's final result: the stream ended as its app stopped
        ]
        assert first.frames[1]["result"]["resultType"] == "complete"

        # The second app's stream is still open: it hears of a change to its own server.
        _add_tool(served, servers[1])
        assert second.hears_change(), "the second app's listen stream was ended"
        # And its idle session is still there to serve the next call: no session opened.
        reply = post(served.urls[1], "tools/call", call)
        assert reply.json()["result"]["structuredContent"] == {"result": 5}
        assert len(opened[1]) == kept

        served.stop(1)
        assert second.ended()
    assert [frame.get("method") for frame in second.frames] == [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
        None,
    ]
    assert second.frames[2]["result"]["resultType"] == "complete"
