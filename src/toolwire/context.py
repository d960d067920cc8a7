"""Run and tool contexts handed to tool functions that ask for them.

A tool function whose first parameter is annotated `RunContextWrapper[...]` or
`ToolContext[...]` receives the context of the call, exactly as in the Agents SDK. Beyond the
SDK, a `ToolContext` served over MCP can report progress and log to the client; when nobody
listens (a direct call, an Agents SDK run) those methods do nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["CallReporter", "RunContextWrapper", "ToolContext", "Usage"]

TContext = TypeVar("TContext")

LogLevel = str  # one of the RFC 5424 names MCP uses: debug, info, notice, warning, error, ...


@dataclass
class Usage:
    """Token usage of the run so far (kept for parity with the Agents SDK; toolwire counts none)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


class CallReporter(Protocol):
    """Where a running tool's progress and log messages go; the protocol layer provides one."""

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Report how far the call has come."""

    async def log(self, level: LogLevel, data: Any, logger: str | None) -> None:
        """Pass one of the tool's log records on to whoever is listening."""


@dataclass(eq=False)
class RunContextWrapper(Generic[TContext]):
    """Wraps the context object of a run, as the Agents SDK's `RunContextWrapper` does.

    Args:
        context: The object the caller passed as the run's context (or None).
        usage: Token usage of the run so far.
        turn_input: The input items of the current turn.
        tool_input: Structured input of the current agent-tool run, when there is one.
    """

    context: TContext
    usage: Usage = field(default_factory=Usage)
    turn_input: list[Any] = field(default_factory=list)
    tool_input: Any | None = None


_MISSING: Any = object()


@dataclass(eq=False, init=False)
class ToolContext(RunContextWrapper[TContext]):
    """The context of one tool call.

    Args:
        context: The run's context object.
        usage: Token usage of the run so far.
        tool_name: Which tool this call is for.
        tool_call_id: The id of the call.
        tool_arguments: The raw JSON arguments of the call.
        tool_call: The model's tool-call item, when there is one.
        tool_namespace: The namespace of the tool, when there is one.
        agent: The running agent, when there is one.
        run_config: The run's configuration, when there is one.
        turn_input: The input items of the current turn.
        tool_input: Structured input of the current agent-tool run.
        reporter: Where `report_progress` and `log` go; None drops them.
    """

    # Defaults only satisfy dataclass field ordering; __init__ below sets every field.
    tool_name: str = ""
    tool_call_id: str = ""
    tool_arguments: str = ""
    tool_call: Any | None = None
    tool_namespace: str | None = None
    agent: Any | None = None
    run_config: Any | None = None
    reporter: CallReporter | None = field(default=None, repr=False)

    def __init__(
        self,
        context: TContext,
        usage: Usage | None = None,
        tool_name: str = _MISSING,
        tool_call_id: str = _MISSING,
        tool_arguments: str = _MISSING,
        tool_call: Any | None = None,
        *,
        tool_namespace: str | None = None,
        agent: Any | None = None,
        run_config: Any | None = None,
        turn_input: list[Any] | None = None,
        tool_input: Any | None = None,
        reporter: CallReporter | None = None,
    ) -> None:
        if _MISSING in (tool_name, tool_call_id, tool_arguments):
            for label, value in (
                ("tool_name", tool_name),
                ("tool_call_id", tool_call_id),
                ("tool_arguments", tool_arguments),
            ):
                if value is _MISSING:
                    raise ValueError(f"{label} must be passed to ToolContext")
        # RunContextWrapper's fields, set here rather than through its __init__: a context is
        # built for every call a server runs.
        self.context = context
        self.usage = Usage() if usage is None else usage
        self.turn_input = list(turn_input) if turn_input else []
        self.tool_input = tool_input
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.tool_arguments = tool_arguments
        self.tool_call = tool_call
        self.tool_namespace = tool_namespace
        self.agent = agent
        self.run_config = run_config
        self.reporter = reporter

    @property
    def qualified_tool_name(self) -> str:
        """`namespace.name` when the tool has a namespace, else the name."""
        if self.tool_namespace:
            return f"{self.tool_namespace}.{self.tool_name}"
        return self.tool_name

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the client how far the call has come (MCP `notifications/progress`).

        Does nothing unless the caller asked for progress (sent a progress token).

        Args:
            progress: Work done so far; must grow from one report to the next.
            total: Total work, when known.
            message: A short human-readable status.
        """
        if self.reporter is not None:
            await self.reporter.progress(progress, total, message)

    async def log(self, level: LogLevel, data: Any, logger: str | None = None) -> None:
        """Tell the MCP client something about this call, as a `notifications/message`.

        Messages below the client's `logging/setLevel` threshold are dropped.

        Args:
            level: A syslog severity name (from "debug" up to "emergency").
            data: Any JSON-serializable value; usually a string.
            logger: An optional logger name shown by the client.
        """
        if self.reporter is not None:
            await self.reporter.log(level, data, logger)

    async def close_sse_stream(self) -> None:
        """End the SSE response carrying this call now, leaving the call running (SSE polling,
        SEP-1699): the client reconnects with `Last-Event-ID` and receives the rest there.

        Only streamable HTTP with SSE responses has such a stream; elsewhere this does nothing.
        """
        closer = getattr(self.reporter, "close_stream", None)
        if closer is not None:
            await closer()

    async def debug(self, data: Any) -> None:
        """Log at debug level to the client."""
        await self.log("debug", data)

    async def info(self, data: Any) -> None:
        """Log at info level to the client."""
        await self.log("info", data)

    async def warning(self, data: Any) -> None:
        """Log at warning level to the client."""
        await self.log("warning", data)

    async def error(self, data: Any) -> None:
        """Log at error level to the client."""
        await self.log("error", data)
