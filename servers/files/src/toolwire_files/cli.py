"""The `toolwire-files` command: parse the directories and options, then serve."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from toolwire.paths import PathError, Root

from ._access import CLIENT_ROOTS, DEFAULT_DENY, Access, Limits

__all__ = ["main", "parse"]

_EPILOG = f"""\
Paths outside the directories are never read, written, created or renamed; symbolic links are
followed only when they stay inside. A client's MCP roots may narrow the directories, never
widen them. Names matching a deny pattern are refused and hidden
(default: {", ".join(DEFAULT_DENY)}).
"""


def parse(argv: Sequence[str] | None = None, *, need_directory: bool = True) -> argparse.Namespace:
    """The command line, checked (exits with status 2 and a message on bad input).

    Args:
        argv: The arguments (default: the process's).
        need_directory: Refuse a command line that names no directory.
    """
    parser = argparse.ArgumentParser(
        prog="toolwire-files",
        description="A filesystem MCP server: read, search and edit files inside DIRs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("directories", nargs="*", metavar="DIR", help="an allowed directory")
    parser.add_argument(
        "--read-only-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="an allowed directory that is never changed (repeatable)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="list only the tools that change nothing, for every directory",
    )
    parser.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="PATTERN",
        help="a name pattern to refuse and hide, added to the defaults (repeatable)",
    )
    parser.add_argument(
        "--no-default-deny", action="store_true", help="drop the default deny patterns"
    )
    parser.add_argument(
        "--allow-hard-links",
        action="store_true",
        help="read files that have several hard links (their other names may be outside)",
    )
    parser.add_argument(
        "--client-roots",
        choices=CLIENT_ROOTS,
        default="narrow",
        help="narrow: a client's roots narrow the directories and an empty list revokes "
        "access (default); nonempty: an empty list keeps the directories; ignore: never ask",
    )
    defaults = Limits()
    parser.add_argument("--max-read-bytes", type=int, default=defaults.max_read_bytes)
    parser.add_argument("--max-entries", type=int, default=defaults.max_entries)
    parser.add_argument("--max-depth", type=int, default=defaults.max_depth)
    parser.add_argument("--max-results", type=int, default=defaults.max_results)
    parser.add_argument("--search-seconds", type=float, default=defaults.search_seconds)
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default) or streamable HTTP",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    options = parser.parse_args(argv)
    if need_directory and not options.directories and not options.read_only_dir:
        parser.error("give at least one directory")
    for name in ("max_read_bytes", "max_entries", "max_depth", "max_results", "search_seconds"):
        if getattr(options, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    return options


def access_from(options: argparse.Namespace) -> Access:
    """The `Access` the parsed options describe.

    Raises:
        SystemExit: A directory cannot be opened (status 2, naming it).
    """
    roots: list[Root] = []
    try:
        for directory in options.directories:
            roots.append(
                Root(
                    directory,
                    read_only=options.read_only,
                    allow_hard_links=options.allow_hard_links,
                )
            )
        for directory in options.read_only_dir:
            roots.append(Root(directory, read_only=True, allow_hard_links=options.allow_hard_links))
    except PathError as error:
        print(f"toolwire-files: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    deny = () if options.no_default_deny else DEFAULT_DENY
    limits = Limits(
        max_read_bytes=options.max_read_bytes,
        max_entries=options.max_entries,
        max_depth=options.max_depth,
        max_results=options.max_results,
        search_seconds=options.search_seconds,
    )
    return Access(roots, (*deny, *options.deny), limits, options.client_roots)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the server (the `toolwire-files` console script)."""
    from .server import build_server

    options = parse(argv)
    access = access_from(options)
    server = build_server(access, read_only=options.read_only)
    if options.transport == "http":
        if not _loopback(options.host):
            can = "read" if options.read_only else "read and change"
            print(
                f"toolwire-files: warning: {options.host}:{options.port} is served over HTTP "
                f"without authentication: whoever reaches it can {can} the files in "
                f"{', '.join(access.cli.paths)} (the Host check is no password: a client "
                "sends the Host it likes)",
                file=sys.stderr,
            )
        server.run("http", host=options.host, port=options.port)
    else:
        server.run()


def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a name: it may resolve anywhere
        return False
