"""`toolwire-shell` / `python -m toolwire_shell`: parse the options and serve."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from ._policy import CommandRefused, parse_names, split_allow
from .server import ShellConfig, build_server


def parser() -> argparse.ArgumentParser:
    """The command line."""
    cli = argparse.ArgumentParser(
        prog="toolwire-shell",
        description="Serve shell commands over MCP (stdio by default).",
    )
    cli.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory commands may run in (repeatable); the first is the default",
    )
    cli.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="CMD",
        help="allow this program (repeatable); then commands run without a shell",
    )
    cli.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME",
        help="pass this environment variable on to commands (repeatable)",
    )
    cli.add_argument("--max-output-bytes", type=int, default=1 << 20)
    cli.add_argument("--default-timeout-ms", type=int, default=600_000)
    cli.add_argument(
        "--max-processes",
        type=int,
        default=256,
        help="processes one command may have at once (0: no limit)",
    )
    cli.add_argument("--max-sessions", type=int, default=16)
    cli.add_argument("--session-idle-seconds", type=float, default=600.0)
    cli.add_argument(
        "--session-buffer-bytes",
        type=int,
        default=1 << 20,
        help="output a session keeps between two reads (head and tail)",
    )
    cli.add_argument("--transport", choices=["stdio", "http", "sse"], default="stdio")
    cli.add_argument("--host", default="127.0.0.1")
    cli.add_argument("--port", type=int, default=8000)
    return cli


def config_from(options: argparse.Namespace) -> ShellConfig:
    """The server settings the parsed options describe."""
    for name in ("max_output_bytes", "default_timeout_ms", "max_sessions", "session_buffer_bytes"):
        if getattr(options, name) <= 0:
            parser().error(f"--{name.replace('_', '-')} must be positive")
    if options.max_processes < 0:
        parser().error("--max-processes must be 0 (no limit) or more")
    if not 0 < options.session_idle_seconds < math.inf:
        parser().error("--session-idle-seconds must be a positive number")
    for name in parse_names(options.env):
        if "=" in name or "\0" in name:
            parser().error(
                f"--env {name!r} is not a variable name (--env passes the variable of that name "
                "from the server's own environment)"
            )
    for value in options.allow:
        if not parse_names([value]):
            # Dropping it would leave no list at all, and so every command through /bin/sh.
            parser().error(
                f"--allow {value!r} names no program (leave --allow out to run any command "
                "through /bin/sh)"
            )
    return ShellConfig(
        roots=[Path(root) for root in options.root],
        allow=split_allow(options.allow),
        env=parse_names(options.env),
        max_output_bytes=options.max_output_bytes,
        default_timeout_ms=options.default_timeout_ms,
        max_processes=options.max_processes or None,
        max_sessions=options.max_sessions,
        session_idle_seconds=options.session_idle_seconds,
        session_buffer_bytes=options.session_buffer_bytes,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Run the server until its client goes away."""
    options = parser().parse_args(argv)
    try:
        server = build_server(config_from(options))
    except CommandRefused as error:
        print(f"toolwire-shell: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    if options.transport == "stdio":
        server.run()  # which ends it with its parent process (not with the thread that spawned it)
    else:
        server.run(options.transport, host=options.host, port=options.port)


if __name__ == "__main__":
    main()
