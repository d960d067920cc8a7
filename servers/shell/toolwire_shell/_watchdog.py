"""The watchdog of one toolwire-shell server, run as `python -I -S _watchdog.py FD TOKEN`.

It blocks reading FD, a pipe whose write end only the server holds. A byte means the server
ended its commands itself and exits cleanly; end of file without one means the server died
(SIGKILL, a crash), and then every process whose `TOOLWIRE_SHELL_TAG` starts with TOKEN is
stopped and killed, round after round until none is left. Standard library only, so that it
starts fast and depends on nothing the server's environment may lack.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

_KEY = b"TOOLWIRE_SHELL_TAG="


def _tagged(prefix: bytes) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2 :].startswith("Z"):
            continue
        for item in environ.split(b"\0"):
            if item.startswith(_KEY) and item[len(_KEY) :].startswith(prefix):
                found.append(int(entry))
                break
    return found


def main() -> None:
    fd, token = int(sys.argv[1]), sys.argv[2]
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    try:
        data = os.read(fd, 1)
    except OSError:
        data = b""
    if data:
        return
    prefix = token.encode() + b"."
    for _ in range(200):
        pids = _tagged(prefix)
        if not pids:
            return
        for signum in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signum)
        time.sleep(0.01)


if __name__ == "__main__":
    main()
