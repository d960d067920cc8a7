"""`toolwire-patch`: serve the apply_patch tools over stdio, streamable HTTP or SSE."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from toolwire.paths import PathError, Root, Roots

from .plan import Limits
from .server import build_server

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    defaults = Limits()
    parser = argparse.ArgumentParser(
        prog="toolwire-patch",
        description="An MCP server applying V4A / Codex patches atomically inside its roots.",
    )
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory patches may change (repeatable; default: the current directory)",
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", "http", "sse"),
        default="stdio",
        help="how clients reach the server (default: stdio)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument(
        "--max-patch-bytes",
        type=int,
        default=defaults.max_patch_bytes,
        help=f"largest patch accepted, in bytes (default: {defaults.max_patch_bytes})",
    )
    parser.add_argument(
        "--max-files",
        type=int,
        default=defaults.max_files,
        help=f"most files one patch may touch (default: {defaults.max_files})",
    )
    parser.add_argument(
        "--max-file-bytes",
        type=int,
        default=defaults.max_file_bytes,
        help=f"largest file read or written, in bytes (default: {defaults.max_file_bytes})",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=defaults.max_seconds,
        help=f"time one patch may take to match and plan (default: {defaults.max_seconds:g})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve until the client goes away."""
    options = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    for value, flag in (
        (options.max_patch_bytes, "--max-patch-bytes"),
        (options.max_files, "--max-files"),
        (options.max_file_bytes, "--max-file-bytes"),
        (options.max_seconds, "--max-seconds"),
    ):
        if not value > 0:  # nan too
            raise SystemExit(f"toolwire-patch: {flag} must be positive, got {value}")
    try:
        roots = Roots([Root(path) for path in (options.root or [os.getcwd()])])
    except PathError as error:
        raise SystemExit(f"toolwire-patch: {error}") from None
    limits = Limits(
        max_patch_bytes=options.max_patch_bytes,
        max_files=options.max_files,
        max_file_bytes=options.max_file_bytes,
        max_seconds=options.max_seconds,
    )
    server = build_server(roots, limits)
    if options.transport == "stdio":
        server.run("stdio")
    else:
        server.run(options.transport, host=options.host, port=options.port)
