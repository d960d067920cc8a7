"""The `toolwire` command: run, inspect and install servers. The only place that prints."""

from __future__ import annotations

import argparse
import math
import sys
from functools import partial
from typing import Any, NoReturn

__all__ = ["main"]

_TARGET_HELP = "path/file.py[:server] or module[:server]"


class _Parser(argparse.ArgumentParser):
    """A parser whose usage errors are one line; `declared` lists its arguments for the tests."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.declared: list[argparse.Action] = []
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.declared.append(action)
        return action

    def add_subparsers(self, **kwargs: Any) -> Any:
        action = super().add_subparsers(**kwargs)
        self.declared.append(action)
        return action

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser, and each command's own parser by name (for its usage errors)."""
    from .. import __version__

    parser = _Parser(prog="toolwire", description="Serve Python tools over MCP.")
    parser.add_argument(
        "--version",
        action="version",
        version=f"toolwire {__version__}",
        help="print toolwire's version and exit",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to do (each has --help)"
    )

    run = commands.add_parser("run", help="serve a toolwire Server over stdio or HTTP")
    run.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    run.add_argument(
        "--transport",
        default="stdio",
        choices=["stdio", "http", "sse"],
        help="stdio (the default: for a client that starts the server), http (streamable "
        "HTTP at /mcp) or sse (legacy SSE at /sse)",
    )
    run.add_argument(
        "--host",
        type=_bind_host,
        default=None,  # not a string: argparse would check it, loading the HTTP checks for stdio
        help="HTTP: the interface to bind (default: 127.0.0.1)",
    )
    run.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="HTTP: the TCP port (8000; 0: any free port, said on stderr)",
    )
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
        type=partial(_seconds, above_zero=False),
        metavar="SECONDS",
        help="how long calls in flight get to be answered once the server stops (HTTP/SSE: "
        "after SIGTERM/SIGINT, then refused with a JSON-RPC error, 5; stdio: after stdin "
        "ends, 2)",
    )
    # Removed (uvicorn has no public way to time a request head): refused with the reason.
    run.add_argument(
        "--header-timeout",
        metavar="SECONDS",
        type=_gone,
        help="removed: bound request heads in a reverse proxy (nginx: client_header_timeout)",
    )
    run.add_argument(
        "--redis",
        type=_redis_url,
        metavar="URL",
        help="streamable HTTP: keep sessions, resumable streams and change notices in this "
        "Redis (redis://host:port/db), shared by every process serving the URL; needs "
        "toolwire[redis]",
    )
    run.add_argument(
        "--allowed-host",
        action="append",
        type=partial(_guarded, "allowed_hosts"),
        metavar="HOST",
        help="HTTP: a Host name the server answers, instead of the loopback ones (repeatable; "
        "'name' any port, 'name:port' that one, '*' any host)",
    )
    run.add_argument(
        "--allowed-origin",
        action="append",
        type=partial(_guarded, "allowed_origins"),
        metavar="ORIGIN",
        help="HTTP: a browser Origin allowed besides the server's own, instead of the loopback "
        "ones (repeatable; e.g. https://app.example.com, '*' any origin)",
    )
    run.add_argument(
        "--path",
        type=_directory,
        metavar="DIR",
        help="import a module TARGET from DIR (default: the current dir)",
    )

    inspect = commands.add_parser(
        "inspect",
        help="list a server's tools (schemas, schema problems), resources, templates and prompts",
    )
    inspect.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    inspect.add_argument(
        "--path", type=_directory, metavar="DIR", help="import a module TARGET from DIR"
    )

    install = commands.add_parser("install", help="add the server to a client's MCP config")
    install.add_argument(
        "client",
        choices=["claude-desktop", "claude-code", "cursor", "mcp-json"],
        help="whose config to write (mcp-json: print a standalone mcpServers object)",
    )
    install.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    install.add_argument(
        "--name",
        type=partial(_nonempty, "give the name the client should show"),
        help="the server's name in the config (default: its own)",
    )
    install.add_argument(
        "--env", action="append", default=[], metavar="K=V", help="set in the server's env"
    )
    install.add_argument("--config", metavar="PATH", help="the config file to write")
    install.add_argument("--dry-run", action="store_true", help="show the result, write nothing")
    install.add_argument(
        "--path", type=_directory, metavar="DIR", help="import a module TARGET from DIR"
    )

    remote_target = (
        "a command line starting a stdio server, or an http(s) URL (SSE if it ends in /sse)"
    )
    tools = commands.add_parser(
        "tools", help="list a remote MCP server's tools, schemas, and what providers refuse in them"
    )
    tools.add_argument("target", metavar="TARGET", help=remote_target)
    tools.add_argument("--json", action="store_true", help="machine-readable output")
    _reaching_options(tools, timeout=30.0)

    call = commands.add_parser("call", help="call one tool of a remote MCP server")
    call.add_argument("target", metavar="TARGET", help=remote_target)
    call.add_argument("tool", metavar="TOOL", help="the tool's name")
    call.add_argument("--args", default="{}", metavar="JSON", help="the arguments, a JSON object")
    call.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="approve the call without asking, even a tool whose annotations do not say it "
        "is harmless",
    )
    call.add_argument(
        "--save-dir",
        type=_save_dir,
        metavar="DIR",
        help="where images and other binaries go (a new temp dir)",
    )
    call.add_argument(
        "--structured",
        action="store_true",
        help="print the structured result (structuredContent) as JSON instead of the content",
    )
    call.add_argument(
        "--json",
        action="store_true",
        help="print the whole result as JSON: content, structuredContent and isError",
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
        type=partial(_seconds, above_zero=True),
        default=timeout,
        metavar="S",
        help=f"seconds per request ({timeout:g})",
    )


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"a TCP port is 1 to 65535 (or 0: any free port), not {port}"
        )
    return port


def _gone(_text: str) -> str:
    from ..transports.http.run import HEADER_TIMEOUT_GONE

    raise argparse.ArgumentTypeError(HEADER_TIMEOUT_GONE)


def _nonempty(advice: str, text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"empty; {advice}")
    return text.strip()


def _directory(text: str) -> str:
    from pathlib import Path

    found = Path(text).expanduser()
    if not found.exists():
        raise argparse.ArgumentTypeError(f"no such directory: {text}")
    if not found.is_dir():
        raise argparse.ArgumentTypeError(f"not a directory: {text}")
    return text


def _save_dir(text: str) -> str:
    from pathlib import Path

    found = Path(text).expanduser()
    if found.exists() and not found.is_dir():
        raise argparse.ArgumentTypeError(f"not a directory: {text}")
    return str(found)


def _seconds(text: str, *, above_zero: bool) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if above_zero and not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {text}")
    if not (math.isfinite(seconds) and seconds >= 0):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return seconds


def _redis_url(text: str) -> str:
    scheme = text.partition("://")[0].lower() if "://" in text else ""
    if scheme not in ("redis", "rediss", "unix"):
        raise argparse.ArgumentTypeError(
            f"not a Redis URL: {text!r} (write redis://host:port/db, rediss://... for TLS, "
            "or unix:///path/to/socket)"
        )
    return text


def _bind_host(text: str) -> str:
    """Check --host: not empty, and a host the Host check can name (as the server will)."""
    text = _nonempty("give an address or name, e.g. 127.0.0.1", text)
    from ..transports.http.security.host_origin import check_bind_host

    try:
        check_bind_host(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("host: ")) from None
    return text


def _guarded(what: str, text: str) -> str:
    """Check one --allowed-host / --allowed-origin value as the server will."""
    from ..transports.http.security.host_origin import HostOriginGuard

    try:
        HostOriginGuard(None, **{what: [text]})  # type: ignore[arg-type]
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"{what}: ")) from None
    return text


def _worker_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {count}")
    return count


def _parse(argv: list[str]) -> argparse.Namespace:
    """Parse `argv`; an unknown option is reported by the (sub)command it was given to."""
    parser, commands = _parser()
    args, unknown = parser.parse_known_args(argv)
    if not unknown:
        if args.command == "call" and args.json and args.structured:
            commands["call"].error("--json and --structured exclude each other (--json has both)")
        return args
    # Anything before the command word belongs to the top level (`toolwire --port run ...`).
    command_at = argv.index(args.command) if args.command in argv else len(argv)
    before = set(argv[:command_at])
    owner = parser if any(token in before for token in unknown) else commands[args.command]
    options = [token for token in unknown if token.startswith("-")]
    if options:
        label = "unknown option" if len(options) == 1 else "unknown options"
        owner.error(f"{label}: {', '.join(options)}")
    owner.error(f"unexpected arguments: {' '.join(unknown)}")


def main(argv: list[str] | None = None) -> int:
    """Run the `toolwire` command line.

    Args:
        argv: The arguments (default: `sys.argv[1:]`).

    Returns:
        The exit code: 0 on success, 2 for a bad TARGET, usage or config.
    """
    try:
        args = _parse(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:  # `toolwire --help | true`
        from ._render import end_for_closed_stdout

        return end_for_closed_stdout()
    except SystemExit:
        # --help and --version wrote to stdout: flush now, while a closed pipe can be told
        # apart from other failures.
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            from ._render import end_for_closed_stdout

            end_for_closed_stdout()
        raise
    if args.command == "run":
        from .run import run

        return run(args)
    if args.command in ("tools", "call"):
        from .remote import call_command, tools_command

        return tools_command(args) if args.command == "tools" else call_command(args)
    from ._render import StdoutClosed, end_for_closed_stdout, write_stdout
    from ._target import TargetError, load_server
    from .install import InstallError, install

    try:
        server = load_server(args.target, path=args.path)
        if args.command == "inspect":
            from .inspect import inspect_server

            report = inspect_server(server, as_json=args.json)
        else:
            report = install(args, server)
    except (TargetError, InstallError) as error:
        print(f"toolwire {args.command}: {error}", file=sys.stderr)
        return 2
    try:
        write_stdout(report)  # a reader that went away (`| head`) ends us as it would end `cat`
    except StdoutClosed:
        return end_for_closed_stdout()
    return 0
