"""The `toolwire` command: run, inspect and install servers. The only place that prints."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolwire", description="Serve Python tools over MCP.")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="serve a toolwire Server over stdio")
    run.add_argument("target", help="path/file.py[:server] or module[:server]")
    run.add_argument("--transport", default="stdio", choices=["stdio"])

    inspect = commands.add_parser("inspect", help="list tools, schemas and schema problems")
    inspect.add_argument("target", help="path/file.py[:server] or module[:server]")
    inspect.add_argument("--json", action="store_true", help="machine-readable output")

    install = commands.add_parser("install", help="add the server to a client's MCP config")
    install.add_argument("client", choices=["claude-desktop", "claude-code", "cursor", "mcp-json"])
    install.add_argument("target", help="path/file.py[:server] or module[:server]")
    install.add_argument("--name", help="the server's name in the config (default: its own)")
    install.add_argument("--env", action="append", default=[], metavar="K=V")
    install.add_argument("--config", help="the config file to write (default: the client's)")
    install.add_argument("--dry-run", action="store_true", help="show, write nothing")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.command == "run":
        # Protect stdout before the user's module runs: a print() at import must not
        # corrupt the stream.
        from ..transports.stdio import protect_stdout

        protect_stdout()
    from ._target import TargetError, load_server

    try:
        server = load_server(args.target)
    except TargetError as error:
        print(f"toolwire {args.command}: {error}", file=sys.stderr)
        return 2
    if args.command == "run":
        server.run(args.transport)
        return 0
    if args.command == "inspect":
        from .inspect import inspect_server

        print(inspect_server(server, as_json=args.json))
        return 0
    from .install import InstallError, install

    try:
        print(install(args, server))
    except InstallError as error:
        print(f"toolwire install: {error}", file=sys.stderr)
        return 2
    return 0
