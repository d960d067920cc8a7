"""Real processes for the scale-out tests: toolwire backends and an nginx in front of them.

`start_backend` runs `toolwire run TARGET --transport http` on a free loopback port and waits
until it answers; `start_nginx` (from `_nginx.py`) runs a private, unprivileged nginx
load-balancing over given backend ports; `backends_on_one_redis` runs two backends sharing a
private redis-server. No process outlives its test (`_processes.py`:
each runs in its own process group, killed whole; `reap_all()` after every test and at exit).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from tests.redis._server import RedisServer, start_redis
from tests.scale._nginx import LogEntry, Nginx, nginx_or_skip, nginx_path, start_nginx
from tests.scale._processes import (
    PORT_ATTEMPTS,
    STOP_SECONDS,
    Exited,
    ManagedProcess,
    free_port,
    group_members,
    in_ci,
    new_workdir,
    reap_all,
    wait_until_answering,
    wait_until_group_gone,
)

__all__ = [
    "MCP_PATH",
    "ROOT",
    "SERVERS",
    "STOP_SECONDS",
    "Backend",
    "LogEntry",
    "Nginx",
    "backends_on_one_redis",
    "free_port",
    "group_members",
    "in_ci",
    "nginx_or_skip",
    "nginx_path",
    "reap_all",
    "start_backend",
    "start_nginx",
    "wait_until_group_gone",
]

ROOT = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
MCP_PATH = "/mcp"


def _child_env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    # src/ for toolwire itself, the root for `tests.scale.servers.x:server` targets.
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), *paths])
    env.pop("TOOLWIRE_LOG_LEVEL", None)
    env.update(extra or {})
    return env


class Backend(ManagedProcess):
    """One `toolwire run ... --transport http` process (its own process group).

    Attributes:
        port: Its loopback port.
        url: Its MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    """

    def __init__(self, process: subprocess.Popen[bytes], port: int, workdir: Path) -> None:
        super().__init__(process, workdir)
        self.port = port
        self.url = f"http://127.0.0.1:{port}{MCP_PATH}"
        self.address = f"127.0.0.1:{port}"


def start_backend(
    target: str | Path, *, env: Mapping[str, str] | None = None, args: Iterable[str] = ()
) -> Backend:
    """Start `toolwire run TARGET --transport http --host 127.0.0.1 --port <free> ARGS...`
    and wait until it answers HTTP.

    Args:
        target: A file path or `module:attr` (importable from the repository root).
        env: Variables added to this process's environment for the child.
        args: More `toolwire run` flags (`--stateless`, `--json-response`, `--workers 2`...).

    Raises:
        RuntimeError: It exited before answering (its output is in the message).
        TimeoutError: It did not answer within START_SECONDS.
    """
    extra = list(args)
    for attempt in range(PORT_ATTEMPTS):
        port = free_port()
        workdir = new_workdir("tw-backend-")
        log = workdir / "output.log"
        command = [sys.executable, "-m", "toolwire", "run", str(target), "--transport", "http"]
        command += ["--host", "127.0.0.1", "--port", str(port), *extra]
        with log.open("wb") as sink:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=_child_env(env),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        backend = Backend(process, port, workdir)
        try:
            wait_until_answering(process, port, MCP_PATH, log, f"toolwire run {target}")
            return backend
        except Exited:
            output = backend.log_text()
            backend.kill()
            if "address already in use" not in output.lower() or attempt + 1 == PORT_ATTEMPTS:
                raise RuntimeError(f"toolwire run {target} exited: {output[-3000:]}") from None
        except BaseException:
            backend.kill()
            raise
    raise AssertionError("unreachable")


@contextlib.contextmanager
def backends_on_one_redis(
    target: str, *, env: Mapping[str, str] | None = None
) -> Iterator[tuple[RedisServer, Backend, Backend]]:
    """A new redis-server and two `toolwire run TARGET --redis URL` processes sharing it: two
    members of one deployment. The backends are stopped after the block, then Redis."""
    redis = start_redis()
    first = start_backend(target, env=env, args=["--redis", redis.url])
    second = start_backend(target, env=env, args=["--redis", redis.url])
    try:
        yield redis, first, second
    finally:
        first.stop()
        second.stop()
        redis.stop()
