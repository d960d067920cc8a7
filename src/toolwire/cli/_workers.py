"""`toolwire run TARGET --transport http --workers N`: N uvicorn worker processes on one socket.

uvicorn's multi-process supervisor starts each worker as a fresh interpreter (multiprocessing
"spawn"), so a worker cannot be handed the app object the command built: it needs something
it can import. That is `worker_app` below, a factory uvicorn calls in each worker; what to
serve reaches it through one environment variable (workers inherit the environment), as
JSON: the TARGET, the directory to import a module TARGET from, and the options of
`Server.http_app`. Any `module:attr` or `path/file.py[:attr]` TARGET works this way, since
each worker imports it as `toolwire run` did.

The parent binds the socket, imports TARGET once itself (so a bad TARGET fails at once, with
the command's own message, not in N workers) and supervises: a worker that dies is replaced,
SIGTERM/SIGINT stop every worker, then the parent exits with status 0. A worker whose parent
was killed outright (SIGKILL: nothing could stop the workers) notices and stops itself.

Each worker keeps its own sessions: the kernel spreads connections over the workers, so a
session's later requests can land on a worker that never saw it. Hence the warning without
`--stateless` (see `sessions_warning`).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ._target import is_path_target, load_server, split_target

__all__ = ["SPEC_VARIABLE", "run_workers", "sessions_warning", "worker_app"]

SPEC_VARIABLE = "TOOLWIRE_WORKER_SPEC"
_PARENT_POLL_SECONDS = 0.5


def sessions_warning(workers: int) -> str:
    """What `toolwire run` prints when several workers would each keep their own sessions."""
    return (
        f"toolwire run: warning: --workers {workers} without --stateless: each worker keeps its "
        "own sessions and the kernel spreads connections over the workers, so a session's "
        "later requests can reach a worker that does not know it (404). Use --stateless, or "
        "share the sessions through Redis (--redis URL), or run one process per port behind a "
        "load balancer that keeps each session on its process (TOOLWIRE_SESSION_ROUTE)"
    )


def _absolute_target(target: str, path: str | None) -> tuple[str, str]:
    """TARGET and the import directory, made independent of the current directory."""
    spec, attribute = split_target(target)
    if is_path_target(spec):
        spec = str(Path(spec).expanduser().resolve())
    suffix = f":{attribute}" if attribute else ""
    root = Path(path).expanduser().resolve() if path else Path.cwd()
    return spec + suffix, str(root)


def run_workers(
    target: str,
    *,
    path: str | None,
    workers: int,
    host: str,
    port: int,
    app_options: dict[str, Any],
) -> bool:
    """Serve TARGET from `workers` processes until SIGTERM/SIGINT; whether they all started.

    Args:
        target: The TARGET as given to `toolwire run`.
        path: `--path` (where a module TARGET is imported from), or None.
        workers: How many worker processes (at least 2).
        host: The interface to bind.
        port: The TCP port.
        app_options: Keyword arguments for `Server.http_app` (JSON-serialisable).

    Returns:
        False when a worker failed to start (its error was logged); the others are stopped.
    """
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from ..transports._process import configure_logging
    from ..transports.http._stream_run import GRACEFUL_SECONDS

    full_target, root = _absolute_target(target, path)
    spec = {"target": full_target, "path": root, "host": host, "options": app_options}
    os.environ[SPEC_VARIABLE] = json.dumps(spec)
    configure_logging()
    config = uvicorn.Config(
        f"{__name__}:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    supervisor = Multiprocess(config, sockets=[config.bind_socket()])
    supervisor.run()
    return not any(worker.exitcode == STARTUP_FAILURE for worker in supervisor.processes)


def worker_app() -> Any:
    """The app of one worker process (uvicorn's factory): TARGET's `http_app`, as the
    parent's spec describes it.

    Raises:
        RuntimeError: Called outside a worker started by `run_workers`.
    """
    from ..transports._process import configure_logging

    raw = os.environ.get(SPEC_VARIABLE)
    if not raw:
        raise RuntimeError(f"{SPEC_VARIABLE} is not set: worker_app serves `--workers` only")
    spec = json.loads(raw)
    configure_logging()
    _stop_with_parent()
    server = load_server(spec["target"], path=spec["path"])
    return server.http_app(host=spec["host"], **spec["options"])


def _stop_with_parent() -> None:
    """SIGTERM this worker (a graceful stop) once its parent is gone."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="toolwire-parent-watch", daemon=True).start()
