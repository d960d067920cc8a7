"""The app of one worker process of `run_workers` (`_workers.py`): uvicorn imports this
module in each worker by name, and calls `worker_app` to build what the worker serves."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from ._target import TargetError, load_server
from ._workers import SPEC_VARIABLE

__all__ = ["worker_app"]

logger = logging.getLogger("toolwire")

_PARENT_POLL_SECONDS = 0.5


def worker_app() -> Any:
    """The app of one worker process (uvicorn's factory): TARGET's `http_app`, as the
    parent's spec describes it. A worker that cannot build it logs why and exits with
    uvicorn's start-up failure status, which stops the parent too (rather than being
    replaced, and failing again, forever).

    Raises:
        RuntimeError: Called outside a worker started by `run_workers`.
    """
    from uvicorn.config import STARTUP_FAILURE

    from ..transports._heap import settle_heap_now
    from ..transports._process import configure_logging

    raw = os.environ.get(SPEC_VARIABLE)
    if not raw:
        raise RuntimeError(f"{SPEC_VARIABLE} is not set: worker_app serves `--workers` only")
    spec = json.loads(raw)
    configure_logging()
    _stop_with_parent(spec.get("supervisor"))
    try:
        server = load_server(spec["target"], path=spec["path"])
        _check_tools(server, spec["target"], spec.get("tools"))
        app = server.http_app(host=spec["host"], **spec["options"])
    except (TargetError, ValueError) as error:
        logger.error("toolwire worker %d did not start: %s", os.getpid(), error)
        sys.exit(STARTUP_FAILURE)
    _end_streams_at_first_signal(app)
    settle_heap_now()  # the worker is ours and serves nothing yet (see transports/_heap.py)
    return app


def _check_tools(server: Any, target: str, expected: list[str] | None) -> None:
    """Refuse a worker whose server lacks tools the parent's has (added after import)."""
    missing = sorted(set(expected or ()) - set(server.tools))
    if missing:
        raise TargetError(
            f"importing {target} in a worker gives a server without the tools "
            f"{', '.join(missing)}, which were added after the import (under "
            '`if __name__ == "__main__":`?); workers import the module anew, so add tools '
            "at module level"
        )


def _end_streams_at_first_signal(app: Any) -> None:
    """Make the first SIGTERM/SIGINT end `app`'s open streams too, as one process does.

    uvicorn installs its exit handler before it builds the app, and that handler only stops
    accepting: open streams would run on until the graceful timeout cancels them mid-event.
    The handler is kept and ours runs after it; the work is done on the event loop, since a
    signal handler may interrupt any bytecode.
    """
    if threading.current_thread() is not threading.main_thread():
        return  # signals are delivered to the main thread only: nothing to chain onto
    loop = asyncio.get_running_loop()
    ending: list[asyncio.Task[None]] = []

    async def end() -> None:
        await app.end_streams()

    def start_ending() -> None:
        if not ending:
            ending.append(loop.create_task(end()))

    def chained(previous: Any) -> Callable[[int, FrameType | None], None]:
        def on_signal(signum: int, frame: FrameType | None) -> None:
            if callable(previous):
                previous(signum, frame)
            if not loop.is_closed():
                loop.call_soon_threadsafe(start_ending)

        return on_signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, chained(signal.getsignal(sig)))


def _stop_with_parent(supervisor: int | None) -> None:
    """SIGTERM this worker (a graceful stop) once its parent, the supervisor, is gone.

    The supervisor's pid comes from the spec: a parent killed while this worker was still
    starting has already been replaced by init, and `getppid()` read here would watch init.
    """
    parent = supervisor if isinstance(supervisor, int) else os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="toolwire-parent-watch", daemon=True).start()
