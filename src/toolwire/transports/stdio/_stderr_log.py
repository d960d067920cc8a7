"""A log handler for stderr that never blocks the code logging: records are formatted at once
and written by a daemon thread, so a client that pipes the server's stderr and never reads it
stalls that thread only, not the event loop. Past `QUEUE_LIMIT` waiting lines, new ones are
dropped and counted (the count is written once stderr moves again); `flush` waits a bounded
time, so that exiting never hangs on a stuck stderr. A forked child starts its own writer."""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections import deque
from typing import TextIO

from . import _parent_watch

__all__ = ["FLUSH_SECONDS", "QUEUE_LIMIT", "BackgroundStderrHandler"]

QUEUE_LIMIT = 1000
"""How many formatted lines may wait for stderr before new ones are dropped."""
FLUSH_SECONDS = 0.5
"""How long `flush()` waits for the waiting lines to be written."""


class BackgroundStderrHandler(logging.Handler):
    """Write records to `stream` from a thread of its own (started at the first record)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream
        self._lines: deque[str] = deque()
        self.after_fork()
        if hasattr(os, "register_at_fork"):  # the writer thread is not copied into a child
            this = weakref.ref(self)
            os.register_at_fork(after_in_child=lambda: _forked(this))

    def after_fork(self) -> None:
        """Start over (so does a forked child): a fresh lock, no lines and no writer yet."""
        self._ready = threading.Condition(threading.Lock())
        self._lines.clear()
        self._dropped = 0
        self._writing = False  # the writer holds a line it took but has not written yet
        self._thread: threading.Thread | None = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + "\n"
        except Exception:
            self.handleError(record)
            return
        with self._ready:
            if len(self._lines) >= QUEUE_LIMIT:
                self._dropped += 1
                return
            self._lines.append(line)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._write_all, name="toolwire-stderr-log", daemon=True
                )
                self._thread.start()
            self._ready.notify_all()

    def flush(self) -> None:
        """Wait up to `FLUSH_SECONDS` for every waiting line to be written."""
        deadline = time.monotonic() + FLUSH_SECONDS
        with self._ready:
            while self._lines or self._writing:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None:
                    return
                self._ready.wait(left)

    def _write_all(self) -> None:
        # Termination signals go to the main thread: here, once finalization has reset their
        # handlers, one would kill the process with a signal instead of its exit code.
        _parent_watch.block_termination_signals()
        while True:
            with self._ready:
                while not self._lines:
                    self._writing = False
                    self._ready.notify_all()  # for flush()
                    self._ready.wait()
                line = self._lines.popleft()
                dropped, self._dropped = self._dropped, 0
                self._writing = True
            if dropped:
                line = (
                    f"WARNING toolwire: {dropped} log line(s) dropped: stderr was not read\n" + line
                )
            try:
                self._stream.write(line)
                self._stream.flush()
            except (OSError, ValueError):  # stderr closed: nothing more can be said
                pass


def _forked(handler: weakref.ref[BackgroundStderrHandler]) -> None:
    alive = handler()
    if alive is not None:
        alive.after_fork()
