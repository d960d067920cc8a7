"""Results on stdout, and the end of a command whose reader went away (`toolwire ... | head`).

Unix tools such as `seq` or `cat` are killed by SIGPIPE when they write to a pipe nobody
reads any more: they print nothing about it, and a shell reports the status as 141 (128 +
13), which `set -o pipefail` counts as a failure. Python ignores SIGPIPE and raises
`BrokenPipeError` instead; the commands catch it around their own writes to stdout (so it is
never mistaken for a lost connection to a server), finish their clean-up, and then end the
same way the coreutils do.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["StdoutClosed", "end_for_closed_stdout", "write_stdout"]


class StdoutClosed(Exception):
    """Whoever read our stdout has gone; nothing more can be shown."""


def write_stdout(text: str) -> None:
    """Print `text` and a newline to stdout, flushed.

    Raises:
        StdoutClosed: The reader of stdout has closed it.
    """
    try:
        print(text, flush=True)
    except BrokenPipeError:
        raise StdoutClosed from None


def end_for_closed_stdout() -> int:
    """End the process as a coreutils tool does on a closed pipe: killed by SIGPIPE, silently.

    Call it once clean-up is done (a stdio server stopped, files closed). Where there is no
    SIGPIPE (Windows) it returns the status the caller should exit with instead.
    """
    # Whatever is still buffered for stdout cannot be delivered; the interpreter must not
    # try again (and complain) when it exits.
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
