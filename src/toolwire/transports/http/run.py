"""Serving an HTTP app under a uvicorn server toolwire owns (`Server.run("http" | "sse")`,
`toolwire run`): at SIGTERM or SIGINT `ShutdownGate` refuses new requests and its `wind_down` ends
idle streams, gives calls in flight the grace period, then refuses and cancels those left and
ends every session, before the app's lifespan ends (uvicorn would end it as soon as no
connection is open, cancelling the calls of clients that left to resume later); the process
exits 0. See docs/decisions.md, `run.py`."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import ipaddress
import logging
import math
import signal
import socket
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any

from ...protocol.wire.jsonrpc import error_message
from .._process import (
    configure_logging,
    free_forked_children,
    release_threads,
    settle_heap_now,
)
from .asgi import JSON_TYPE, refuse, respond

if TYPE_CHECKING:
    import uvicorn

    from ._served_app import Serving
    from .sse.app import LegacySseApp
    from .streamable.app import StreamableHttpApp

__all__ = [
    "HEADER_TIMEOUT_GONE",
    "SHUTDOWN_GRACE_SECONDS",
    "SHUTTING_DOWN",
    "ShutdownGate",
    "run_http",
    "serve_until_stopped",
    "serve_with",
    "serving_config",
    "serving_line",
    "signals_stop",
    "unbounded_heads_warning",
]

logger = logging.getLogger("toolwire.http")

SHUTDOWN_GRACE_SECONDS = 5.0
"""After SIGTERM/SIGINT, how long calls in flight get to be answered."""

HEADER_TIMEOUT_GONE = (
    "no longer exists: uvicorn offers no public way to bound the time a request head may "
    "take, so toolwire does not either. Serve behind a reverse proxy that does (nginx: "
    "client_header_timeout, on by default); see docs/deployment.md"
)
"""Why `header_timeout` / `--header-timeout` are refused."""

UVICORN_EXTRA_SECONDS = 3
"""What uvicorn's own graceful timeout adds to the grace, so the last refusals go out first."""


SHUTTING_DOWN = -32000
"""The JSON-RPC error code of a request refused, or a call cut short, by the server stopping."""

TICK_SECONDS = 0.05
"""How often `should_exit`, idle streams and calls still running are looked at."""

FLUSH_SECONDS = 1.0
"""After the refusals of calls past the grace, how long their responses get to go out."""


_REFUSED_TEXT = "Server is shutting down: it takes no new requests"
_REFUSED = error_message(None, SHUTTING_DOWN, _REFUSED_TEXT)


class ShutdownGate:
    """In front of `app`: counts the POSTs in progress; once closed, answers every new HTTP
    request 503 with a JSON-RPC error (other scopes pass), and so is a POST whose body is
    still arriving (a stalled client must not hold the shutdown up). The app's lifespan
    shutdown waits for `wind_down`, so calls in flight get `grace` seconds whether or not
    their clients are still connected."""

    def __init__(self, app: Any, grace: float) -> None:
        self.app = app
        self.grace = grace
        self._winding: asyncio.Task[None] | None = None
        self.closed = False
        self.posts = 0
        """POST requests whose handling has not returned yet."""
        self._reading: set[asyncio.Task[Any]] = set()  # POSTs waiting for more of their body
        self._cut: set[asyncio.Task[Any]] = set()  # those cancelled by `close`

    def close(self) -> None:
        """Refuse every request from now on, and the POSTs still reading their body."""
        self.closed = True
        for task in self._reading:
            if task not in self._cut:
                self._cut.add(task)
                task.cancel()

    async def wind_down(self) -> None:
        """Stop serving the app within about `grace` seconds, once, whoever asks first (the
        `should_exit` watcher or the lifespan shutdown); wait until that is over."""
        if self._winding is None:
            self._winding = asyncio.get_running_loop().create_task(self._wind_down())
        await asyncio.shield(self._winding)

    async def _wind_down(self) -> None:
        try:
            await self._stop_serving(self.app.runtime)
        except Exception:  # the shutdown goes on regardless; say what was left open
            logger.exception("winding down the app at shutdown failed")

    async def _stop_serving(self, app: Serving) -> None:
        loop = asyncio.get_running_loop()
        grace = self.grace
        self.close()
        deadline = loop.time() + grace
        while True:
            await app.end_idle_streams()
            if not app.calls_in_flight() and not self.posts:
                break
            if loop.time() >= deadline:
                break
            await asyncio.sleep(TICK_SECONDS)
        if app.calls_in_flight():
            refused = await app.refuse_calls(
                SHUTTING_DOWN,
                f"Server is shutting down: the call did not finish within the {grace:g} s "
                "shutdown grace period and was cancelled",
            )
            logger.warning(
                "shutdown: %d call(s) still running after %g s were cancelled", refused, grace
            )
            flushed = loop.time() + FLUSH_SECONDS
            while self.posts and loop.time() < flushed:
                await asyncio.sleep(TICK_SECONDS)
        await app.end_streams()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":

            async def lifespan_event() -> Any:
                message = await receive()
                if message["type"] == "lifespan.shutdown":
                    await self.wind_down()  # the calls in flight first, then the app
                return message

            await self.app(scope, lifespan_event, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.closed:
            await respond(send, 503, _REFUSED, [JSON_TYPE, (b"connection", b"close")])
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        task = asyncio.current_task()
        assert task is not None
        complete = cut = False

        async def body_part() -> Any:
            # The body as it comes; once the gate closes, a wait for more of it ends as if the
            # client had left (the app stops there), and the gate answers for the app.
            nonlocal complete, cut
            if complete:  # after the body, receive() only says the client left
                return await receive()
            if self.closed:
                cut = complete = True
                return {"type": "http.disconnect"}
            self._reading.add(task)
            try:
                message = await receive()
            except asyncio.CancelledError:
                if task not in self._cut or task.uncancel():
                    raise
                cut = complete = True
                return {"type": "http.disconnect"}
            finally:
                self._reading.discard(task)
                self._cut.discard(task)
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        self.posts += 1
        try:
            await self.app(scope, body_part, send)
            if cut:  # refused unless the app answered after all (refuse() then says nothing)
                logger.debug("shutdown: a POST whose body was still arriving was refused")
                headers = [(b"connection", b"close")]
                await refuse(send, 503, _REFUSED_TEXT, code=SHUTTING_DOWN, headers=headers)
        finally:
            self.posts -= 1


_TO_STDERR = {"class": "logging.StreamHandler", "stream": "ext://sys.stderr"}


def _log_config(access_log: bool) -> dict[str, Any]:
    """uvicorn's logging, all on stderr: warnings and errors, and the access log if asked."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "plain": {
                "()": "uvicorn.logging.DefaultFormatter",
                "fmt": "%(levelprefix)s %(message)s",
            },
            "request": {
                "()": "uvicorn.logging.AccessFormatter",
                "fmt": '%(client_addr)s "%(request_line)s" %(status_code)s',
            },
        },
        "handlers": {
            "errors": {**_TO_STDERR, "formatter": "plain"},
            "requests": {**_TO_STDERR, "formatter": "request"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["errors"], "level": "WARNING", "propagate": False},
            "uvicorn.access": {
                "handlers": ["requests"] if access_log else [],
                "level": "INFO" if access_log else "WARNING",
                "propagate": False,
            },
        },
    }


def serving_config(
    app: Any, *, host: str, port: int, access_log: bool, grace: float, **extra: Any
) -> uvicorn.Config:
    """The `uvicorn.Config` toolwire serves `app` with (`extra`: more documented options)."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=_log_config(access_log),
        access_log=access_log,
        lifespan="on",
        timeout_graceful_shutdown=math.ceil(grace) + UVICORN_EXTRA_SECONDS,
        **extra,
    )


def unbounded_heads_warning(config: uvicorn.Config) -> str | None:
    """What to say when `config` serves a non-loopback address with uvicorn's httptools
    parser, which buffers a request head of any size (h11 stops at
    `h11_max_incomplete_event_size`, 16 KiB by default); None otherwise."""
    parser = config.http
    if parser == "auto":
        parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    if parser != "httptools" or config.uds or config.fd is not None:
        return None
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(config.host).is_loopback:
            return None
    if config.host == "localhost":
        return None
    return (
        f"serving {config.host} with uvicorn's httptools parser, which puts no bound on the size"
        " of a request head: a client can fill this process's memory with one header. Serve"
        " behind a proxy that bounds heads (nginx does by default), or uninstall httptools"
        " (uvicorn then parses with h11, which stops at 16 KiB); see docs/deployment.md"
    )


def bound_socket(config: uvicorn.Config) -> socket.socket:
    """The listening socket for `config`, bound, with Nagle's algorithm off for every
    connection it accepts (uvicorn sends a response's head and body apart)."""
    listening = config.bind_socket()
    if listening.family in (socket.AF_INET, socket.AF_INET6):
        listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return listening


def run_loop(config: uvicorn.Config, main: Coroutine[Any, Any, Any]) -> Any:
    """Run `main` on the event loop `config` asks for, as `uvicorn.Server.run` would."""
    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        return runner.run(main)


def serving_line(host: str, port: int, path: str, *, workers: int = 1) -> str:
    """The line said on stderr once the server listens."""
    shown = f"[{host}]" if ":" in host else host
    processes = f" ({workers} worker processes)" if workers > 1 else ""
    return f"toolwire: serving MCP at http://{shown}:{port}{path}{processes}; press Ctrl+C to stop"


def say(line: str) -> None:
    """Write `line` on stderr at once (never stdout: it may belong to the application)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


@contextlib.contextmanager
def signals_stop(server: uvicorn.Server) -> Iterator[None]:
    """For the duration, SIGTERM/SIGINT set `server.should_exit` (main thread only), so the
    signal uvicorn raises again once it is done does not kill the process; a child a tool forks
    gets the default handlers back (`free_forked_children`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    free_forked_children()

    def stop(signum: int, frame: Any) -> None:
        server.should_exit = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


async def serve_with(
    server: uvicorn.Server,
    gate: ShutdownGate,
    *,
    sockets: list[socket.socket],
    on_started: Callable[[], None] | None = None,
) -> None:
    """Run `server` (serving `gate` before its app) on `sockets`; wind down at `should_exit`.

    Raises:
        SystemExit: uvicorn's start-up failure (the app's lifespan failed, logged).
    """

    async def watch() -> None:
        unannounced = on_started
        while not server.should_exit:
            if unannounced is not None and server.started:
                unannounced()
                unannounced = None
            await asyncio.sleep(TICK_SECONDS)
        await gate.wind_down()

    watcher = asyncio.get_running_loop().create_task(watch(), name="toolwire: watch should_exit")
    try:
        await server.serve(sockets=sockets)
    finally:
        if not watcher.done():
            watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


def serve_until_stopped(
    app: StreamableHttpApp | LegacySseApp,
    *,
    host: str,
    port: int = 0,
    access_log: bool,
    grace: float,
    listening: socket.socket | None = None,
    on_started: Callable[[int], None] | None = None,
    failure_status: int = 1,
) -> bool:
    """Serve `app` until SIGINT/SIGTERM on `listening`, or on a socket of its own bound to
    `host:port` (after a warning about unbounded request heads, if one applies).

    `on_started` gets the bound port once serving; `failure_status` is the exit status if busy
    threads must be left behind by a server that never started. False when the app's start-up
    failed (logged).
    """
    import uvicorn

    gate = ShutdownGate(app, grace)
    config = serving_config(gate, host=host, port=port, access_log=access_log, grace=grace)
    if listening is None and (warning := unbounded_heads_warning(config)):
        logger.warning(warning)
    server = uvicorn.Server(config)
    settle_heap_now()  # this process is ours, and serves nothing yet
    try:
        with signals_stop(server), contextlib.ExitStack() as owned:
            serving = listening or owned.enter_context(bound_socket(config))
            run_loop(
                config,
                serve_with(
                    server,
                    gate,
                    sockets=[serving],
                    on_started=on_started and (lambda: on_started(serving.getsockname()[1])),
                ),
            )
    except SystemExit:  # how uvicorn ends a failed start-up
        if server.started:
            raise
    finally:
        release_threads(0 if server.started else failure_status, logger)
    return bool(server.started)


def run_http(
    app: StreamableHttpApp | LegacySseApp,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str,
    access_log: bool = False,
    shutdown_grace: float = SHUTDOWN_GRACE_SECONDS,
) -> bool:
    """Serve `app` on `host:port` until SIGINT/SIGTERM; False when its start-up failed (logged).

    `port` 0 takes any free port; `path` is named in the line said on stderr.
    """
    configure_logging()
    return serve_until_stopped(
        app,
        host=host,
        port=port,
        access_log=access_log,
        grace=shutdown_grace,
        on_started=lambda bound: say(serving_line(host, bound, path)),
    )
