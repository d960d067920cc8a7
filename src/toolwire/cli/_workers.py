"""N worker processes on one socket, each serving the app under a uvicorn server of its own.

This is `toolwire run TARGET --transport http --workers N` and `Server.run("http", workers=N)`.
The parent binds the socket, imports TARGET once (a bad one fails at once, saying why) and starts
workers that import TARGET anew, told what to serve by `TOOLWIRE_WORKER_SPEC` (JSON). A worker
that dies is replaced; SIGTERM or SIGINT stops every worker, then the parent exits with status 0.
A worker that cannot build the app exits with uvicorn's start-up failure status, which stops
them all, and a worker whose parent was killed stops itself. Each worker keeps its own sessions,
hence the warning without `--stateless` (`sessions_warning`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import threading
from collections.abc import Sequence
from typing import Any

__all__ = ["SPEC_VARIABLE", "in_worker", "run_workers", "sessions_warning"]

logger = logging.getLogger("toolwire")

SPEC_VARIABLE = "TOOLWIRE_WORKER_SPEC"

_WORKER_MODULE = "toolwire.cli._serve_worker"

SUPERVISE_SECONDS = 0.5
"""How often the parent looks for a worker that ended."""


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
    access_log: bool = False,
    shutdown_grace: float = 5.0,
    tools: Sequence[str] | None = None,
) -> bool:
    """Serve TARGET from `workers` processes until SIGTERM/SIGINT; whether they all started.

    Args:
        target: `module[:NAME]` or an absolute `file.py[:NAME]` (workers may start in
            another directory than the one a relative path was given in).
        root: The absolute directory a module TARGET is imported from.
        workers: How many worker processes (at least 2).
        host: The interface to bind.
        port: The TCP port (0: any free one).
        app_options: Keyword arguments for `Server.http_app` (JSON-serialisable).
        access_log: Log one line per request on stderr.
        shutdown_grace: After the exit signal, the seconds calls in flight get in each
            worker.
        tools: The tool names the server has here; a worker whose import of TARGET gives
            a server without one of them refuses to start (None: no check).

    Returns:
        False when a worker failed to start (its error was logged); the others are stopped.
    """
    from ..transports._process import configure_logging
    from ..transports.http.run import bound_socket, say, serving_config, serving_line

    spec: dict[str, Any] = {
        "target": target,
        "path": root,
        "host": host,
        "options": app_options,
        "supervisor": os.getpid(),
        "access_log": access_log,
        "shutdown_grace": shutdown_grace,
    }
    if tools is not None:
        spec["tools"] = sorted(tools)
    before = os.environ.get(SPEC_VARIABLE)
    os.environ[SPEC_VARIABLE] = json.dumps(spec)
    try:
        configure_logging()
        config = serving_config(
            None, host=host, port=port, access_log=access_log, grace=shutdown_grace
        )
        listening = bound_socket(config)
        with listening:
            # Listening already: a client told the address below is queued until a worker
            # takes it, rather than refused while the workers start.
            listening.listen(config.backlog)
            path = app_options.get("path", "/mcp")
            say(serving_line(host, listening.getsockname()[1], path, workers=workers))
            return _supervise(listening, workers)
    finally:
        if before is None:
            os.environ.pop(SPEC_VARIABLE, None)
        else:
            os.environ[SPEC_VARIABLE] = before


def _supervise(listening: socket.socket, workers: int) -> bool:
    """Run `workers` processes serving `listening`, replacing those that die, until
    SIGTERM/SIGINT or a worker's failed start; then stop them all and wait for them."""
    import multiprocessing

    from uvicorn.config import STARTUP_FAILURE

    spawn = multiprocessing.get_context("spawn")
    stop = threading.Event()

    def start() -> Any:
        process = spawn.Process(target=_worker, args=(listening,), name="toolwire-worker")
        process.start()
        return process

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    processes = [start() for _ in range(workers)]
    failed = False
    try:
        while not stop.wait(SUPERVISE_SECONDS):
            for index, process in enumerate(processes):
                if process.is_alive():
                    continue
                if process.exitcode == STARTUP_FAILURE:
                    failed = True
                    stop.set()
                    break
                logger.warning(
                    "toolwire worker %s ended (exit status %s); starting another",
                    process.pid,
                    process.exitcode,
                )
                processes[index] = start()
    finally:
        for process in processes:
            if process.is_alive() and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)
        for process in processes:
            process.join()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return not failed and not any(p.exitcode == STARTUP_FAILURE for p in processes)


def _worker(listening: socket.socket) -> None:
    """A worker process's body: `_serve_worker.serve_worker`, imported by name in the worker
    only (the parent, which imports the server's module, never needs it)."""
    import importlib

    importlib.import_module(_WORKER_MODULE).serve_worker(listening)


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
