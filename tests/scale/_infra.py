"""Real processes for the scale-out tests: toolwire backends and an nginx in front of them.

`start_backend` runs `toolwire run TARGET --transport http` on a free loopback port, and
`start_nginx` a private, unprivileged nginx (its own prefix, config, pid file, temp and log
paths in a fresh tmp dir, `daemon off`) load-balancing over given backend ports.

No process outlives its test: each one is registered when started, and `reap_all()` (called
by tests/scale/conftest.py after every test, and at interpreter exit) kills whatever is still
running. Each process runs in its own process group, which `kill()` kills whole: nginx's
workers, and the uvicorn workers of a backend started with `--workers N`, go with it.

Where nginx is not installed, `nginx_or_skip()` skips with the reason on a developer's
machine and fails under CI (`CI=true`), which must install it (scripts/install_system_tools.sh),
as the MCP Inspector tests treat Node.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
MCP_PATH = "/mcp"
START_SECONDS = 60.0  # a loaded two-core machine imports slowly
STOP_SECONDS = 15.0
# A port found free can be taken by another test before our process binds it: try again.
PORT_ATTEMPTS = 3
SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")

__all__ = [
    "MCP_PATH",
    "SERVERS",
    "Backend",
    "LogEntry",
    "Nginx",
    "free_port",
    "group_members",
    "in_ci",
    "nginx_or_skip",
    "reap_all",
    "start_backend",
    "start_nginx",
    "wait_until_group_gone",
]

_live: list[Backend | Nginx] = []
_workdirs: list[Path] = []


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def nginx_path() -> str | None:
    """nginx's executable: on PATH, or in an sbin directory a non-root PATH may lack."""
    search = os.pathsep.join([os.environ.get("PATH", ""), *SBIN_DIRS])
    return shutil.which("nginx", path=search)


def nginx_or_skip() -> str:
    """nginx's path; skips the test without it, except under CI, where that fails."""
    found = nginx_path()
    if found is None:
        reason = "nginx is not installed (run scripts/install_system_tools.sh)"
        if in_ci():
            pytest.fail(f"{reason} (CI is set: CI must install it)")
        pytest.skip(reason)
    return found


def _child_env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    # src/ for toolwire itself, the root for `tests.scale.servers.x:server` targets.
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), *paths])
    env.pop("TOOLWIRE_LOG_LEVEL", None)
    env.update(extra or {})
    return env


def _workdir(prefix: str) -> Path:
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    _workdirs.append(workdir)
    return workdir


def _answers(port: int, path: str) -> bool:
    """Whether something on `port` answers HTTP at all (any status will do)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", path)
        connection.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        connection.close()


def _wait_until_answering(
    process: subprocess.Popen[bytes], port: int, path: str, log: Path, what: str
) -> None:
    deadline = time.monotonic() + START_SECONDS
    while not _answers(port, path):
        if process.poll() is not None:
            raise _Exited(f"{what} exited with {process.returncode}: {_tail(log)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not answer within {START_SECONDS} s: {_tail(log)}")
        time.sleep(0.05)


class _Exited(RuntimeError):
    """The process ended before it answered (often: its port was taken meanwhile)."""


def _tail(log: Path, size: int = 3000) -> str:
    try:
        return log.read_text(errors="replace")[-size:]
    except OSError:
        return "(no log)"


def _end(process: subprocess.Popen[bytes], sig: int, *, group: bool) -> None:
    """Send `sig` (to the whole group when `group`), unless everything is gone already."""
    try:
        if group:
            os.killpg(process.pid, sig)
        elif process.poll() is None:
            process.send_signal(sig)
    except ProcessLookupError:
        pass


class _Process:
    """What Backend and Nginx share: a registered child, stopped at most once."""

    process: subprocess.Popen[bytes]
    workdir: Path
    _group: bool

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL, at once (the group too: no worker survives it), then reap."""
        _end(self.process, signal.SIGKILL, group=self._group)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_SECONDS)
        self._forget()

    def stop(self) -> int | None:
        """SIGTERM, a bounded wait, then SIGKILL; returns the exit status of a clean stop
        (None when it had to be killed)."""
        _end(self.process, signal.SIGTERM, group=False)
        try:
            status: int | None = self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            status = None
        # Whatever is left of the group (workers of a master that did not stop them) goes.
        if self._group:
            _end(self.process, signal.SIGKILL, group=True)
        if status is None:
            self.kill()
        self._forget()
        return status

    def log_text(self) -> str:
        """Everything the process wrote so far (stdout and stderr together)."""
        return _tail(self.workdir / "output.log", size=1 << 20)

    def _forget(self) -> None:
        # The workdir stays (a test may read the logs after a stop); it goes at exit.
        with contextlib.suppress(ValueError):
            _live.remove(self)  # type: ignore[arg-type]

    def __enter__(self) -> _Process:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class Backend(_Process):
    """One `toolwire run ... --transport http` process (its own process group).

    Attributes:
        port: Its loopback port.
        url: Its MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    """

    def __init__(self, process: subprocess.Popen[bytes], port: int, workdir: Path) -> None:
        self.process = process
        self.port = port
        self.workdir = workdir
        self._group = True
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
        workdir = _workdir("tw-backend-")
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
        _live.append(backend)
        try:
            _wait_until_answering(process, port, MCP_PATH, log, f"toolwire run {target}")
            return backend
        except _Exited:
            output = backend.log_text()
            backend.kill()
            if "address already in use" not in output.lower() or attempt + 1 == PORT_ATTEMPTS:
                raise RuntimeError(f"toolwire run {target} exited: {output[-3000:]}") from None
        except BaseException:
            backend.kill()
            raise
    raise AssertionError("unreachable")


# --- nginx -----------------------------------------------------------------------------------

_NGINX_CONF = """\
# Generated by tests/scale/_infra.py: a private nginx for one test.
daemon off;
worker_processes {workers};
{user}
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    log_format upstreams '$upstream_addr|$status|$http_mcp_session_id|$sent_http_mcp_session_id';
    access_log {access_log};

    upstream toolwire {{
{balance}
{servers}
        keepalive 64;
    }}
{routes}
    server {{
        listen 127.0.0.1:{port};
        location = /__nginx_ready {{ return 204; }}
        location / {{
            proxy_pass http://{target};
            # Streamable HTTP: keep-alive to the backends, and SSE answers passed on as they
            # are written (no buffering either way), a stream left open for as long as a
            # session may listen.
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_cache off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            {next_upstream}
        }}
    }}
}}
"""


@dataclass(frozen=True)
class LogEntry:
    """One request nginx proxied.

    Attributes:
        tried: The backend addresses tried, in order (more than one: passed on).
        status: The status nginx answered with.
        session_in: The request's `Mcp-Session-Id` ("" without one).
        session_out: The `Mcp-Session-Id` the answer carried ("" without one).
    """

    tried: list[str]
    status: int
    session_in: str
    session_out: str


class Nginx(_Process):
    """A private nginx on a free loopback port.

    Attributes:
        port: Its loopback port.
        url: The MCP endpoint through it, `http://127.0.0.1:PORT/mcp`.
        access_log: Its access log (read it with `entries()`).
    """

    def __init__(self, process: subprocess.Popen[bytes], port: int, workdir: Path) -> None:
        self.process = process
        self.port = port
        self.workdir = workdir
        # Its own group too: SIGKILL to the master alone would orphan its workers.
        self._group = True
        self.url = f"http://127.0.0.1:{port}{MCP_PATH}"
        self.access_log = workdir / "access.log"

    def entries(self) -> list[LogEntry]:
        """The proxied requests so far, from the access log (not nginx's own answers)."""
        if not self.access_log.exists():
            return []
        found = []
        for line in self.access_log.read_text().splitlines():
            upstreams, status, session_in, session_out = line.split("|")
            if upstreams == "-":  # answered by nginx itself: the readiness probe
                continue
            found.append(
                LogEntry(
                    tried=[address.strip() for address in upstreams.split(",")],
                    status=int(status),
                    session_in="" if session_in == "-" else session_in,
                    session_out="" if session_out == "-" else session_out,
                )
            )
        return found

    def upstream_counts(self) -> Counter[str]:
        """How many proxied requests each backend address answered (the last one tried)."""
        return Counter(entry.tried[-1] for entry in self.entries())


def _route_blocks(session_routes: Mapping[str, int]) -> tuple[str, str]:
    """The upstreams and the `map` that send a session to the process named by its id's
    route, and the `proxy_pass` target using them ("toolwire": no routes, plain balancing)."""
    if not session_routes:
        return "", "toolwire"
    blocks = []
    entries = []
    for name, port in session_routes.items():
        blocks.append(f"    upstream toolwire_{name} {{ server 127.0.0.1:{port}; keepalive 16; }}")
        entries.append(f'        "~^{name}\\." toolwire_{name};')
    mapping = "\n".join(
        [
            "    map $http_mcp_session_id $toolwire_route {",
            "        default toolwire;",
            *entries,
            "    }",
        ]
    )
    return "\n".join([*blocks, mapping]) + "\n", "$toolwire_route"


def start_nginx(
    backend_ports: Iterable[int],
    *,
    sticky_on_session: bool = False,
    session_routes: Mapping[str, int] | None = None,
    next_upstream: str = "error timeout",
    workers: int = 1,
    access_log: bool = True,
) -> Nginx:
    """Start nginx in front of the backends on `backend_ports` and wait until it answers.

    Args:
        backend_ports: The toolwire processes' loopback ports (the upstream).
        sticky_on_session: Route by `hash $http_mcp_session_id consistent` instead of
            round robin. A request without the header (an `initialize`) is balanced as usual,
            so the session it opens is not necessarily hashed back to the process that made
            it: this only keeps a session on one process when the session store is shared.
        session_routes: Route name -> backend port, for backends started with
            `TOOLWIRE_SESSION_ROUTE=name`: a request whose `Mcp-Session-Id` starts with
            `name.` goes to that backend; the others (an `initialize`) are balanced.
        next_upstream: nginx's `proxy_next_upstream`: when a request goes to the next
            backend. Its default, "error timeout", never resends a POST already handed to a
            backend (only one that could not be sent: refused connection, say); add
            "non_idempotent" to resend those too, or give "off".
        workers: nginx worker processes.
        access_log: Write the access log (off for benchmarks).

    Raises:
        RuntimeError: nginx exited before answering (its error log is in the message).
    """
    executable = nginx_or_skip()
    ports = list(backend_ports)
    if not ports:
        raise ValueError("start_nginx needs at least one backend port")
    servers = "\n".join(f"        server 127.0.0.1:{port};" for port in ports)
    routes, target = _route_blocks(session_routes or {})
    for attempt in range(PORT_ATTEMPTS):
        port = free_port()
        workdir = _workdir("tw-nginx-")
        conf = workdir / "nginx.conf"
        conf.write_text(
            _NGINX_CONF.format(
                workers=workers,
                # Run as root (CI containers), nginx would hand its workers to "nobody",
                # who cannot enter this private tmp dir; keep them as the current user.
                user="user root;" if os.geteuid() == 0 else "",
                dir=workdir,
                access_log=f"{workdir}/access.log upstreams" if access_log else "off",
                balance="        hash $http_mcp_session_id consistent;"
                if sticky_on_session
                else "",
                servers=servers,
                routes=routes,
                target=target,
                port=port,
                next_upstream=f"proxy_next_upstream {next_upstream};",
            )
        )
        log = workdir / "output.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                # -e: the error log before the config is read (the default path needs root).
                [executable, "-p", str(workdir), "-c", str(conf), "-e", str(workdir / "error.log")],
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        nginx = Nginx(process, port, workdir)
        _live.append(nginx)
        try:
            _wait_until_answering(process, port, "/__nginx_ready", workdir / "error.log", "nginx")
            return nginx
        except _Exited:
            errors = _tail(workdir / "error.log") + _tail(log)
            nginx.kill()
            if "address already in use" not in errors.lower() or attempt + 1 == PORT_ATTEMPTS:
                raise RuntimeError(f"nginx exited: {errors}") from None
        except BaseException:
            nginx.kill()
            raise
    raise AssertionError("unreachable")


def group_members(pgid: int) -> list[tuple[int, int, str]]:
    """(pid, ppid, state) of the live processes in a process group (zombies left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            state, ppid, group = fields[0], int(fields[1]), int(fields[2])
            if group == pgid and state != "Z":
                found.append((int(entry.name), ppid, state))
    return found


def wait_until_group_gone(pgid: int) -> list[tuple[int, int, str]]:
    """What is still alive in the group after a bounded wait for it to empty."""
    deadline = time.monotonic() + STOP_SECONDS
    left = group_members(pgid)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = group_members(pgid)
    return left


def reap_all() -> None:
    """Kill every backend and nginx still running (after each test, and at exit)."""
    for process in list(_live):
        process.kill()


def _clean_up() -> None:
    reap_all()
    for workdir in _workdirs:
        shutil.rmtree(workdir, ignore_errors=True)


atexit.register(_clean_up)
