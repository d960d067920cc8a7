"""`toolwire run TARGET`: serve a Server over stdio (stdout protected from the start) or HTTP."""

from __future__ import annotations

import importlib.util
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    """Import TARGET and serve it; for stdio, protect stdout and arm process-life handling
    first. Returns the exit code."""
    # Before the user's module runs: a print() at import time must not reach the wire, and a
    # parent that dies during a slow import must not leave us orphaned.
    from ..transports.stdio import _parent_watch
    from ..transports.stdio.stdio import protect_stdout

    transport = args.transport
    http_only = [
        flag
        for flag, on in (("--stateless", args.stateless), ("--json-response", args.json_response))
        if on
    ]
    if http_only and transport != "http":
        print(f"toolwire run: {', '.join(http_only)} needs --transport http", file=sys.stderr)
        return 2
    if args.redis and (transport != "http" or args.stateless):
        print("toolwire run: --redis needs --transport http with sessions", file=sys.stderr)
        return 2
    if args.redis and importlib.util.find_spec("redis") is None:
        print(
            "toolwire run: --redis needs the redis package: pip install 'toolwire[redis]'",
            file=sys.stderr,
        )
        return 2
    if args.workers > 1 and transport != "http":
        print("toolwire run: --workers needs --transport http", file=sys.stderr)
        return 2
    serving_flags = [
        flag
        for flag, on in (
            ("--access-log", args.access_log),
            ("--shutdown-grace", args.shutdown_grace is not None),
        )
        if on
    ]
    if serving_flags and transport == "stdio":
        print(
            f"toolwire run: {', '.join(serving_flags)} needs --transport http or sse",
            file=sys.stderr,
        )
        return 2
    security = _security_options(args)
    if security and transport == "stdio":
        print(
            "toolwire run: --allowed-host/--allowed-origin need --transport http or sse",
            file=sys.stderr,
        )
        return 2
    if args.redis:
        security["backplane"] = args.redis  # http_app takes the URL for a RedisBackplane
    serving: dict[str, Any] = {**security, "access_log": args.access_log}
    if args.shutdown_grace is not None:  # else Server.run's default
        serving["shutdown_grace"] = args.shutdown_grace
    if transport == "stdio":
        protect_stdout()
        _parent_watch.arm()
    from ._target import TargetError, load_server

    try:
        server = load_server(args.target, path=args.path)
    except TargetError as error:
        print(f"toolwire run: {error}", file=sys.stderr)
        return 2
    if transport == "stdio":
        server.run("stdio")
    elif transport == "http" and args.workers > 1:
        return _run_workers(args, serving)
    elif transport == "http":
        server.run(
            "http",
            host=args.host,
            port=args.port,
            stateless=args.stateless,
            json_response=args.json_response,
            **serving,
        )
    else:
        server.run(transport, host=args.host, port=args.port, **serving)
    return 0


def _run_workers(args: argparse.Namespace, serving: dict[str, Any]) -> int:
    """`--workers N` (N > 1): uvicorn's supervisor and N worker processes."""
    from ._target import portable_target
    from ._workers import run_workers, sessions_warning

    options = dict(serving)
    access_log = options.pop("access_log")
    grace = options.pop("shutdown_grace", None)
    timing = {} if grace is None else {"shutdown_grace": grace}

    if not args.stateless and not args.redis:
        print(sessions_warning(args.workers), file=sys.stderr)
    target, root = portable_target(args.target, args.path)
    started = run_workers(
        target,
        root=root,
        workers=args.workers,
        host=args.host,
        port=args.port,
        app_options={"stateless": args.stateless, "json_response": args.json_response, **options},
        access_log=access_log,
        **timing,
    )
    return 0 if started else 1


def _security_options(args: argparse.Namespace) -> dict[str, Any]:
    """`allowed_hosts`/`allowed_origins` for `Server.run` from the flags given; as in the
    Python API, a list given replaces the loopback defaults."""
    options: dict[str, Any] = {}
    if args.allowed_host:
        options["allowed_hosts"] = list(args.allowed_host)
    if args.allowed_origin:
        options["allowed_origins"] = list(args.allowed_origin)
    return options
