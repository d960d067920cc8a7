"""N uvicorn worker processes on one socket: `toolwire run TARGET --transport http --workers N`
and `Server.run("http", workers=N)`.

uvicorn's multi-process supervisor starts each worker as a fresh interpreter (multiprocessing
"spawn"), so a worker cannot be handed the app object the parent built: it needs something
it can import. That is `worker_app` below, a factory uvicorn calls in each worker; what to
serve reaches it through one environment variable (workers inherit the environment), as
JSON: the TARGET, the directory to import a module TARGET from, and the options of
`Server.http_app`. Any `module:attr` or `path/file.py[:attr]` TARGET works this way, since
each worker imports it as `toolwire run` did; `Server.run` finds one for its server
(`_serve_home.py`).

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

import asyncio
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from ._target import TargetError, is_path_target, load_server, split_target

__all__ = ["SPEC_VARIABLE", "in_worker", "run_workers", "sessions_warning", "worker_app"]

logger = logging.getLogger("toolwire")

SPEC_VARIABLE = "TOOLWIRE_WORKER_SPEC"
_PARENT_POLL_SECONDS = 0.5


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
    tools: Sequence[str] | None = None,
) -> bool:
    """Serve TARGET from `workers` processes until SIGTERM/SIGINT; whether they all started.

    Args:
        target: The TARGET as given to `toolwire run`, or `module:NAME` from `Server.run`.
        path: `--path` (where a module TARGET is imported from), or None.
        workers: How many worker processes (at least 2).
        host: The interface to bind.
        port: The TCP port.
        app_options: Keyword arguments for `Server.http_app` (JSON-serialisable).
        tools: The tool names the server has here; a worker whose import of TARGET gives
            a server without one of them refuses to start (None: no check).

    Returns:
        False when a worker failed to start (its error was logged); the others are stopped.
    """
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    from ..transports._process import configure_logging
    from ..transports.http._stream_run import GRACEFUL_SECONDS

    full_target, root = _absolute_target(target, path)
    spec: dict[str, Any] = {
        "target": full_target,
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


def worker_app() -> Any:
    """The app of one worker process (uvicorn's factory): TARGET's `http_app`, as the
    parent's spec describes it. A worker that cannot build it logs why and exits with
    uvicorn's start-up failure status, which stops the parent too (rather than being
    replaced, and failing again, forever).

    Raises:
        RuntimeError: Called outside a worker started by `run_workers`.
    """
    from uvicorn.config import STARTUP_FAILURE

    from ..transports._process import configure_logging

    raw = os.environ.get(SPEC_VARIABLE)
    if not raw:
        raise RuntimeError(f"{SPEC_VARIABLE} is not set: worker_app serves `--workers` only")
    spec = json.loads(raw)
    configure_logging()
    _stop_with_parent()
    try:
        server = load_server(spec["target"], path=spec["path"])
        _check_tools(server, spec["target"], spec.get("tools"))
        app = server.http_app(host=spec["host"], **spec["options"])
    except (TargetError, ValueError) as error:
        logger.error("toolwire worker %d did not start: %s", os.getpid(), error)
        sys.exit(STARTUP_FAILURE)
    _end_streams_at_first_signal(app)
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


def _stop_with_parent() -> None:
    """SIGTERM this worker (a graceful stop) once its parent is gone."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="toolwire-parent-watch", daemon=True).start()
