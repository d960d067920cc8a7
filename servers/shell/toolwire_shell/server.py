"""The toolwire-shell MCP server: the Agents SDK's shell tools over MCP, on toolwire's public API.

Tools: `shell` (the SDK's `ShellTool` action: commands run in order, each with the timeout,
the rest skipped after one times out; per command stdout, stderr and an `exit` or `timeout`
outcome as structured content, and as text what the SDK renders for the model),
`exec_command` and `write_stdin` (the SDK sandbox's long-running form: output so far, the exit
code once it exited, a session id while it runs; as text the sandbox's rendering),
`kill_session` and `list_sessions`. Every command gets stdin at end of file (unless a session
writes to it), a quiet environment, output kept bounded while it is read, and its own process
tree, which is ended when the command is done, times out, is cancelled, its session ends, or the
server goes away. All tools but `list_sessions` are annotated destructive.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from toolwire import (
    CallInfo,
    ModelBehaviorError,
    RunContextWrapper,
    Server,
    ToolContext,
    ToolResult,
    default_tool_error_function,
)

from ._output import Capture, CommandResult, render, render_exec, spend_budget, token_cut
from ._policy import CommandRefused, Policy, program_bytes
from ._procs import become_subreaper
from ._run import Run, Runner
from ._sessions import Session, SessionStore, UnknownSession

__all__ = ["ShellConfig", "build_server"]

_PROGRESS_SECONDS = 1.0
_PROGRESS_TAIL = 400
_EXEC_YIELD_MS = 10_000
_STDIN_YIELD_MS = 250
_YIELD_MIN_MS, _YIELD_MAX_MS, _EMPTY_POLL_MIN_MS = 250, 30_000, 5_000


@dataclass
class ShellConfig:
    """How a toolwire-shell server runs commands.

    Attributes:
        roots: Directories working directories must lie in (empty: anywhere); commands run
            in the first one unless a call names a `workdir`.
        allow: Program names allowed (empty: any command, through `/bin/sh -c`).
        env: Names of the server's environment variables passed on to commands.
        max_output_bytes: Output kept per stream while a command runs, and the most a `shell`
            result carries (a model's `max_output_length` may lower it).
        default_timeout_ms: The timeout of a `shell` command that names none.
        max_processes: Processes one command may have at once before it is ended.
        max_sessions: `exec_command` sessions alive at once.
        session_idle_seconds: A session unused for this long is ended.
        session_buffer_bytes: Output a session keeps between two reads.
    """

    roots: list[Path] = field(default_factory=list)
    allow: frozenset[str] = frozenset()
    env: tuple[str, ...] = ()
    max_output_bytes: int = 1 << 20
    default_timeout_ms: int = 600_000
    max_processes: int | None = 256
    max_sessions: int = 16
    session_idle_seconds: float = 600.0
    session_buffer_bytes: int = 1 << 20

    def policy(self) -> Policy:
        """The confinement these settings describe.

        Raises:
            CommandRefused: A root that is no directory, or a launcher on the allow-list.
        """
        return Policy(roots=list(self.roots), allow=self.allow, env_names=self.env)


@dataclass
class _State:
    config: ShellConfig
    runner: Runner
    sessions: SessionStore


def _failure_text(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """Refusals name what was wrong; anything else gets the SDK's generic text."""
    if isinstance(error, CommandRefused | UnknownSession | ModelBehaviorError):
        return str(error)
    return default_tool_error_function(ctx, error)


def _owner(info: CallInfo) -> dict[str, Any]:
    identity = info.identity
    return {"state": info.state, "owner": identity.principal if identity is not None else None}


def _state(ctx: ToolContext[Any]) -> tuple[_State, Any]:
    return ctx.context["state"], ctx.context["owner"]


def _timeout(value: Any) -> int | None:
    if value is None or (
        isinstance(value, int | float) and not isinstance(value, bool) and value == 0
    ):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ModelBehaviorError(
            "Shell call action timeout must be a positive integer in milliseconds, zero, or None."
        )
    return value


async def _follow(ctx: ToolContext[Any], run: Run, seconds: float | None, label: str) -> bool:
    """Wait for `run` to end, up to `seconds`, telling the client its output's tail every
    second; True when it ended."""
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return run.exited
        step = _PROGRESS_SECONDS if left is None else min(_PROGRESS_SECONDS, left)
        if await run.wait(step):
            return True
        elapsed = time.monotonic() - run.started_at
        tail = run.stdout.tail_text(_PROGRESS_TAIL)
        if run.stderr is not run.stdout and run.stderr.total:
            tail += run.stderr.tail_text(_PROGRESS_TAIL)
        await ctx.report_progress(
            round(elapsed * 1000), None, f"{label} running {elapsed:.0f}s\n{tail[-_PROGRESS_TAIL:]}"
        )


def _ended_note(run: Run) -> str:
    return f"\n[toolwire-shell ended the command: {run.killed_for}]" if run.killed_for else ""


async def shell(
    ctx: ToolContext[Any],
    commands: list[str],
    timeout_ms: int | None = None,
    max_output_length: int | None = None,
    workdir: str | None = None,
) -> ToolResult[dict[str, Any]]:
    """Run shell commands one after another and return each one's output and exit code.

    Stdin is at end of file, pagers and prompts are turned off, and each command's whole
    process tree is ended when it finishes or times out; after a timeout the remaining
    commands are skipped.

    Args:
        commands: The commands to run, in order.
        timeout_ms: Milliseconds each command may run (0 or none: the server's default).
        max_output_length: Characters of stdout and stderr returned at most, over all
            commands; longer output keeps its start and end around a marker.
        workdir: The directory to run in (default: the server's first root).
    """
    state, _ = _state(ctx)
    config = state.config
    if isinstance(commands, str) or not commands or not all(isinstance(c, str) for c in commands):
        raise ModelBehaviorError("Shell call action must include at least one command.")
    timeout = _timeout(timeout_ms)
    limit = config.max_output_bytes
    if max_output_length is not None:
        limit = min(limit, max(0, int(max_output_length)))
    # Refuse before anything runs: a later command's refusal must not leave earlier ones done.
    runs = [state.runner.prepare(command, workdir, limit) for command in commands]
    results: list[CommandResult] = []
    for index, (command, run) in enumerate(zip(commands, runs, strict=True)):
        try:
            await run.start()
        except OSError as error:
            results.append(CommandResult(command, stderr=str(error), exit_code=127))
            continue
        try:
            seconds = (timeout if timeout is not None else config.default_timeout_ms) / 1000
            label = f"[{index + 1}/{len(commands)}]"
            done = await _follow(ctx, run, seconds, label)
            if not done:
                run.kill()
                await run.wait(5)
        finally:
            if not run.exited:
                run.kill("the call was cancelled")
        result = CommandResult(
            command,
            stdout=run.stdout.text(),
            stderr=run.stderr.text() + _ended_note(run),
            outcome="exit" if done else "timeout",
            exit_code=run.exit_code if done else None,
        )
        results.append(result)
        if not done:
            break
    spend_budget(results, limit)
    structured = {"output": [result.as_dict() for result in results], "max_output_length": limit}
    return ToolResult(structured, content=render(results))


def _clamp(value: int, low: int) -> int:
    return max(low, min(_YIELD_MAX_MS, value))


def _exec_reply(
    started: float, run: Run, capture: Capture, session_id: int | None, max_tokens: int | None
) -> dict[str, Any]:
    text, original = token_cut(capture, max_tokens)
    return {
        "chunk_id": uuid.uuid4().hex[:6],
        "wall_time_seconds": round(time.monotonic() - started, 4),
        "exit_code": run.exit_code if run.exited else None,
        "session_id": None if run.exited else session_id,
        "original_token_count": original,
        "output": text + _ended_note(run),
    }


async def exec_command(
    ctx: ToolContext[Any],
    cmd: Annotated[str, Field(min_length=1)],
    workdir: str | None = None,
    yield_time_ms: Annotated[int, Field(ge=0)] = _EXEC_YIELD_MS,
    max_output_tokens: Annotated[int | None, Field(ge=1)] = None,
) -> ToolResult[dict[str, Any]]:
    """Start a command and return its output so far: its exit code if it ended within the
    yield time, else a session id to use with write_stdin, kill_session and list_sessions.

    Args:
        cmd: The command to run.
        workdir: The directory to run in (default: the server's first root).
        yield_time_ms: Milliseconds to wait for output before answering (250 to 30000).
        max_output_tokens: Tokens of output returned at most (about 4 bytes each); longer
            output keeps its start and end around a marker.
    """
    state, owner = _state(ctx)
    started = time.monotonic()
    run = state.runner.prepare(cmd, workdir, state.config.session_buffer_bytes, interactive=True)
    try:
        await run.start()
    except OSError as error:
        raise CommandRefused(f"cannot start {cmd!r}: {error}") from None
    session = state.sessions.add(owner, cmd, run, ctx.session_id)
    kept = False
    try:
        with session.in_use():
            await _follow(ctx, run, _clamp(yield_time_ms, _YIELD_MIN_MS) / 1000, "exec_command")
        kept = True
    finally:
        if not kept:  # cancelled: the command goes with the call
            state.sessions.end(session, "the call was cancelled")
    reply = _exec_reply(started, run, run.stdout.take(), session.id, max_output_tokens)
    if run.exited:
        state.sessions.forget(session)
    return ToolResult(reply, content=render_exec(reply))


async def write_stdin(
    ctx: ToolContext[Any],
    session_id: int,
    chars: str = "",
    yield_time_ms: Annotated[int, Field(ge=0)] = _STDIN_YIELD_MS,
    max_output_tokens: Annotated[int | None, Field(ge=1)] = None,
) -> ToolResult[dict[str, Any]]:
    """Write characters to a running session's stdin (empty: just read) and return the output
    since the last read. A trailing Ctrl-D (\\u0004) closes stdin.

    Args:
        session_id: The id exec_command returned.
        chars: What to write; may be empty to poll.
        yield_time_ms: Milliseconds to wait for output before answering (250 to 30000; at
            least 5000 when polling).
        max_output_tokens: Tokens of output returned at most (about 4 bytes each).
    """
    state, owner = _state(ctx)
    session = state.sessions.get(session_id, owner)
    with session.in_use():
        return await _write_and_read(ctx, state, session, chars, yield_time_ms, max_output_tokens)


async def _write_and_read(
    ctx: ToolContext[Any],
    state: _State,
    session: Session,
    chars: str,
    yield_time_ms: int,
    max_output_tokens: int | None,
) -> ToolResult[dict[str, Any]]:
    started = time.monotonic()
    run = session.run
    data, close = chars, False
    if data.endswith("\x04"):
        data, close = data[:-1], True
    encoded = program_bytes(data, "chars", nul=True)
    note = ""
    if run.exited and encoded:
        note = "[toolwire-shell: the command had exited; nothing was written]\n"
    if not run.exited:
        try:
            if encoded:
                written = await run.write(encoded, _clamp(yield_time_ms, _YIELD_MIN_MS) / 1000)
                if written < len(encoded):
                    note = (
                        f"[toolwire-shell: the command read only {written} of {len(encoded)} "
                        "bytes; the rest was dropped]\n"
                    )
            if close:
                run.close_stdin()
        except (BrokenPipeError, ConnectionResetError):
            note = "[toolwire-shell: the command closed its stdin; nothing was written]\n"
    low = _EMPTY_POLL_MIN_MS if not chars else _YIELD_MIN_MS
    await _follow(ctx, run, _clamp(yield_time_ms, low) / 1000, "write_stdin")
    reply = _exec_reply(started, run, run.stdout.take(), session.id, max_output_tokens)
    reply["output"] = note + reply["output"]
    if run.exited:
        state.sessions.forget(session)
    return ToolResult(reply, content=render_exec(reply))


async def kill_session(ctx: ToolContext[Any], session_id: int) -> dict[str, Any]:
    """End a session's command and every process it started; returns its unread output.

    Args:
        session_id: The id exec_command returned.
    """
    state, owner = _state(ctx)
    session = state.sessions.get(session_id, owner)
    state.sessions.end(session, "kill_session")
    await session.run.wait(5)
    return {
        "session_id": session.id,
        "exit_code": session.run.exit_code,
        "output": session.run.stdout.take().text(),
    }


async def list_sessions(ctx: ToolContext[Any]) -> dict[str, Any]:
    """List this caller's running exec_command sessions."""
    state, owner = _state(ctx)
    return {"sessions": [session.describe() for session in state.sessions.mine(owner)]}


_OUTCOME = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": ["exit", "timeout"]},
        "exit_code": {"type": ["integer", "null"]},
    },
    "required": ["type"],
}
SHELL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "output": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "stdout": {"type": "string"},
                    "stderr": {"type": "string"},
                    "outcome": _OUTCOME,
                },
                "required": ["command", "stdout", "stderr", "outcome"],
            },
        },
        "max_output_length": {"type": ["integer", "null"]},
    },
    "required": ["output"],
}
EXEC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "chunk_id": {"type": "string"},
        "wall_time_seconds": {"type": "number"},
        "exit_code": {"type": ["integer", "null"]},
        "session_id": {"type": ["integer", "null"]},
        "original_token_count": {"type": ["integer", "null"]},
        "output": {"type": "string"},
    },
    "required": ["chunk_id", "wall_time_seconds", "exit_code", "session_id", "output"],
}
KILL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "session_id": {"type": "integer"},
        "exit_code": {"type": ["integer", "null"]},
        "output": {"type": "string"},
    },
    "required": ["session_id", "exit_code", "output"],
}
LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"sessions": {"type": "array", "items": {"type": "object"}}},
    "required": ["sessions"],
}

_DESTRUCTIVE = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def build_server(
    config: ShellConfig | None = None, *, name: str = "toolwire-shell", **server_options: Any
) -> Server:
    """A server running commands as `config` says.

    Args:
        config: The settings (defaults: no roots, any command through /bin/sh).
        name: The server's name.
        **server_options: Further `toolwire.Server` options (`auth=`, `version=`, ...).

    Raises:
        CommandRefused: The configuration is refused (a launcher allowed, a root missing).
    """
    config = config or ShellConfig()
    policy = config.policy()
    serving: list[SessionStore] = []  # the store while the lifespan is held

    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[_State]:
        become_subreaper()
        runner = Runner(policy, max_processes=config.max_processes)
        sessions = SessionStore(config.max_sessions, config.session_idle_seconds)
        serving.append(sessions)
        try:
            yield _State(config, runner, sessions)
        finally:
            serving.remove(sessions)
            sessions.end_all()
            runner.close()

    async def mcp_session_ended(session_id: str) -> None:
        for sessions in serving:
            sessions.end_mcp_session(session_id)

    mode = "without a shell, only these programs: " + ", ".join(sorted(config.allow))
    instructions = (
        "Runs commands on this machine "
        + (mode if config.allow else "with /bin/sh")
        + (
            "; working directories must lie under " + ", ".join(str(r) for r in policy.roots)
            if policy.roots
            else ""
        )
        + ". Stdin is at end of file: use exec_command and write_stdin for interactive programs."
    )
    server_options.setdefault("version", "0.1.0")
    server = Server(
        name,
        instructions=instructions,
        lifespan=lifespan,
        context_factory=_owner,
        **server_options,
    )
    server.on_session_end(mcp_session_ended)
    common: dict[str, Any] = {"failure_error_function": _failure_text, "strict_mode": False}
    server.tool(name="shell", annotations=_DESTRUCTIVE, output_schema=SHELL_SCHEMA, **common)(shell)
    server.tool(name="exec_command", annotations=_DESTRUCTIVE, output_schema=EXEC_SCHEMA, **common)(
        exec_command
    )
    server.tool(name="write_stdin", annotations=_DESTRUCTIVE, output_schema=EXEC_SCHEMA, **common)(
        write_stdin
    )
    server.tool(name="kill_session", annotations=_DESTRUCTIVE, output_schema=KILL_SCHEMA, **common)(
        kill_session
    )
    server.tool(
        name="list_sessions",
        annotations={"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
        output_schema=LIST_SCHEMA,
        **common,
    )(list_sessions)
    return server
