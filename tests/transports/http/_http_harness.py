"""Serving an ASGI app under a real uvicorn on 127.0.0.1 (a free port) for a test, in a thread."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

STARTUP_SECONDS = 10.0


@contextlib.contextmanager
def serving(app: Any, *, lifespan: str = "on") -> Iterator[str]:
    """Serve `app` until the block ends; yield its base URL (`http://127.0.0.1:PORT`)."""
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY on accepted connections only then,
    # and a response written in two parts would otherwise wait ~40 ms for the delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan=lifespan, access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STARTUP_SECONDS)
        sock.close()
