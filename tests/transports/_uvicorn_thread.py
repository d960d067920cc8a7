"""A real uvicorn server on 127.0.0.1 (a free port) in a thread, and an SSE event reader."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@contextmanager
def served(app: Any) -> Iterator[str]:
    """Serve `app` under uvicorn (lifespan on) in a thread; yield its base URL."""
    import uvicorn

    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped during start-up"
        assert time.monotonic() < deadline, "uvicorn did not start within 30 s"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        assert not thread.is_alive(), "uvicorn did not stop within 15 s"


@dataclass
class Event:
    """One server-sent event (comments are kept as events of kind ':')."""

    kind: str
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


async def events(lines: AsyncIterator[str]) -> AsyncIterator[Event]:
    """The events of an SSE body, comments included, from its lines."""
    kind = "message"
    data: list[str] = []
    async for line in lines:
        if line == "":
            if data:
                yield Event(kind, "\n".join(data))
            kind, data = "message", []
        elif line.startswith(":"):
            yield Event(":", line[1:].strip())
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
