"""`Server.run("http", workers=N)`: the `module:NAME` target from which workers take the server.

A worker is a fresh interpreter (uvicorn starts it with multiprocessing's "spawn"), so the object
`run` was called on cannot travel there: each worker imports a module and takes the server from
one of its globals, as `toolwire run module:NAME` does, and is served as `_workers.py` describes.
This module finds such a target for a live server, or says precisely why there is none. A server
defined in the script that was started is found as `__main__:NAME` without running the script a
second time.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__all__ = ["WorkerTargetError", "run_in_workers", "server_target"]

logger = logging.getLogger("toolwire")


class WorkerTargetError(ValueError):
    """No module a worker could import holds the server; the message says what to change."""


def run_in_workers(
    server: Any,
    *,
    host: str,
    port: int,
    workers: int,
    access_log: bool,
    shutdown_grace: float,
    app_options: Mapping[str, Any],
) -> None:
    """Serve `server`'s `http_app(**app_options)` from `workers` processes until a signal.

    Raises:
        WorkerTargetError: No module a worker can import holds the server.
        ValueError: An option is not a plain value a worker can be sent.
        SystemExit: With status 1 when a worker failed to start (logged); in a worker that
            is importing the started script anew and reached this call (run() not under
            the `__main__` guard), with uvicorn's start-up failure status, which stops all.
    """
    from ..transports._process import configure_logging
    from ._workers import in_worker, run_workers, sessions_warning

    configure_logging()
    if in_worker():
        from uvicorn.config import STARTUP_FAILURE

        logger.error(
            "Server.run('http', workers=%d) ran again in a worker process, which imports the "
            'started script anew: call run() under `if __name__ == "__main__":`',
            workers,
        )
        raise SystemExit(STARTUP_FAILURE)
    options = dict(app_options)
    _check_plain(options, workers)
    target = server_target(server)
    if not options.get("stateless") and options.get("backplane") is None:
        logger.warning(sessions_warning(workers, from_python=True))
    started = run_workers(
        target,
        root=os.getcwd(),
        workers=workers,
        host=host,
        port=port,
        app_options=options,
        tools=list(server.tools),
        access_log=access_log,
        shutdown_grace=shutdown_grace,
    )
    if not started:
        raise SystemExit(1)


def _check_plain(options: Mapping[str, Any], workers: int) -> None:
    """Refuse options that cannot be written as JSON: workers get them in the environment."""
    for name, value in options.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"Server.run('http', workers={workers}): {name}={value!r} cannot be sent to "
                "the worker processes, which build their apps from plain values (strings, "
                "numbers, booleans, lists, None). Give backplane= a Redis URL rather than "
                "stores or a toolwire.redis.RedisBackplane, and auth to Server(auth=...)"
            ) from None


def server_target(server: Any) -> str:
    """`module:NAME` under which a worker process imports `server` anew.

    The started script comes first (a server defined there and run under the `__main__`
    guard is the common case), then any other module holding it as a global.

    Raises:
        WorkerTargetError: The server is held by no module a worker can import (made
            inside a function, or in an interactive session / `python -c`).
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
