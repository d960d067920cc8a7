"""The `toolwire` command: run, inspect and install servers. The only place that prints."""

from __future__ import annotations

import argparse
import math
import sys

__all__ = ["main"]

_TARGET_HELP = "path/file.py[:server] or module[:server]"


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser, and each command's own parser by name (for its usage errors)."""
    from .. import __version__

    parser = argparse.ArgumentParser(prog="toolwire", description="Serve Python tools over MCP.")
    parser.add_argument("--version", action="version", version=f"toolwire {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="serve a toolwire Server over stdio or HTTP")
    run.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    run.add_argument("--transport", default="stdio", choices=["stdio", "http", "sse"])
    run.add_argument("--host", default="127.0.0.1", help="HTTP: the interface to bind")
    run.add_argument("--port", type=int, default=8000, help="HTTP: the TCP port (8000)")
    run.add_argument(
        "--stateless", action="store_true", help="streamable HTTP: no sessions, one POST each"
    )
    run.add_argument(
        "--json-response",
        action="store_true",
        help="streamable HTTP: answer with JSON bodies instead of SSE streams",
    )
    run.add_argument(
        "--workers",
        type=_worker_count,
        default=1,
        metavar="N",
        help="streamable HTTP: serve from N uvicorn worker processes sharing the port (1)",
    )
    run.add_argument(
        "--access-log",
        action="store_true",
        help="HTTP/SSE: log one line per request on stderr (off by default)",
    )
    run.add_argument(
        "--shutdown-grace",
        type=_grace_seconds,
        metavar="SECONDS",
        help="HTTP/SSE: after SIGTERM/SIGINT, how long calls in flight get to be answered "
        "before they are refused with a JSON-RPC error (5)",
    )
    # Removed (uvicorn has no public way to time a request head): refused with the reason.
    run.add_argument("--header-timeout", metavar="SECONDS", help=argparse.SUPPRESS)
    run.add_argument(
        "--redis",
        metavar="URL",
        help="streamable HTTP: keep sessions, resumable streams and change notices in this "
        "Redis (redis://host:port/db), shared by every process serving the URL; needs "
        "toolwire[redis]",
    )
    run.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST",
        help="HTTP: a Host name the server answers, instead of the loopback ones (repeatable; "
        "'name' any port, 'name:port' that one, '*' any host)",
    )
    run.add_argument(
        "--allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="HTTP: a browser Origin allowed besides the server's own, instead of the loopback "
        "ones (repeatable; e.g. https://app.example.com, '*' any origin)",
    )
    run.add_argument(
        "--path", metavar="DIR", help="import a module TARGET from DIR (default: the current dir)"
    )

    inspect = commands.add_parser("inspect", help="list tools, schemas and schema problems")
    inspect.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    inspect.add_argument("--path", metavar="DIR", help="import a module TARGET from DIR")

    install = commands.add_parser("install", help="add the server to a client's MCP config")
    install.add_argument("client", choices=["claude-desktop", "claude-code", "cursor", "mcp-json"])
    install.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    install.add_argument("--name", help="the server's name in the config (default: its own)")
    install.add_argument(
        "--env", action="append", default=[], metavar="K=V", help="set in the server's env"
    )
    install.add_argument("--config", metavar="PATH", help="the config file to write")
    install.add_argument("--dry-run", action="store_true", help="show the result, write nothing")
    install.add_argument("--path", metavar="DIR", help="import a module TARGET from DIR")

    remote_target = (
        "a command line starting a stdio server, or an http(s) URL (SSE if it ends in /sse)"
    )
    tools = commands.add_parser("tools", help="list a remote MCP server's tools and schemas")
    tools.add_argument("target", metavar="TARGET", help=remote_target)
    tools.add_argument("--json", action="store_true", help="machine-readable output")
    _reaching_options(tools, timeout=30.0)

    call = commands.add_parser("call", help="call one tool of a remote MCP server")
    call.add_argument("target", metavar="TARGET", help=remote_target)
    call.add_argument("tool", metavar="TOOL", help="the tool's name")
    call.add_argument("--args", default="{}", metavar="JSON", help="the arguments, a JSON object")
    call.add_argument(
        "--yes", "-y", action="store_true", help="call without asking, even if it may change things"
    )
    call.add_argument(
        "--save-dir", metavar="DIR", help="where images and other binaries go (a new temp dir)"
    )
    _reaching_options(call, timeout=300.0)
    return parser, {
        "run": run,
        "inspect": inspect,
        "install": install,
        "tools": tools,
        "call": call,
    }


def _reaching_options(command: argparse.ArgumentParser, *, timeout: float) -> None:
    """Add how `tools` and `call` reach a remote server; only the default wait differs."""
    command.add_argument(
        "--header",
        action="append",
        metavar="'NAME: VALUE'",
        help="an HTTP header for every request (repeatable; http(s) targets)",
    )
    command.add_argument(
        "--verbose", "-v", action="store_true", help="show a stdio server's stderr as it runs"
    )
    command.add_argument(
        "--timeout",
        type=float,
        default=timeout,
        metavar="S",
        help=f"seconds per request ({timeout:g})",
    )


def _worker_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {count}")
    return count


def _grace_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return seconds


def _parse(argv: list[str]) -> argparse.Namespace:
    """Parse `argv`; an option no parser knows is reported by the parser it was meant for.

    argparse leaves the arguments a subcommand does not recognise to the top-level parser,
    whose error shows the top-level usage; `toolwire run x.py --port 8000` deserves run's
    usage and a message naming `--port`. Exits with status 2 on any usage error.
    """
    parser, commands = _parser()
    args, unknown = parser.parse_known_args(argv)
    if not unknown:
        return args
    # Anything before the command word belongs to the top level (`toolwire --port run ...`).
    command_at = argv.index(args.command) if args.command in argv else len(argv)
    before = set(argv[:command_at])
    owner = parser if any(token in before for token in unknown) else commands[args.command]
    options = [token for token in unknown if token.startswith("-")]
    if options:
        label = "unknown option" if len(options) == 1 else "unknown options"
        owner.error(f"{label}: {', '.join(options)} (see `{owner.prog} --help`)")
    owner.error(f"unexpected arguments: {' '.join(unknown)} (see `{owner.prog} --help`)")
    raise AssertionError("unreachable: ArgumentParser.error exits")  # pragma: no cover


def main(argv: list[str] | None = None) -> int:
    """Run the `toolwire` command line.

    Args:
        argv: The arguments (default: `sys.argv[1:]`).

    Returns:
        The exit code: 0 on success, 2 for a bad TARGET, usage or config.
    """
    args = _parse(sys.argv[1:] if argv is None else argv)
    if args.command == "run":
        from .run import run

        return run(args)
    if args.command in ("tools", "call"):
        from .remote import call_command, tools_command

        return tools_command(args) if args.command == "tools" else call_command(args)
    from ._target import TargetError, load_server

    try:
        server = load_server(args.target, path=args.path)
    except TargetError as error:
        print(f"toolwire {args.command}: {error}", file=sys.stderr)
        return 2
    if args.command == "inspect":
        from .inspect import inspect_server

        return _emit(inspect_server(server, as_json=args.json))
    from .install import InstallError, install

    try:
        report = install(args, server)
    except InstallError as error:
        print(f"toolwire install: {error}", file=sys.stderr)
        return 2
    return _emit(report)


def _emit(text: str) -> int:
    """Print for a human or a pipe; a reader that went away (`| head`) is not an error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        import os

        # Python would complain again when flushing stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
