"""N uvicorn worker processes on one socket: `toolwire run TARGET --transport http --workers N`
and `Server.run("http", workers=N)`.

uvicorn's multi-process supervisor starts each worker as a fresh interpreter (multiprocessing
"spawn"), so a worker cannot be handed the app object the parent built: it needs something
it can import. That is `worker_app` (`_serve_worker.py`), a factory uvicorn calls in each
worker; what to serve reaches it through one environment variable (workers inherit the
environment), as JSON: the TARGET, the directory to import a module TARGET from, and the
options of `Server.http_app`. Any `module:attr` or `path/file.py[:attr]` TARGET works this
way, since each worker imports it as `toolwire run` did; `Server.run` finds one for its
server (`_serve_workers.py`).

The parent binds the socket, has TARGET imported once already (so a bad TARGET fails at once,
with a clear message, not in N workers) and supervises: a worker that dies is replaced,
SIGTERM/SIGINT stop every worker, then the parent exits with status 0. In a worker the first
of those signals also ends the open streams, as in a single process (`_stream_run.py`). A
worker that cannot build the app says why and stops the lot; a worker whose parent was killed
outright (SIGKILL: nothing could stop the workers) notices and stops itself.

Each worker keeps its own sessions: the kernel spreads connections over the workers, so a
session's later requests can land on a worker that never saw it. Hence the warning without
`--stateless` (see `sessions_warning`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

__all__ = ["SPEC_VARIABLE", "in_worker", "run_workers", "sessions_warning"]

SPEC_VARIABLE = "TOOLWIRE_WORKER_SPEC"
_FACTORY = "toolwire.cli._serve_worker:worker_app"  # by name: imported in the workers only


def sessions_warning(workers: int, *, from_python: bool = False) -> str:
    """The warning for several workers that would each keep their own sessions, in the
    words of `toolwire run` (flags) or of `Server.run` (`from_python`: keyword arguments)."""
    if from_python:
        head = f"Server.run('http', workers={workers}) without stateless=True"
        fixes = "Use stateless=True, or share the sessions through Redis (backplane=URL)"
    else:
        head = f"toolwire run: warning: --workers {workers} without --stateless"
        fixes = "Use --stateless, or share the sessions through Redis (--redis URL)"
    return (
        f"{head}: each worker keeps its own sessions and the kernel spreads connections over "
        "the workers, so a session's later requests can reach a worker that does not know it "
        f"(404). {fixes}, or run one process per port behind a load balancer that keeps each "
        "session on its process (TOOLWIRE_SESSION_ROUTE)"
    )


def run_workers(
    target: str,
    *,
    root: str,
    workers: int,
    host: str,
    port: int,
    app_options: dict[str, Any],
    header_timeout: float | None,
    tools: Sequence[str] | None = None,
) -> bool:
    """Serve TARGET from `workers` processes until SIGTERM/SIGINT; whether they all started.

    Args:
        target: `module[:NAME]` or an absolute `file.py[:NAME]` (workers may start in
            another directory than the one a relative path was given in).
        root: The absolute directory a module TARGET is imported from.
        workers: How many worker processes (at least 2).
        host: The interface to bind.
        port: The TCP port.
        app_options: Keyword arguments for `Server.http_app` (JSON-serialisable).
        header_timeout: Seconds a connection gets to send a complete request head (None:
            no limit); see `transports/http/_http_protocol.py`.
        tools: The tool names the server has here; a worker whose import of TARGET gives
            a server without one of them refuses to start (None: no check).

    Returns:
        False when a worker failed to start (its error was logged); the others are stopped.
    """
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from ..transports._process import configure_logging
    from ..transports.http._http_protocol import configure_protocol
    from ..transports.http._stream_run import GRACEFUL_SECONDS

    spec: dict[str, Any] = {
        "target": target,
        "path": root,
        "host": host,
        "options": app_options,
        "supervisor": os.getpid(),
    }
    if tools is not None:
        spec["tools"] = sorted(tools)
    before = os.environ.get(SPEC_VARIABLE)
    os.environ[SPEC_VARIABLE] = json.dumps(spec)
    try:
        configure_logging()
        config = uvicorn.Config(
            _FACTORY,
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=GRACEFUL_SECONDS,
        )
        configure_protocol(config, header_timeout)
        supervisor = Multiprocess(config, sockets=[config.bind_socket()])
        supervisor.run()
    finally:
        if before is None:
            os.environ.pop(SPEC_VARIABLE, None)
        else:
            os.environ[SPEC_VARIABLE] = before
    return not any(worker.exitcode == STARTUP_FAILURE for worker in supervisor.processes)


def in_worker() -> bool:
    """Whether this process is a worker that `run_workers` started, importing or serving.

    Told by the spec naming this process's parent as the supervisor: multiprocessing marks
    a spawned child as such only after it has imported the started script anew, and that
    import is when a misplaced `Server.run(..., workers=N)` runs.
    """
    raw = os.environ.get(SPEC_VARIABLE)
    if not raw:
        return False
    try:
        supervisor = json.loads(raw).get("supervisor")
    except (ValueError, AttributeError):
        return False
    return isinstance(supervisor, int) and supervisor == os.getppid()
