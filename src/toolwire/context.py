"""Run and tool contexts handed to tool functions whose first parameter asks for them
(`RunContextWrapper[...]` or `ToolContext[...]`), as in the Agents SDK. Served over MCP, a
`ToolContext` also reports progress and logs to the client (nothing, when nobody listens) and
asks it questions (`NoBackChannelError`, when there is no client to ask).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

from .errors import NoBackChannelError, UserError

__all__ = [
    "CallReporter",
    "ElicitResult",
    "RunContextWrapper",
    "SampleResult",
    "ToolContext",
    "Usage",
]

TContext = TypeVar("TContext")


@dataclass
class Usage:
    """Token usage of the run so far (kept for parity with the Agents SDK; toolwire counts none)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


DEFAULT_ASK_TIMEOUT = 600.0
"""Seconds a request to the client waits for its answer unless told otherwise."""


@dataclass(frozen=True, eq=False)
class ElicitResult:
    """The client's answer to `ToolContext.elicit`.

    Attributes:
        action: "accept" (the user submitted the form), "decline" or "cancel".
        content: What the user entered when accepted (a dict, or the form's model); else None.
        raw: The result as the client sent it.
    """

    action: Literal["accept", "decline", "cancel"]
    content: Any = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, eq=False)
class SampleResult:
    """The client's answer to `ToolContext.sample`: one message from its model.

    Attributes:
        text: The message's text blocks, joined ("" when it holds no text).
        model: The name of the model that wrote it, as the client reports it.
        role: The message's role ("assistant").
        stop_reason: Why generation stopped ("endTurn", "maxTokens", ...), when reported.
        raw: The result as the client sent it.
    """

    text: str
    model: str
    role: str = "assistant"
    stop_reason: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)


class CallReporter(Protocol):
    """The link between a running tool and the MCP client; the protocol layer provides one."""

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Report how far the call has come."""

    async def log(self, level: str, data: Any, logger: str | None) -> None:
        """Pass one of the tool's log records on to whoever is listening."""

    async def elicit(
        self, message: str, schema: Any, timeout: float | None, key: str | None
    ) -> ElicitResult:
        """Ask the user for structured input through the client."""

    async def sample(
        self, messages: Any, options: dict[str, Any], timeout: float | None, key: str | None
    ) -> SampleResult:
        """Ask the client's model for a completion."""

    async def list_roots(self, timeout: float | None, key: str | None) -> list[dict[str, Any]]:
        """Ask the client for its roots."""


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

    @property
    def session_id(self) -> str | None:
        """The opaque id of the MCP session this call comes in (see `Server.on_session_end`).

        None outside MCP and without a session (stateless HTTP, the 2026-07-28 era)."""
        return getattr(self.reporter, "session_id", None)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the client how far the call has come, if it sent a progress token.

        Args:
            progress: Work done so far; must grow from one report to the next.
            total: Total work, when known.
            message: A short human-readable status.
        """
        if self.reporter is not None:
            await self.reporter.progress(progress, total, message)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send the client a `notifications/message`, unless below its `logging/setLevel`.

        Args:
            level: A syslog severity name (from "debug" up to "emergency").
            data: Any JSON-serializable value; usually a string.
            logger: An optional logger name shown by the client.
        """
        if self.reporter is not None:
            await self.reporter.log(level, data, logger)

    async def close_sse_stream(self) -> None:
        """End the SSE response carrying this call, which runs on (SSE polling, SEP-1699).

        The client reconnects with `Last-Event-ID` for the rest. Does nothing but on streamable
        HTTP with SSE responses.
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

    # Asking the client: in 2026-07-28 the tool runs again from the start with the answers
    # (docs/server.md, "Asking the client").

    def _channel(self, method: str) -> CallReporter:
        if self.reporter is None:
            raise NoBackChannelError(
                method,
                f"Cannot send {method!r}: this tool call is not served over MCP, so there is "
                "no client to ask.",
            )
        return self.reporter

    async def elicit(
        self,
        message: str,
        schema: Mapping[str, Any] | type[Any],
        *,
        timeout: float | None = DEFAULT_ASK_TIMEOUT,
        key: str | None = None,
    ) -> ElicitResult:
        """Ask the user for input through the client (MCP `elicitation/create`, form mode).

        Args:
            message: What to tell the user.
            schema: The form: a JSON Schema object of flat primitive properties (string,
                number, integer, boolean, single- or multi-select enums, with defaults), or a
                pydantic model class with such fields (the answer is validated into one).
            timeout: Seconds to wait for the answer (None: as long as the call lives); in
                2026-07-28 nothing waits: the call ends instead.
            key: The input request's key in a 2026-07-28 input-required result (default:
                from the order of the questions).

        Returns:
            The user's answer: `action` and, when accepted, `content`.

        Raises:
            UserError: The schema is outside what elicitation allows (the error names the
                property), or `timeout` or `key` is of the wrong kind.
            ClientCapabilityError: The client did not declare `elicitation`.
            NoBackChannelError: The transport cannot carry the request.
            ClientResponseError: The client answered with an error or a malformed result.
            ClientTimeoutError: No answer within `timeout`.
        """
        _check_asking("elicit", timeout, key)
        channel = self._channel("elicitation/create")
        return await channel.elicit(message, schema, timeout, key)

    async def sample(
        self,
        prompt_or_messages: str | Sequence[str | Mapping[str, Any]],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
        stop_sequences: Sequence[str] | None = None,
        model_preferences: Mapping[str, Any] | None = None,
        include_context: Literal["none", "thisServer", "allServers"] | None = None,
        metadata: Mapping[str, Any] | None = None,
        timeout: float | None = DEFAULT_ASK_TIMEOUT,
        key: str | None = None,
    ) -> SampleResult:
        """Ask the client's model for a completion (MCP `sampling/createMessage`).

        Args:
            prompt_or_messages: A prompt, or a list of user messages (strings) and MCP
                `SamplingMessage` dicts.
            max_tokens: The most tokens the client may generate.
            system_prompt: A system prompt the client may use.
            temperature: Sampling temperature.
            stop_sequences: Sequences that end generation.
            model_preferences: MCP `ModelPreferences` (hints, priorities).
            include_context: "none", "thisServer" or "allServers".
            metadata: Provider-specific metadata passed through.
            timeout: Seconds to wait for the answer (None: as long as the call lives).
            key: The input request's key in a 2026-07-28 input-required result.

        Returns:
            The sampled message.

        Raises:
            UserError: A message or option is malformed (the error says which).
            ClientCapabilityError: The client did not declare `sampling`.
            NoBackChannelError: The transport cannot carry the request.
            ClientResponseError: The client answered with an error or a malformed result.
            ClientTimeoutError: No answer within `timeout`.
        """
        _check_asking("sample", timeout, key)
        if isinstance(stop_sequences, str | bytes):
            raise UserError(
                "sample: stop_sequences must be a list of strings, not one "
                f"{type(stop_sequences).__name__}"
            )
        if temperature is not None and (
            isinstance(temperature, bool) or not isinstance(temperature, int | float)
        ):
            raise UserError(f"sample: temperature must be a number, not {temperature!r}")
        options: dict[str, Any] = {"maxTokens": max_tokens}
        for name, value in (
            ("systemPrompt", system_prompt),
            ("temperature", temperature),
            ("stopSequences", list(stop_sequences) if stop_sequences is not None else None),
            ("modelPreferences", model_preferences),
            ("includeContext", include_context),
            ("metadata", metadata),
        ):
            if value is not None:
                options[name] = value
        channel = self._channel("sampling/createMessage")
        return await channel.sample(prompt_or_messages, options, timeout, key)

    async def list_roots(
        self, *, timeout: float | None = DEFAULT_ASK_TIMEOUT, key: str | None = None
    ) -> list[dict[str, Any]]:
        """Ask the client for its roots (MCP `roots/list`).

        Args:
            timeout: Seconds to wait for the answer (None: as long as the call lives).
            key: The input request's key in a 2026-07-28 input-required result.

        Returns:
            The roots, as MCP `Root` dicts (`uri`, optional `name`).

        Raises:
            UserError: `timeout` or `key` is of the wrong kind.
            ClientCapabilityError: The client did not declare `roots`.
            NoBackChannelError: The transport cannot carry the request.
            ClientResponseError: The client answered with an error or a malformed result.
            ClientTimeoutError: No answer within `timeout`.
        """
        _check_asking("list_roots", timeout, key)
        channel = self._channel("roots/list")
        return await channel.list_roots(timeout, key)


def _check_asking(method: str, timeout: object, key: object) -> None:
    """Refuse (UserError naming the option) a wait that is no number of seconds > 0 and a key
    that is no string: they failed inside the wait, or in the client's answer."""
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        raise UserError(
            f"{method}: timeout must be a number of seconds > 0 or None, not {timeout!r}"
        )
    if key is not None and not isinstance(key, str):
        raise UserError(f"{method}: key must be a string or None, not {type(key).__name__}")
