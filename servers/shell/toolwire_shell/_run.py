"""One running command: spawned in its own session with a tagged environment, its output read
into bounded captures as it arrives, and its whole tree ended when it is done or given up on.

`Runner` owns the server's `ProcessTable` and a single monitor task that, while commands run,
counts each command's processes and ends any command past the process limit (a fork loop),
records for the watchdog the processes that belong to no command (and kills them all when
they are more than that limit), and collects orphans that exit on their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import time

from ._output import Capture
from ._policy import Policy
from ._procs import TAG_VARIABLE, ProcessTable

__all__ = ["Run", "Runner"]

logger = logging.getLogger("toolwire.shell")

_READ_SIZE = 65536
_MONITOR_SECONDS = 0.2


class Run:
    """A spawned command.

    Args:
        runner: The server's runner.
        argv: What to execute.
        cwd: Where.
        env: Its environment (with its tag).
        tag: Its tag.
        limit: Bytes kept per capture.
        interactive: Keep stdin open for writes and read stdout and stderr into one capture
            (a session); otherwise stdin is at end of file and the streams are kept apart.
    """

    def __init__(
        self,
        runner: Runner,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        tag: str,
        limit: int,
        *,
        interactive: bool = False,
    ) -> None:
        self.runner = runner
        self.argv, self.cwd, self.env, self.tag = argv, cwd, env, tag
        self.interactive = interactive
        self.stdout = Capture(limit)
        self.stderr = self.stdout if interactive else Capture(limit)
        self.process: subprocess.Popen[bytes] | None = None
        self._streams_done = asyncio.Event()
        self.exit_code: int | None = None
        self.killed_for: str | None = None
        self.changed = asyncio.Event()
        self.started_at = time.monotonic()
        self._exited = asyncio.Event()

    @property
    def pid(self) -> int | None:
        """The leader's process id, once spawned."""
        return self.process.pid if self.process is not None else None

    async def start(self) -> None:
        """Spawn the command.

        Raises:
            OSError: It could not be spawned (the message names why).
        """
        # Popen rather than asyncio's subprocess: asyncio reports an exit only once every
        # pipe is closed, and a background child holding stdout would hold the call with it.
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE if self.interactive else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            # A session reads both streams from one pipe, in the order they were written.
            stderr=subprocess.STDOUT if self.interactive else subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            start_new_session=True,
        )
        streams = (self.process.stdin, self.process.stdout, self.process.stderr)
        self.runner.table.started(
            self.process.pid,
            self.tag,
            tuple(os.fstat(stream.fileno()).st_ino for stream in streams if stream is not None),
        )
        self.runner.runs.add(self)
        self.runner.wake_monitor()
        assert self.process.stdout is not None
        loop = asyncio.get_running_loop()
        self._open = 0
        readers = [(self.process.stdout, self.stdout)]
        if self.process.stderr is not None:
            readers.append((self.process.stderr, self.stderr))
        for stream, capture in readers:
            fd = stream.fileno()
            os.set_blocking(fd, False)
            loop.add_reader(fd, self._readable, fd, capture)
            self._open += 1
        if self.process.stdin is not None:
            os.set_blocking(self.process.stdin.fileno(), False)
        self._leader_done = asyncio.Event()
        self._pidfd: int | None = None
        try:
            self._pidfd = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):
            self._poller = asyncio.create_task(self._poll_leader())
        else:
            loop.add_reader(self._pidfd, self._leader_exited)
        self._finisher = asyncio.create_task(self._finish())

    def _readable(self, fd: int, capture: Capture) -> None:
        try:
            chunk = os.read(fd, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            capture.add(chunk)
            self.changed.set()
            return
        asyncio.get_running_loop().remove_reader(fd)
        self._open -= 1
        if self._open == 0:
            self._streams_done.set()

    def _leader_exited(self) -> None:
        assert self.process is not None
        if self.process.poll() is None:
            return
        if self._pidfd is not None:
            asyncio.get_running_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        self._leader_done.set()

    async def _poll_leader(self) -> None:
        assert self.process is not None
        while self.process.poll() is None:
            await asyncio.sleep(0.02)
        self._leader_done.set()

    async def _finish(self) -> None:
        assert self.process is not None
        await self._leader_done.wait()
        self.runner.table.finished(self.process.pid)
        # What the command left behind (`cmd &`, setsid, double forks) ends with it; that
        # also closes the pipes they held, so the readers reach end of file.
        self.runner.table.end(self.tag, None)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._streams_done.wait(), 5)
        self._close_pipes()
        self.exit_code = self.process.returncode
        self.runner.runs.discard(self)
        self._exited.set()
        self.changed.set()

    def _close_pipes(self) -> None:
        assert self.process is not None
        loop = asyncio.get_running_loop()
        for stream in (self.process.stdout, self.process.stderr, self.process.stdin):
            if stream is None or stream.closed:
                continue
            with contextlib.suppress(Exception):
                loop.remove_reader(stream.fileno())
            with contextlib.suppress(OSError):
                stream.close()

    @property
    def exited(self) -> bool:
        """The leader exited and its output was read to the end."""
        return self._exited.is_set()

    async def wait(self, timeout: float | None) -> bool:
        """Wait up to `timeout` seconds (None: for ever) for the end; True when it ended."""
        if timeout is None:
            await self._exited.wait()
            return True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._exited.wait(), max(0.0, timeout))
        return self._exited.is_set()

    def kill(self, reason: str | None = None) -> None:
        """End the whole tree now (synchronous: safe in `finally` of a cancelled call)."""
        if reason and self.killed_for is None:
            self.killed_for = reason
        if self.process is not None and self.process.poll() is None:
            self.runner.table.end(self.tag, self.process.pid)
        else:
            self.runner.table.end(self.tag, None)

    async def write(self, data: bytes, seconds: float) -> int:
        """Write to stdin (a session), waiting up to `seconds` for room; bytes written (fewer
        than `data` when time ran out or the command closed its stdin after taking some).

        Raises:
            BrokenPipeError: The command closed its stdin or exited before taking any.
        """
        assert self.process is not None and self.process.stdin is not None
        fd = self.process.stdin.fileno()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        written = 0
        while written < len(data):
            try:
                written += os.write(fd, data[written:])
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                if not written:
                    raise
                break
            room: asyncio.Future[None] = loop.create_future()
            loop.add_writer(fd, _settle, room)
            try:
                await asyncio.wait_for(room, max(0.0, deadline - loop.time()))
            except TimeoutError:
                break
            finally:
                loop.remove_writer(fd)
        return written

    def close_stdin(self) -> None:
        """Send end of file to the command."""
        if self.process is not None and self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Runner:
    """Spawns commands for one server and watches them.

    Args:
        policy: The server's confinement.
        max_processes: Processes a command may have at once before it is ended (None: no
            limit).
        source_env: The environment `--env` names are read from.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        max_processes: int | None = 256,
        source_env: dict[str, str] | None = None,
    ) -> None:
        self.policy = policy
        self.max_processes = max_processes
        self.source_env = dict(os.environ if source_env is None else source_env)
        self.table = ProcessTable()
        self.runs: set[Run] = set()
        self._monitor: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def prepare(
        self, command: str, workdir: str | None, limit: int, *, interactive: bool = False
    ) -> Run:
        """A `Run` for `command`, checked against the policy but not started.

        Raises:
            CommandRefused: The command or the directory is refused.
        """
        argv = self.policy.argv(command)
        cwd = self.policy.workdir(workdir)
        tag = self.table.new_tag()
        env = self.policy.environment(TAG_VARIABLE, tag, self.source_env)
        return Run(self, argv, cwd, env, tag, limit, interactive=interactive)

    def wake_monitor(self) -> None:
        """Make sure the monitor runs while there are commands."""
        self._wake.set()
        if self._monitor is None or self._monitor.done():
            self._monitor = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        idle_ticks = 0
        while idle_ticks < 25:
            await asyncio.sleep(_MONITOR_SECONDS)
            self.table.reap()
            counts, strays = await asyncio.to_thread(self.table.survey)
            self.table.record_strays(strays)
            limit = self.max_processes
            if limit is not None and len(strays) > limit:
                # Processes that belong to no command share one budget (a fork loop that
                # left its session and scrubbed its environment).
                killed = self.table.end_strays()
                logger.warning(
                    "toolwire-shell: %d processes outside any command (more than %d): killed",
                    killed,
                    limit,
                )
            if not self.runs and not strays:
                idle_ticks += 1
                continue
            idle_ticks = 0
            if limit is None:
                continue
            for run in list(self.runs):
                if counts.get(run.tag, 0) > limit:
                    run.kill(f"more than {limit} processes at once")

    def close(self) -> None:
        """End every command (the server is going away)."""
        for run in list(self.runs):
            run.kill("the server is shutting down")
        self.table.close()
        if self._monitor is not None:
            self._monitor.cancel()
