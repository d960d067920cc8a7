"""Long-running commands a caller talks to across calls (`exec_command` / `write_stdin`).

A session is a running command with its stdin open and its output (stdout and stderr, as they
arrive) kept in a bounded capture until the next call reads it. Sessions are bounded in number
(the least recently used is ended to make room), in idle time (an expiry task ends them) and in
buffered bytes (head and tail kept around a marker). A session id is a large random integer,
the only handle a caller needs (the 2026-07-28 era has no protocol sessions), and it belongs to
the caller that made it: under authentication another caller is told it does not exist.
A session started within an MCP session (`ctx.session_id`) ends with it (`end_mcp_session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ._run import Run

__all__ = ["Session", "SessionStore", "UnknownSession"]

_ID_SPAN = 2**52  # exact in every JSON number implementation


class UnknownSession(LookupError):
    """No session of this caller has that id."""


@dataclass(eq=False)
class Session:
    """One live command and what is known of it."""

    id: int
    owner: Any
    command: str
    run: Run
    mcp_session: str | None = None  # the MCP session that started it, when it had an id
    created: float = field(default_factory=time.monotonic)
    last_used: float = field(default_factory=time.monotonic)
    busy: int = 0

    @contextlib.contextmanager
    def in_use(self) -> Iterator[None]:
        """Mark the session used by a call for as long as the call lasts."""
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1
            self.last_used = time.monotonic()

    def describe(self) -> dict[str, Any]:
        """The session as `list_sessions` shows it."""
        now = time.monotonic()
        return {
            "session_id": self.id,
            "command": self.command,
            "pid": self.run.pid,
            "running": not self.run.exited,
            "exit_code": self.run.exit_code,
            "age_seconds": round(now - self.created, 3),
            "idle_seconds": round(now - self.last_used, 3),
            "buffered_bytes": self.run.stdout.total,
        }


class SessionStore:
    """The sessions of one server.

    Args:
        max_sessions: Sessions alive at once.
        idle_seconds: A session nobody used for this long is ended.
    """

    def __init__(self, max_sessions: int = 16, idle_seconds: float = 600.0) -> None:
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._sessions: dict[int, Session] = {}
        self._expiry: asyncio.Task[None] | None = None

    def add(self, owner: Any, command: str, run: Run, mcp_session: str | None = None) -> Session:
        """Keep `run` as a new session, ending the least recently used one if full (one no
        call is using, when there is one); `mcp_session` is the id of the MCP session it was
        started in, if any."""
        while len(self._sessions) >= self.max_sessions:
            oldest = min(
                self._sessions.values(), key=lambda session: (session.busy > 0, session.last_used)
            )
            self.end(oldest, "too many sessions: the least recently used one was ended")
        number = secrets.randbelow(_ID_SPAN - 1000) + 1000
        while number in self._sessions:
            number = secrets.randbelow(_ID_SPAN - 1000) + 1000
        session = Session(number, owner, command, run, mcp_session)
        self._sessions[number] = session
        if self._expiry is None or self._expiry.done():
            self._expiry = asyncio.create_task(self._expire())
        return session

    def get(self, number: int, owner: Any) -> Session:
        """The caller's session `number`.

        Raises:
            UnknownSession: No such session, or another caller's (told apart by nobody).
        """
        session = self._sessions.get(number)
        if session is None or session.owner != owner:
            raise UnknownSession(
                f"session {number} does not exist (it exited, was ended, or was never "
                "started by this caller); start a command with exec_command"
            )
        session.last_used = time.monotonic()
        return session

    def mine(self, owner: Any) -> list[Session]:
        """The caller's sessions, oldest first."""
        return [session for session in self._sessions.values() if session.owner == owner]

    def forget(self, session: Session) -> None:
        """Drop a session whose command exited (its tree is already ended)."""
        self._sessions.pop(session.id, None)

    def end(self, session: Session, reason: str) -> None:
        """End a session's whole process tree and drop it."""
        self._sessions.pop(session.id, None)
        session.run.kill(reason)

    def end_mcp_session(self, mcp_session: str) -> int:
        """End every session started within the MCP session `mcp_session`, which has ended;
        how many there were."""
        ended = [s for s in self._sessions.values() if s.mcp_session == mcp_session]
        for session in ended:
            self.end(session, "the MCP session that started it ended")
        return len(ended)

    def end_all(self) -> None:
        """End every session (the server is going away)."""
        for session in list(self._sessions.values()):
            self.end(session, "the server is shutting down")
        if self._expiry is not None:
            self._expiry.cancel()

    async def _expire(self) -> None:
        while self._sessions:
            await asyncio.sleep(min(5.0, max(0.05, self.idle_seconds / 4)))
            now = time.monotonic()
            for session in list(self._sessions.values()):
                if session.busy:
                    continue
                if session.run.exited and now - session.last_used > self.idle_seconds:
                    self.forget(session)
                elif now - session.last_used > self.idle_seconds:
                    with contextlib.suppress(Exception):
                        self.end(session, "idle for too long")
