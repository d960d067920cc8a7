"""`toolwire run TARGET`: serve a Server over stdio, with stdout protected from the start."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    """Protect stdout, arm process-life handling, import TARGET, serve. Returns the exit code."""
    # Before the user's module runs: a print() at import time must not reach the wire, and a
    # parent that dies during a slow import must not leave us orphaned.
    from ..transports import _parent_watch
    from ..transports.stdio import protect_stdout

    protect_stdout()
    _parent_watch.arm()
    from ._target import TargetError, load_server

    try:
        server = load_server(args.target, path=args.path)
    except TargetError as error:
        print(f"toolwire run: {error}", file=sys.stderr)
        return 2
    server.run(args.transport)
    return 0
