"""Results on stdout, and the end of a command whose reader went away (`toolwire ... | head`).

A command catches `BrokenPipeError` around its own writes to stdout (never mistaking it for a
lost server), finishes its clean-up, and then ends silently by SIGPIPE, as `cat` does.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["StdoutClosed", "end_for_closed_stdout", "write_stdout"]


class StdoutClosed(Exception):
    """Whoever read our stdout has gone; nothing more can be shown."""


def write_stdout(text: str) -> None:
    """Print `text` and a newline to stdout, flushed; `StdoutClosed` if its reader is gone."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        raise StdoutClosed from None


def end_for_closed_stdout() -> int:
    """After clean-up, end as `cat` does on a closed pipe; without SIGPIPE, return a status."""
    # What is still buffered cannot be delivered: the interpreter must not retry it at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)
    sigpipe = getattr(signal, "SIGPIPE", None)
    if sigpipe is None:  # pragma: no cover - Windows
        return 1
    signal.signal(sigpipe, signal.SIG_DFL)
    os.kill(os.getpid(), sigpipe)
    return 128 + int(sigpipe)  # pragma: no cover - the signal ends the process first
