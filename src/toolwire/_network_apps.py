"""The HTTP faces of a `Server`: the streamable HTTP app, the legacy SSE app, and running
either under a uvicorn server of its own.

A base class of `Server` so that `server.py` stays about collecting tools; everything here
reaches the transports through `toolwire.transports.http`, imported on these paths only
(starlette and uvicorn never load for stdio).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .protocol.bearer import BearerAuth
    from .protocol.registry import ToolRegistry
    from .protocol.serving import Servable
    from .transports.http.app import StreamableHttpApp
    from .transports.http.changes import ChangeBus
    from .transports.http.events import EventStore
    from .transports.http.legacy_sse_app import LegacySseApp
    from .transports.http.records import SessionStore

__all__ = ["NetworkApps"]


class NetworkApps:
    """`Server.http_app()`, `Server.sse_app()` and what `Server.run("http" | "sse")` does."""

    auth: BearerAuth | None
    _registry: ToolRegistry

    @property
    def _servable(self) -> Servable:
        # Only `Server` inherits this class, and a Server is what the transports serve.
        return cast("Servable", self)

    def http_app(
        self,
        path: str = "/mcp",
        *,
        stateless: bool = False,
        json_response: bool = False,
        resumable: bool = True,
        event_store: EventStore | None = None,
        retry_ms: int | None = 1000,
        session_idle_timeout: float | None = 1800.0,
        max_sessions: int = 10_000,
        max_body_bytes: int | None = None,
        max_event_bytes: int | None = 16 * 1024 * 1024,
        keepalive_seconds: float | None = 15.0,
        session_store: SessionStore | None = None,
        allowed_hosts: Sequence[str] | None = None,
        allowed_origins: Sequence[str] | None = None,
        auth: Any = None,
        host: str | None = None,
        change_bus: ChangeBus | None = None,
        backplane: Any = None,
    ) -> StreamableHttpApp:
        """This server as an ASGI app speaking MCP's streamable HTTP transport on `path`.

        It runs under any ASGI server (`uvicorn module:app`), or mounted inside a Starlette
        or FastAPI app, which must forward its ASGI lifespan:
        `Starlette(routes=[Mount("/", app)], lifespan=app.lifespan)` or
        `FastAPI(lifespan=app.lifespan)`. The lifespan is how the server starts up front and
        learns that it stops; mounted without it, the app starts serving on its first
        request and its server's lifespan may never exit (a warning says so). uvicorn waits
        for open responses before it runs the lifespan's exit, and a GET stream stays open
        until its client leaves: under your own uvicorn give it a graceful timeout
        (`--timeout-graceful-shutdown 5`). `Server.run("http")` and `toolwire run` need none
        of this: they own their uvicorn server and stop it themselves. The server's own
        `lifespan` runs once either way, also when its `sse_app()` is served beside this
        app (they share one serving).

        Args:
            path: Where MCP is served.
            stateless: No sessions: each POST is served on its own (no `initialize` needed)
                and GET/DELETE answer 405; tools cannot send requests to the client.
            json_response: Answer each request with one JSON body instead of an SSE stream
                (then no progress or log messages, no requests to the client during a call).
            resumable: Give SSE events ids and keep them, so that a client resumes a lost
                stream with `Last-Event-ID` (and a tool may end its stream early with
                `ctx.close_sse_stream()`). Sessions only.
            event_store: Where those events are kept (default: in memory, bounded; a
                `RedisEventStore` lets a stream resume on any process serving the URL).
            retry_ms: The reconnection delay suggested to clients, in milliseconds (None: no
                suggestion).
            session_idle_timeout: Seconds without a request after which an idle session ends
                (None: never).
            max_sessions: Sessions this process holds at once (made here, or rebuilt from a
                shared store's record); beyond it `initialize`, or a request needing a
                rebuild, gets 503.
            max_body_bytes: The largest request body (413 beyond it); default
                `max_message_bytes`.
            max_event_bytes: The largest message the app sends, an SSE event or a JSON body
                (16 MiB; None: no bound). A reply over it becomes a JSON-RPC error naming both
                sizes; a notification over it is dropped; both are logged.
            keepalive_seconds: Seconds of silence on an SSE stream after which a comment
                keeps it open through proxies (None: never).
            session_store: Where session records are kept (default: in memory, for this
                process). A store shared by every process serving the URL
                (`toolwire.transports.http.redis_sessions.RedisSessionStore`) lets any of
                them continue any session, also after a restart.
            allowed_hosts: `Host` values the app answers (DNS-rebinding protection, on for
                every bind). Default: `127.0.0.1`, `localhost`, `[::1]` on any port, plus
                `host` when it names one interface; a server reached under another name
                refuses with 421 until it is listed here: `["api.example.com"]` (any port),
                `["api.example.com:8443"]` (that port); `["*"]` switches the check off.
            allowed_origins: Browser `Origin`s allowed besides the request's own host.
                Default: the loopback origins; `["*"]` switches the check off. Others: 403.
            auth: Bearer authentication for this app (default: the server's `auth`). With
                one, every request needs a token, tools' `scopes` are enforced, and the
                RFC 9728 metadata is served at `/.well-known/oauth-protected-resource`
                (and with `path` appended).
            host: The interface the app will be served on (`run()` passes it): a concrete
                address or name joins the allowed hosts.
            change_bus: Carries changes (tools, resources, prompts, resource updates), session
                ends and clients' answers to server requests between the processes
                serving the URL, so that the clients of every process hear a change made on
                one (default: none, this process's clients only).
            backplane: Supplies `session_store`, `event_store` and `change_bus` at once: a
                `toolwire.RedisBackplane(url)` (`pip install 'toolwire[redis]'`), or just its
                URL, for several processes or machines behind one URL (`toolwire run
                --redis URL` passes it). Excludes those three options.

        Returns:
            A Starlette app.

        Raises:
            ValueError: An option is out of range (the message names it).
        """
        from .protocol.bearer import bearer_auth
        from .transports.http.app import streamable_http_app

        if backplane is not None:
            if session_store is not None or event_store is not None or change_bus is not None:
                raise ValueError(
                    "http_app() got backplane= and session_store=, event_store= or change_bus=: "
                    "the backplane supplies all three; pass one or the others"
                )
            if isinstance(backplane, str):
                from .transports.http.redis_backplane import RedisBackplane

                backplane = RedisBackplane(backplane)
            parts = backplane.app_options()
            session_store = parts["session_store"]
            event_store = parts["event_store"]
            change_bus = parts["change_bus"]
        return streamable_http_app(
            self._servable,
            path=path,
            stateless=stateless,
            json_response=json_response,
            resumable=resumable,
            event_store=event_store,
            retry_ms=retry_ms,
            session_idle_timeout=session_idle_timeout,
            max_sessions=max_sessions,
            max_body_bytes=max_body_bytes,
            max_event_bytes=max_event_bytes,
            keepalive_seconds=keepalive_seconds,
            session_store=session_store,
            allowed_hosts=None if allowed_hosts is None else _listed(allowed_hosts),
            allowed_origins=None if allowed_origins is None else _listed(allowed_origins),
            auth=self.auth if auth is None else bearer_auth(auth),
            host=host,
            change_bus=change_bus,
        )

    def sse_app(
        self,
        *,
        sse_path: str = "/sse",
        message_path: str = "/messages/",
        max_sessions: int = 1000,
        keepalive_seconds: float = 15.0,
        max_body_bytes: int | None = None,
        max_event_bytes: int | None = 16 * 1024 * 1024,
        allowed_hosts: Sequence[str] | None = None,
        allowed_origins: Sequence[str] | None = None,
    ) -> LegacySseApp:
        """A Starlette app serving the tools over MCP's legacy HTTP+SSE transport (2024-11-05).

        A client opens `GET sse_path`; the stream's first event names the URL it POSTs its
        messages to (`message_path?session_id=...`, under the app's mount point); replies
        and notifications come back on the stream, which is the session: closing it ends
        the session. The app's lifespan serves the server (its own lifespan included); a
        parent app that mounts it must forward that lifespan (`lifespan=app.lifespan`), as
        for `http_app()`, whose notes on uvicorn's graceful timeout apply here too. Mounted
        beside `http_app()`, both share one serving: the server's lifespan runs once. Both
        endpoints are guarded: `Host` and `Origin` always (loopback names unless
        configured), bearer tokens with `Server(auth=...)` (a session then belongs to the
        caller that opened it).

        Args:
            sse_path: Where clients open their event stream.
            message_path: Where clients POST their messages.
            max_sessions: Streams open at once beyond which a new one is refused (503).
            keepalive_seconds: Seconds of silence on a stream after which a comment keeps
                it open through proxies.
            max_body_bytes: The largest POST body (413 beyond it); default
                `max_message_bytes`.
            max_event_bytes: The largest event sent on a stream (16 MiB; None: no bound); a
                reply over it becomes a JSON-RPC error, a notification is dropped.
            allowed_hosts: `Host` values accepted (default: 127.0.0.1, localhost, [::1]).
            allowed_origins: `Origin` values accepted (default: the loopback origins).

        Returns:
            The app, for uvicorn or to mount in a Starlette/FastAPI app.
        """
        from .transports.http._served_app import Guards
        from .transports.http.legacy_sse_app import LegacySseApp

        guards = Guards(
            allowed_hosts, allowed_origins, self.auth, path=sse_path, tools=self._registry
        )
        return LegacySseApp(
            self._servable,
            sse_path=sse_path,
            message_path=message_path,
            max_sessions=max_sessions,
            keepalive_seconds=keepalive_seconds,
            max_body_bytes=max_body_bytes,
            guards=guards,
            max_event_bytes=max_event_bytes,
        )

    def _run_sse(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        access_log: bool = False,
        shutdown_grace: float = 5.0,
        **app_options: Any,
    ) -> None:
        from .transports.http.run import checked_grace, run_http

        grace = checked_grace(shutdown_grace)
        app = self.sse_app(**app_options)
        started = run_http(
            app,
            host=host,
            port=port,
            path=app.transport.sse_path,
            access_log=bool(access_log),
            shutdown_grace=grace,
        )
        if not started:
            raise SystemExit(1)

    def _run_http(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        workers: int = 1,
        access_log: bool = False,
        shutdown_grace: float = 5.0,
        **app_options: Any,
    ) -> None:
        from .transports.http.run import checked_grace

        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, not {workers!r}")
        grace = checked_grace(shutdown_grace)
        if workers > 1:
            from .cli._serve_workers import run_in_workers

            run_in_workers(
                self,
                host=host,
                port=port,
                workers=workers,
                access_log=bool(access_log),
                shutdown_grace=grace,
                app_options=app_options,
            )
            return
        from .transports.http.run import run_http

        app = self.http_app(host=host, **app_options)
        started = run_http(
            app,
            host=host,
            port=port,
            path=app.path,
            access_log=bool(access_log),
            shutdown_grace=grace,
        )
        if not started:
            raise SystemExit(1)


def _listed(values: Iterable[str]) -> list[str]:
    # One name is a common slip for a list of one: never a list of its characters.
    return [values] if isinstance(values, str) else list(values)
