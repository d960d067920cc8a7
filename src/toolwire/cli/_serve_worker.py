"""The body of each worker process of `run_in_workers` (`_workers.py`), imported by name there."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sys
import threading
import time

from ._target import TargetError, load_server
from ._workers import SPEC_VARIABLE

__all__ = ["serve_worker"]

logger = logging.getLogger("toolwire")

_PARENT_POLL_SECONDS = 0.5


def serve_worker(listening: socket.socket) -> None:
    """Serve the app the parent's spec describes on `listening` until SIGTERM/SIGINT.

    A worker that cannot build the app exits with uvicorn's start-up failure status, which
    stops the parent too (rather than being replaced, and failing again, forever).
    """
    from uvicorn.config import STARTUP_FAILURE

    from ..transports._process import configure_logging
    from ..transports.http.run import serve_until_stopped

    spec = json.loads(os.environ[SPEC_VARIABLE])
    configure_logging()
    _stop_with_parent(spec["supervisor"])
    try:
        server = load_server(spec["target"], path=spec["path"])
        missing = sorted(set(spec["tools"]) - set(server.tools))
        if missing:  # added after the import, which workers do not run
            raise TargetError(
                f"importing {spec['target']} in a worker gives a server without the tools "
                f"{', '.join(missing)}, which were added after the import (under "
                '`if __name__ == "__main__":`?); workers import the module anew, so add tools '
                "at module level"
            )
        app = server.http_app(host=spec["host"], **spec["options"])
    except (TargetError, ValueError) as error:
        logger.error("toolwire worker %d did not start: %s", os.getpid(), error)
        sys.exit(STARTUP_FAILURE)
    started = serve_until_stopped(
        app,
        host=spec["host"],
        access_log=bool(spec["access_log"]),
        grace=float(spec["shutdown_grace"]),
        listening=listening,
        failure_status=STARTUP_FAILURE,
    )
    if not started:
        sys.exit(STARTUP_FAILURE)


def _stop_with_parent(supervisor: int) -> None:
    """SIGTERM this worker once the supervisor is gone (its pid from the spec: by now
    `getppid()` may already be init's)."""

    def watch() -> None:
        while os.getppid() == supervisor:
            time.sleep(_PARENT_POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="toolwire-parent-watch", daemon=True).start()
