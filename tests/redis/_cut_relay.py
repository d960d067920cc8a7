"""A TCP relay to a loopback port that a test cuts and mends, to take Redis away from one
process (or one change-bus member) while the others keep it.

`CutRelay(target_port)` listens on a free loopback port of its own and pipes each connection
to the target. `cut()` closes every piped connection and, until `mend()`, closes each new one
as soon as it is accepted: the process behind the relay sees its Redis connections break and
its reconnections fail, exactly as when Redis goes away, while Redis itself and everyone
connected to it directly carry on. The port stays the relay's throughout (nothing to bind
again). Threads only, so it runs beside any event loop; every wait is bounded by a short
poll, and `close()` ends them all.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from types import TracebackType

__all__ = ["CutRelay"]

POLL_SECONDS = 0.1
CHUNK = 1 << 16


class CutRelay:
    """Pipes 127.0.0.1:`port` to 127.0.0.1:`target_port` until cut.

    Attributes:
        port: Where it listens.
        url: `redis://127.0.0.1:PORT/0`, for a Redis target.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(POLL_SECONDS)
        self.port: int = self._listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._cut = False
        self._closed = threading.Event()
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def cut(self) -> None:
        """Break every piped connection and refuse new ones (accepted, then closed)."""
        with self._lock:
            self._cut = True
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            _close(*pair)

    def mend(self) -> None:
        """Pipe new connections again."""
        with self._lock:
            self._cut = False

    def close(self) -> None:
        """Stop listening and break everything; the threads end within a poll."""
        self._closed.set()
        self.cut()
        for thread in self._threads:
            thread.join(timeout=5)
        self._listener.close()

    def __enter__(self) -> CutRelay:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                inbound, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                refused = self._cut
            if refused:
                _close(inbound)
                continue
            try:
                outbound = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                _close(inbound)
                continue
            with self._lock:
                self._pairs.append((inbound, outbound))
            thread = threading.Thread(target=self._pipe, args=(inbound, outbound), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _pipe(self, inbound: socket.socket, outbound: socket.socket) -> None:
        peer = {inbound: outbound, outbound: inbound}
        with selectors.DefaultSelector() as selector:
            for end in peer:
                end.setblocking(False)
                selector.register(end, selectors.EVENT_READ)
            # `cut` closes both ends under this loop: a closed socket's fileno is -1.
            while not self._closed.is_set() and inbound.fileno() != -1:
                try:
                    ready = selector.select(POLL_SECONDS)
                    for key, _ in ready:
                        source = key.fileobj
                        assert isinstance(source, socket.socket)
                        data = source.recv(CHUNK)
                        if not data:
                            raise ConnectionError("one end closed")
                        peer[source].settimeout(5)  # a bounded write, then back to polling
                        peer[source].sendall(data)
                        peer[source].setblocking(False)
                except (OSError, ValueError):  # closed by `cut`, or by an end
                    break
        _close(inbound, outbound)
        with self._lock:
            with contextlib.suppress(ValueError):
                self._pairs.remove((inbound, outbound))


def _close(*ends: socket.socket) -> None:
    for end in ends:
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)
        end.close()
