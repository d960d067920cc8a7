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
    flags = {"--stateless": args.stateless, "--json-response": args.json_response}
    http_only = [flag for flag, given in flags.items() if given]
    if http_only and transport != "http":
        return _refused(f"{', '.join(http_only)} needs --transport http")
    if args.redis and (transport != "http" or args.stateless):
        return _refused("--redis needs --transport http with sessions")
    if args.redis and importlib.util.find_spec("redis") is None:
        return _refused("--redis needs the redis package: pip install 'toolwire[redis]'")
    if args.workers > 1 and transport != "http":
        return _refused("--workers needs --transport http")
    if args.access_log and transport == "stdio":
        return _refused("--access-log needs --transport http or sse")
    if (args.allowed_host or args.allowed_origin) and transport == "stdio":
        return _refused("--allowed-host/--allowed-origin need --transport http or sse")
    serving: dict[str, Any] = {}  # what Server.run takes, beside the app's options
    if args.shutdown_grace is not None:  # else Server.run's default
        serving["shutdown_grace"] = args.shutdown_grace
    if transport == "stdio":
        protect_stdout()
        _parent_watch.arm()
    else:
        serving.update(host=args.host or "127.0.0.1", port=args.port, access_log=args.access_log)
    app_options: dict[str, Any] = {}
    # As in the Python API, a list of hosts or origins replaces the loopback defaults.
    if args.allowed_host:
        app_options["allowed_hosts"] = list(args.allowed_host)
    if args.allowed_origin:
        app_options["allowed_origins"] = list(args.allowed_origin)
    if transport == "http":
        app_options.update(stateless=args.stateless, json_response=args.json_response)
    if args.redis:
        app_options["backplane"] = args.redis  # http_app takes the URL for a RedisBackplane
    from ._target import TargetError, load_server, portable_target

    try:
        server = load_server(args.target, path=args.path)
    except TargetError as error:
        return _refused(str(error))
    if args.workers > 1:  # a supervisor and N worker processes, each importing TARGET
        from ._workers import run_in_workers

        target = portable_target(args.target, args.path)
        run_in_workers(
            server, workers=args.workers, app_options=app_options, target=target, **serving
        )
    else:
        server.run(transport, **serving, **app_options)
    return 0


def _refused(message: str) -> int:
    print(f"toolwire run: {message}", file=sys.stderr)
    return 2
