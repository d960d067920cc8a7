"""Approval of remote MCP tool calls: the `require_approval` policy (the Agents SDK's settings and
messages, plus "annotations": ask about every tool not annotated as harmless), the callback's
request and answer, and `note_call`, which carries a call's run to the gate in `call_tool`.
Without a callback a tool carries `needs_approval` and an SDK run pauses; with one, the gate asks
it right before sending, so a denied call never reaches the server. The same callback answers an
OpenAI-hosted MCP tool's requests (`HostedMCPTool`)."""

from __future__ import annotations

import inspect
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Literal, NotRequired, Self, TypedDict

from ..context import RunContextWrapper
from ..errors import UserError

__all__ = [
    "ApprovalPolicy",
    "CallScope",
    "HostedMCPTool",
    "MCPApprovalRequestData",
    "MCPToolApprovalFunction",
    "MCPToolApprovalFunctionResult",
    "MCPToolApprovalRequest",
    "RemoteTool",
    "ask_for_approval",
    "callback_for",
    "field_of",
    "gate_reason",
    "note_call",
    "noted_call",
    "resolved",
    "take_call",
    "text_of",
]


@dataclass
class MCPToolApprovalRequest:
    """What an approval callback is asked about (the Agents SDK's shape).

    Attributes:
        ctx_wrapper: The run context of the call.
        data: The call: `.name` (the tool), `.arguments` (a JSON string), `.server_label`
            and `.id`. For a hosted MCP tool it is the Responses API `mcp_approval_request`
            item itself; for a local adapter an `MCPApprovalRequestData` with the same fields.
    """

    ctx_wrapper: RunContextWrapper[Any]
    data: Any


class MCPToolApprovalFunctionResult(TypedDict):
    """An approval callback's answer: `approve`, and optionally why (`reason`)."""

    approve: bool
    reason: NotRequired[str]


MCPToolApprovalFunction = Callable[
    [MCPToolApprovalRequest],
    MCPToolApprovalFunctionResult | Awaitable[MCPToolApprovalFunctionResult],
]


@dataclass(frozen=True)
class MCPApprovalRequestData:
    """A remote-tool call awaiting approval, shaped like a Responses `mcp_approval_request`:
    `id` (generated when the caller gave none), `arguments` (JSON), `name`, `server_label`."""

    id: str
    arguments: str
    name: str
    server_label: str
    type: Literal["mcp_approval_request"] = "mcp_approval_request"


# (run context, agent, the remote tool) -> does this call need approval?
ApprovalPredicate = Callable[[RunContextWrapper[Any], Any, Any], "bool | Awaitable[bool]"]

_ABSENT = object()


async def resolved(value: Any) -> Any:
    """`value`, awaited when it is awaitable (what a sync-or-async callback returned)."""
    return await value if inspect.isawaitable(value) else value


def field_of(item: Any, key: str) -> Any:
    """`key` of a wire item (a dict, or a model), None when absent. A model is read by its
    snake_case name first: beside fastmcp, `mcp` 2's camelCase names warn on their first read."""
    if item is None:
        return None
    if isinstance(item, Mapping):
        return item.get(key)
    snake = "".join(f"_{char.lower()}" if char.isupper() else char for char in key)
    found = getattr(item, snake, _ABSENT)
    return getattr(item, key, None) if found is _ABSENT else found


def text_of(result: Any) -> str:
    """The text blocks of a `CallToolResult` (a model or a dict), joined by newlines."""
    blocks = field_of(result, "content") or ()
    texts = [field_of(block, "text") for block in blocks if field_of(block, "type") == "text"]
    return "\n".join(text for text in texts if isinstance(text, str))


def annotations_ask(annotations: object) -> bool:
    """Whether the "annotations" policy asks about a tool: unless `destructiveHint` is false,
    or `readOnlyHint` is true without `destructiveHint: true` (MCP reads silence as destructive).
    """
    destructive = field_of(annotations, "destructiveHint")
    if destructive is True:
        return True
    if destructive is False:
        return False
    return field_of(annotations, "readOnlyHint") is not True


# Reading a `require_approval` setting: the SDK's forms, and its messages for bad ones (only a
# plain `dict` is a table; other mappings are refused, as the SDK refuses them).


def _bad_value(where: str, value: object) -> UserError:
    return UserError(
        f"Invalid require_approval value at {where}: expected 'always' or 'never', got {value!r}."
    )


def _flag(value: object, where: str) -> bool:
    """One "always"/"never" (or bool) value as a bool; anything else is refused."""
    if value == "always" or value is True:
        return True
    if value == "never" or value is False:
        return False
    raise _bad_value(where, value)


def _names_block(setting: dict[Any, Any], side: str) -> frozenset[str]:
    """The tool names under `side` ("always"/"never") of a tool-list setting, checked."""
    if side not in setting:
        return frozenset()
    block = setting[side]
    if not isinstance(block, dict):
        raise UserError(
            f"Invalid require_approval.{side}: expected an object with tool_names, "
            f"got {type(block).__name__}."
        )
    names = block.get("tool_names", [])
    where = f"require_approval.{side}.tool_names"
    if not isinstance(names, list):
        raise UserError(
            f"Invalid require_approval tool_names at {where}: expected a list of strings, "
            f"got {type(names).__name__}."
        )
    for index, name in enumerate(names):
        if not isinstance(name, str):
            raise UserError(
                f"Invalid require_approval tool name at {where}[{index}]: expected a string, "
                f"got {type(name).__name__}."
            )
    return frozenset(names)


def _tool_table(setting: dict[Any, Any]) -> dict[Any, bool]:
    """A dict setting as a tool name -> "ask?" table: either a table of names, or the
    `{"always": {"tool_names": [...]}, "never": ...}` lists (only a nested `tool_names` marks
    those, since a tool may be named "always")."""
    if not any(
        isinstance(setting.get(side), dict) and "tool_names" in setting[side]
        for side in ("always", "never")
    ):
        return {key: _flag(value, f"require_approval[{key!r}]") for key, value in setting.items()}
    extra = [key for key in setting if key not in ("always", "never")]
    if extra:
        raise UserError(
            f"Invalid require_approval tool list policy: unexpected keys {sorted(extra, key=str)}; "
            "expected only 'always' and 'never'."
        )
    ask = _names_block(setting, "always")
    skip = _names_block(setting, "never")
    both = ask & skip
    if both:
        raise UserError(
            "Invalid require_approval tool list policy: tool names cannot appear in both "
            f"always and never: {sorted(both)}."
        )
    return {**dict.fromkeys(skip, False), **dict.fromkeys(ask, True)}


@dataclass(frozen=True)
class ApprovalPolicy:
    """A checked `require_approval` setting: a "table" of tool name -> "ask?" (`default` for a
    tool not in it), "annotations", or a "predicate" (asked per call)."""

    kind: Literal["table", "annotations", "predicate"]
    table: Mapping[Any, bool] = field(default_factory=dict)
    default: bool = False
    predicate: ApprovalPredicate | None = None

    @classmethod
    def resolve(cls, require_approval: object, *, has_callback: bool) -> ApprovalPolicy:
        """Check a `require_approval` setting (the SDK's forms, or "annotations").

        With a callback to answer (`has_callback`), None means "annotations", not "never".
        """
        setting = require_approval
        if setting is None:
            return cls("annotations") if has_callback else cls("table")
        if setting == "annotations":
            return cls("annotations")
        if isinstance(setting, str | bool):
            return cls("table", default=_flag(setting, "require_approval"))
        if isinstance(setting, dict):
            return cls("table", table=_tool_table(setting))
        if callable(setting):
            return cls("predicate", predicate=setting)
        raise _bad_value("require_approval", setting)

    def requires(self, tool_name: str, annotations: Mapping[str, Any] | None) -> bool:
        """Whether a call to this tool must be approved, as far as known before the call (a
        predicate answers per call only: True here keeps the tool gated)."""
        if self.kind == "table":
            return self.table.get(tool_name, self.default)
        return annotations_ask(annotations) if self.kind == "annotations" else True

    def needs_approval_for(
        self,
        *,
        tool_name: str,
        annotations: Mapping[str, Any] | None,
        agent: Any = None,
        remote_tool: Any = None,
    ) -> bool | Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]:
        """The value for a tool's `needs_approval`: a predicate is asked per call, and without an
        agent (outside a run) the call is asked about, as in the Agents SDK."""
        predicate = self.predicate
        if predicate is None or agent is None:
            return self.requires(tool_name, annotations)

        async def per_call(run_context: RunContextWrapper[Any], _args: Any, _call_id: str) -> bool:
            return bool(await resolved(predicate(run_context, agent, remote_tool)))

        return per_call


async def ask_for_approval(
    callback: MCPToolApprovalFunction, run_context: Any, data: Any
) -> MCPToolApprovalFunctionResult:
    """Put one call (`data`) to an approval callback (sync or async); its answer, refused with a
    `UserError` unless it is `{"approve": bool, "reason"?: str}`."""
    answer = await resolved(callback(MCPToolApprovalRequest(ctx_wrapper=run_context, data=data)))
    if not isinstance(answer, Mapping) or not isinstance(answer.get("approve"), bool):
        raise UserError(
            "on_approval_request must return a dict like {'approve': True} or "
            f"{{'approve': False, 'reason': '...'}}, got {answer!r}."
        )
    reason = answer.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise UserError(f"on_approval_request's 'reason' must be a string, got {reason!r}.")
    checked: MCPToolApprovalFunctionResult = {"approve": answer["approve"]}
    if reason is not None:
        checked["reason"] = reason
    return checked


def callback_for(given: Any, server: Any = None) -> MCPToolApprovalFunction | None:
    """`given` (refused with a `UserError` unless callable or None), else `server`'s callback."""
    if given is not None and not callable(given):
        raise UserError(f"on_approval_request must be callable, got {given!r}.")
    return given or getattr(server, "on_approval_request", None)


@dataclass
class RemoteTool:
    """A server's tool that runs a local tool's calls, and the callback answering approvals of
    them (None: nobody answers, the run pauses)."""

    server: Any
    name: str
    callback: MCPToolApprovalFunction | None

    @classmethod
    def checked(
        cls, server: Any, name: str, on_approval_request: Any, names: Mapping[str, Any], **more: Any
    ) -> Self:
        """A remote tool with `on_approval_request`, else the server's callback. Refused
        (UserError naming the option): a callback that is not callable, a `server` that cannot
        call tools, and a name in `names` (option -> value) that is not a non-empty string,
        which would all fail only at the model's first call."""
        callback = callback_for(on_approval_request, server)
        if not callable(getattr(server, "call_tool", None)):
            raise UserError(
                "server must be an MCP server with call_tool (toolwire's MCPServerStdio, "
                f"MCPServerStreamableHttp or MCPServerSse, or the SDK's), got {server!r}."
            )
        for option, value in names.items():
            if not isinstance(value, str) or not value:
                raise UserError(
                    f"{option} must be a tool name (a non-empty string), got {value!r}."
                )
        return cls(server, name, callback, **more)

    async def ask(
        self, run_context: Any, arguments: Mapping[str, Any], call_id: object
    ) -> MCPToolApprovalFunctionResult:
        """Put one call to the callback as an `MCPApprovalRequestData` (an id is made up when
        `call_id` is not a non-empty string)."""
        assert self.callback is not None
        data = MCPApprovalRequestData(
            id=call_id if isinstance(call_id, str) and call_id else f"mcpr_{uuid.uuid4().hex}",
            arguments=json.dumps(dict(arguments), ensure_ascii=False),
            name=self.name,
            server_label=str(getattr(self.server, "name", "")),
        )
        return await ask_for_approval(self.callback, run_context, data)

    async def call(self, arguments: dict[str, Any], run_context: Any) -> Any:
        """Send a call whose approval is settled (the server's gate does not ask again); the
        server judges the arguments (a strict schema lists defaulted ones as required, and the
        SDK leaves out those the model did not set)."""
        note_call(CallScope(self.server, self.name, arguments, run_context, approved=True))
        send = getattr(self.server, "call_tool_unchecked", self.server.call_tool)
        return await send(self.name, arguments)


@dataclass
class CallScope:
    """The run a remote call belongs to, noted in a context variable just before the call (the
    SDK calls `call_tool` with the name and arguments only). Taken once, so one left behind never
    speaks for a later call; `approved`: the SDK settled it already, the gate does not ask."""

    owner: object
    tool_name: str
    arguments: Mapping[str, Any] | None
    run_context: Any
    callback: MCPToolApprovalFunction | None = None
    agent: Any = None
    approved: bool = False
    taken: bool = False


_current_call: ContextVar[CallScope | None] = ContextVar("toolwire_call_scope", default=None)


def note_call(scope: CallScope) -> None:
    """Say which run the next call to `scope.owner` of `scope.tool_name` belongs to."""
    _current_call.set(scope)


def noted_call(owner: object) -> CallScope | None:
    """The scope noted for a call to `owner` that no call has taken yet, if any."""
    scope = _current_call.get()
    if scope is None or scope.taken or scope.owner is not owner:
        return None
    return scope


def take_call(
    owner: object, tool_name: str, arguments: Mapping[str, Any] | None
) -> CallScope | None:
    """The scope noted for exactly this call (same server, tool and arguments), used up."""
    scope = noted_call(owner)
    if scope is None or scope.tool_name != tool_name:
        return None
    if dict(scope.arguments or {}) != dict(arguments or {}):
        return None
    scope.taken = True
    return scope


def gate_reason(annotations: object) -> str:
    """Why the "annotations" policy asks about a tool, in words true for that tool."""
    if field_of(annotations, "destructiveHint") is True:
        return "it is marked destructive (destructiveHint: true)"
    return "its annotations do not say it is read-only or non-destructive"


@dataclass
class HostedMCPTool:
    """An MCP server the model provider calls for you (OpenAI Responses `mcp` tool).

    Attributes:
        tool_config: The Responses `mcp` tool definition (`type`, `server_label`,
            `server_url` or `connector_id`, `require_approval`, ...), sent as is.
        on_approval_request: Decides the provider's approval requests at once; without it
            an Agents SDK run pauses with an approval interruption instead.
    """

    tool_config: Mapping[str, Any]
    on_approval_request: MCPToolApprovalFunction | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.tool_config, Mapping):
            raise UserError(
                "HostedMCPTool.tool_config must be a Responses API 'mcp' tool definition "
                f"(a dict), got {type(self.tool_config).__name__}."
            )
        if self.tool_config.get("type") != "mcp":
            raise UserError(
                "HostedMCPTool.tool_config must have type 'mcp', "
                f"got {self.tool_config.get('type')!r}."
            )
        if self.on_approval_request is not None and not callable(self.on_approval_request):
            raise UserError(
                "HostedMCPTool.on_approval_request must be callable, "
                f"got {type(self.on_approval_request).__name__}."
            )

    @property
    def name(self) -> str:
        """The tool's name, as the Agents SDK names hosted MCP tools."""
        return "hosted_mcp"

    async def answer(
        self, item: Any, *, context: RunContextWrapper[Any] | None = None
    ) -> dict[str, Any]:
        """Answer one `mcp_approval_request` item with `on_approval_request`.

        Args:
            item: The `mcp_approval_request` output item, as the `openai` model or as a dict.
            context: The run context handed to the callback (an empty one when None).

        Returns:
            The `mcp_approval_response` input item to send back: `approval_request_id`,
            `approve`, `type` and, when the callback gave one, `reason`.

        Raises:
            UserError: No `on_approval_request` was given, or the item or answer is malformed.
        """
        if self.on_approval_request is None:
            raise UserError(
                "HostedMCPTool has no on_approval_request: approval requests for "
                f"'{self.tool_config.get('server_label')}' must be answered by a person."
            )
        kind = field_of(item, "type")
        if kind != "mcp_approval_request":
            raise UserError(f"Expected an 'mcp_approval_request' item, got type {kind!r}.")
        for key in ("id", "name", "arguments", "server_label"):
            value = field_of(item, key)
            if not isinstance(value, str):
                raise UserError(
                    f"The mcp_approval_request item has no string '{key}' (got {value!r})."
                )
        # A dict item is read by attribute too, as the model item is.
        data = SimpleNamespace(**item) if isinstance(item, Mapping) else item
        ctx = context if context is not None else RunContextWrapper(context=None)
        answer = await ask_for_approval(self.on_approval_request, ctx, data)
        return {
            "approval_request_id": field_of(item, "id"),
            "type": "mcp_approval_response",
            **answer,
        }

    def to_agents(self) -> Any:
        """The Agents SDK's `HostedMCPTool`, wired to the same callback."""
        from agents import HostedMCPTool as AgentsHostedMCPTool

        callback = self.on_approval_request
        if callback is None:
            return AgentsHostedMCPTool(tool_config=dict(self.tool_config))  # type: ignore[arg-type]

        async def relay(request: Any) -> MCPToolApprovalFunctionResult:
            # The SDK hands its own request object; ours has the same two fields.
            return await ask_for_approval(callback, request.ctx_wrapper, request.data)

        return AgentsHostedMCPTool(
            tool_config=dict(self.tool_config),  # type: ignore[arg-type]
            on_approval_request=relay,
        )
