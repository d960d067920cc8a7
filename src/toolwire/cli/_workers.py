"""N worker processes on one socket, each serving the app under a uvicorn server of its own.

This is `toolwire run TARGET --transport http --workers N` and `Server.run("http", workers=N)`:
the parent binds the socket and starts workers that import TARGET anew, told what to serve by
`TOOLWIRE_WORKER_SPEC` (`_serve_worker.py` is the worker's side). A worker that dies is
replaced; SIGTERM or SIGINT stops every worker, then the parent returns; a worker that cannot
build the app stops them all.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__all__ = ["WorkerTargetError", "run_in_workers"]

logger = logging.getLogger("toolwire")

SPEC_VARIABLE = "TOOLWIRE_WORKER_SPEC"

# Imported by name in the worker only: it loads TARGET, hence `Server`, which imports this module.
_WORKER_MODULE = "toolwire.cli._serve_worker"

SUPERVISE_SECONDS = 0.5  # how often the parent looks for a worker that ended


class WorkerTargetError(ValueError):
    """No module a worker could import holds the server; the message says what to change."""


def run_in_workers(
    server: Any,
    *,
    host: str,
    port: int,
    workers: int,
    app_options: Mapping[str, Any],
    access_log: bool = False,
    shutdown_grace: float = 5.0,
    target: tuple[str, str | None] | None = None,
) -> None:
    """Serve `server`'s `http_app(**app_options)` from `workers` processes until a signal.

    `target` is `toolwire run`'s TARGET as `portable_target` gives it (then warnings speak of
    flags); by default the server is found in the modules (`server_target`). Exits with status
    1 when a worker failed to start; a worker re-importing the started script that reaches this
    call (no `__main__` guard) exits with uvicorn's start-up failure status.
    """
    from uvicorn.config import STARTUP_FAILURE

    from ..transports._process import configure_logging
    from ..transports.http.run import (
        bound_socket,
        say,
        serving_config,
        serving_line,
        unbounded_heads_warning,
    )

    configure_logging()
    if _in_worker():
        logger.error(
            "Server.run('http', workers=%d) ran again in a worker process, which imports the "
            'started script anew: call run() under `if __name__ == "__main__":`',
            workers,
        )
        raise SystemExit(STARTUP_FAILURE)
    for name, value in app_options.items():  # workers get them as JSON in the environment
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"Server.run('http', workers={workers}): {name}={value!r} cannot be sent to "
                "the worker processes, which build their apps from plain values (strings, "
                "numbers, booleans, lists, None). Give backplane= a Redis URL rather than "
                "stores or a toolwire.redis.RedisBackplane, and auth to Server(auth=...)"
            ) from None
    module, root = (server_target(server), os.getcwd()) if target is None else target
    if not app_options.get("stateless") and app_options.get("backplane") is None:
        _warn_of_sessions(workers, flags=target is not None)
    spec = {
        "target": module,
        "path": root,
        "host": host,
        "options": dict(app_options),
        "supervisor": os.getpid(),
        "access_log": access_log,
        "shutdown_grace": shutdown_grace,
        "tools": sorted(server.tools),  # a worker whose server lacks one refuses to start
    }
    before = os.environ.get(SPEC_VARIABLE)
    os.environ[SPEC_VARIABLE] = json.dumps(spec)
    try:
        config = serving_config(
            None, host=host, port=port, access_log=access_log, grace=shutdown_grace
        )
        if warning := unbounded_heads_warning(config):
            logger.warning(warning)
        with bound_socket(config) as listening:
            # Listening already: a client told the address below is queued until a worker
            # takes it, rather than refused while the workers start.
            listening.listen(config.backlog)
            path = app_options.get("path", "/mcp")
            say(serving_line(host, listening.getsockname()[1], path, workers=workers))
            started = _supervise(listening, workers)
    finally:
        if before is None:
            os.environ.pop(SPEC_VARIABLE, None)
        else:
            os.environ[SPEC_VARIABLE] = before
    if not started:
        raise SystemExit(1)


def _warn_of_sessions(workers: int, *, flags: bool) -> None:
    """Warn that each worker would keep its own sessions, in `toolwire run`'s words (`flags`,
    printed) or in `Server.run`'s (keyword arguments, logged)."""
    if flags:
        head = f"toolwire run: warning: --workers {workers} without --stateless"
        fixes = "Use --stateless, or share the sessions through Redis (--redis URL)"
    else:
        head = f"Server.run('http', workers={workers}) without stateless=True"
        fixes = "Use stateless=True, or share the sessions through Redis (backplane=URL)"
    warning = (
        f"{head}: each worker keeps its own sessions and the kernel spreads connections over "
        "the workers, so a session's later requests can reach a worker that does not know it "
        f"(404). {fixes}, or run one process per port behind a load balancer that keeps each "
        "session on its process (TOOLWIRE_SESSION_ROUTE)"
    )
    if flags:
        print(warning, file=sys.stderr)
    else:
        logger.warning(warning)


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
    """A worker process's body (`_serve_worker.serve_worker`)."""
    import importlib

    importlib.import_module(_WORKER_MODULE).serve_worker(listening)


def _in_worker() -> bool:
    """Whether this process is a worker that `run_in_workers` started, importing or serving.

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


def server_target(server: Any) -> str:
    """`module:NAME` under which a worker imports `server` anew: the started script first.

    Raises:
        WorkerTargetError: The server is held by no module a worker can import.
    """
    main = sys.modules.get("__main__")
    name = _global_name(main, server) if main is not None else None
    if main is not None and name is not None:
        reachable = _main_target(main, name)
        if reachable is not None:
            return reachable
    for module_name, module in list(sys.modules.items()):
        if module is main or not _importable_as(module, module_name):
            continue
        found = _global_name(module, server)
        if found is not None:
            return f"{module_name}:{found}"
    if name is not None:
        problem = (
            "is defined in an interactive session or `python -c` code, which a worker "
            "cannot run again"
        )
    else:
        problem = "is not a global of any module a worker can import (made in a function?)"
    raise WorkerTargetError(
        f"Server.run(..., workers=N): each worker process imports the server anew, but server "
        f"{getattr(server, 'name', '?')!r} {problem}. Create it at module level of a file "
        "(`server = Server(...)`), run that file (`python app.py`) or import it from one, "
        'and call run() under `if __name__ == "__main__":`; or serve it with '
        "`toolwire run app.py:server --transport http --workers N`"
    )


def _global_name(module: ModuleType, value: Any) -> str | None:
    """The first global of `module` that is `value` itself (not merely equal)."""
    try:
        names = vars(module)
    except TypeError:  # a stand-in object in sys.modules without a __dict__
        return None
    for name, held in list(names.items()):
        if held is value and name.isidentifier():
            return name
    return None


def _main_target(main: ModuleType, name: str) -> str | None:
    """The target for a server held by the started script, if a worker can reach it."""
    spec = getattr(main, "__spec__", None)
    module_name = getattr(spec, "name", None)
    if isinstance(module_name, str) and module_name.split(".")[-1] == "__main__":
        return f"{module_name}:{name}"  # `python -m pkg`: spawn does not run it again
    if module_name or getattr(main, "__file__", None):
        return f"__main__:{name}"
    return None  # typed at a prompt or given with -c: nothing to run again


def _importable_as(module: Any, module_name: str) -> bool:
    """Whether importing `module_name` in a fresh interpreter gives this module back."""
    if not isinstance(module, ModuleType) or module_name in {"__main__", "__mp_main__"}:
        return False
    spec = getattr(module, "__spec__", None)
    return spec is not None and getattr(spec, "name", None) == module_name
