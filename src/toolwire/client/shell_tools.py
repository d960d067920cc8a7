"""The Agents SDK's `ShellTool` and `LocalShellTool` run by a remote MCP server's `shell` tool:
its structured result (per command stdout, stderr, and an `exit` or `timeout` outcome) becomes the
SDK's `ShellResult`, or its text when it has none. A call is asked about unless the remote tool's
annotations say it is harmless; `LocalShellTool`, which the SDK cannot pause, refuses a call it
cannot ask about."""

from __future__ import annotations

import logging
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..errors import UserError
from .approvals import (
    MCPToolApprovalFunction,
    RemoteTool,
    annotations_ask,
    field_of,
    resolved,
    text_of,
)

if TYPE_CHECKING:
    from agents import LocalShellTool, ShellTool

__all__ = ["local_shell_tool", "shell_tool"]

logger = logging.getLogger("toolwire.client")

REJECTED = "Tool execution was not approved."

ShellNeedsApproval = bool | Callable[[Any, Any, str], "bool | Awaitable[bool]"] | None


class RemoteShellError(RuntimeError):
    """The remote `shell` tool answered with an error; the message is its text."""


def _command_outputs(data: Mapping[str, Any]) -> list[Any]:
    from agents import ShellCallOutcome, ShellCommandOutput

    outputs = []
    for entry in data.get("output") or ():
        outcome = entry.get("outcome")
        if not isinstance(outcome, Mapping):
            outcome = {}
        kind: Literal["exit", "timeout"] = "timeout" if outcome.get("type") == "timeout" else "exit"
        code = outcome.get("exit_code")
        command = entry.get("command")
        outputs.append(
            ShellCommandOutput(
                stdout=str(entry.get("stdout") or ""),
                stderr=str(entry.get("stderr") or ""),
                outcome=ShellCallOutcome(
                    type=kind,
                    exit_code=code
                    if isinstance(code, int) and not isinstance(code, bool)
                    else None,
                ),
                command=command if isinstance(command, str) else None,
            )
        )
    return outputs


def render_outputs(outputs: Sequence[Any]) -> str:
    """Shell outputs as the SDK writes them for the model (`LocalShellTool` returns text)."""
    if not outputs:
        return "(no output)"
    pieces = []
    for output in outputs:
        lines = [f"$ {output.command}"] if output.command else []
        out, err = output.stdout.rstrip("\n"), output.stderr.rstrip("\n")
        if out:
            lines.append(out)
        if err:
            lines.extend(["", "stderr:", err] if out else ["stderr:", err])
        if output.exit_code not in (None, 0):
            lines.append(f"exit code: {output.exit_code}")
        if output.status == "timeout":
            lines.append("status: timeout")
        pieces.append("\n".join(lines).strip() or "(no output)")
    return "\n\n".join(pieces)


def _checked_rule(needs_approval: Any) -> None:
    if not (needs_approval is None or isinstance(needs_approval, bool) or callable(needs_approval)):
        raise UserError(
            "needs_approval must be None, a bool or a (run_context, action, call_id) -> bool "
            f"function, got {needs_approval!r}."
        )


@dataclass
class _RemoteShell(RemoteTool):
    """The remote `shell` tool with the approval rule, for either tool."""

    needs_approval: ShellNeedsApproval = None

    async def must_ask(self, context: Any, action: Any, call_id: str) -> bool:
        if self.needs_approval is None:
            # The remote tool's annotations, from the server's last listing (listed if need be).
            def find(tools: Any) -> Any:
                return next((tool for tool in tools or () if tool.name == self.name), None)

            tool = find(getattr(self.server, "cached_tools", None))
            if tool is None:
                tool = find(await self.server.list_tools())
            return annotations_ask(getattr(tool, "annotations", None))
        if isinstance(self.needs_approval, bool):
            return self.needs_approval
        return bool(await resolved(self.needs_approval(context, action, call_id)))

    async def run(self, arguments: dict[str, Any], context: Any) -> Any:
        """Call the remote tool (approval settled); a `ShellResult`, or its text. Raises
        `RemoteShellError` for an `isError` answer."""
        from agents import ShellResult

        result = await self.call(arguments, context)
        if field_of(result, "isError"):
            raise RemoteShellError(text_of(result) or "the remote shell tool failed")
        data = field_of(result, "structuredContent")
        entries = data.get("output") if isinstance(data, Mapping) else None
        # Structured output of another shape is read as text, not half-understood.
        if not isinstance(entries, list) or not all(isinstance(one, Mapping) for one in entries):
            return text_of(result)
        limit = data.get("max_output_length")
        return ShellResult(
            output=_command_outputs(data),
            max_output_length=limit if isinstance(limit, int) else None,
        )


def _as_mapping(value: Any) -> dict[str, Any]:
    """A dict of a dict, a pydantic model or a dataclass; {} otherwise."""
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dict(dump())
    return dict(getattr(value, "__dict__", {}))


def shell_tool(
    server: Any,
    *,
    name: str = "shell",
    remote_tool: str = "shell",
    needs_approval: ShellNeedsApproval = None,
    on_approval_request: MCPToolApprovalFunction | None = None,
) -> ShellTool:
    """An `agents.ShellTool` whose commands run on `server`'s `shell` tool.

    Args:
        server: A connected toolwire client server (stdio, streamable HTTP or SSE).
        name: The tool's name for the model.
        remote_tool: The name of the server's tool taking `commands`, `timeout_ms` and
            `max_output_length`.
        needs_approval: None (ask unless the remote tool's annotations say it is harmless),
            a bool, or the SDK's `(run_context, action, call_id) -> bool` (sync or async).
        on_approval_request: Decides each call that needs approval (sync or async); without
            it the run is interrupted for `RunState.approve` / `reject`.

    Returns:
        The SDK's `ShellTool`, ready for `Agent(tools=[...])`.

    Raises:
        UserError: `needs_approval` is neither None, a bool nor a function,
            `on_approval_request` is not callable, `server` cannot call tools, or a tool
            name is not a non-empty string.
    """
    from agents import ShellTool

    _checked_rule(needs_approval)
    remote = _RemoteShell.checked(
        server,
        remote_tool,
        on_approval_request,
        {"name": name, "remote_tool": remote_tool},
        needs_approval=needs_approval,
    )

    async def execute(request: Any) -> Any:
        action = request.data.action
        arguments: dict[str, Any] = {"commands": list(action.commands)}
        for key in ("timeout_ms", "max_output_length"):
            if getattr(action, key) is not None:
                arguments[key] = getattr(action, key)
        return await remote.run(arguments, request.ctx_wrapper)

    async def on_approval(context: Any, item: Any) -> Any:
        call = item.raw_item
        action = _as_mapping(field_of(call, "action"))
        return await remote.ask(context, action, str(field_of(call, "call_id") or ""))

    return ShellTool(
        executor=execute,
        name=name,
        needs_approval=remote.must_ask,
        on_approval=on_approval if remote.callback is not None else None,
    )


def local_shell_tool(
    server: Any,
    *,
    remote_tool: str = "shell",
    needs_approval: ShellNeedsApproval = None,
    on_approval_request: MCPToolApprovalFunction | None = None,
) -> LocalShellTool:
    """An `agents.LocalShellTool` whose commands run on `server`'s `shell` tool.

    The action's argv is sent as one command line (`shlex.join`), its `working_directory` as
    `workdir`; `env` and `user` are not sent (the server decides them). The model reads the
    SDK's rendering of the outputs.

    Args:
        server: A connected toolwire client server.
        remote_tool: The name of the server's `shell` tool.
        needs_approval: None (ask unless the remote tool's annotations say it is harmless),
            a bool, or `(run_context, action, call_id) -> bool` (sync or async).
        on_approval_request: Decides each call that needs approval. The SDK cannot pause a
            run for this tool, so a call that needs approval without a callback is refused.

    Returns:
        The SDK's `LocalShellTool`.

    Raises:
        UserError: `needs_approval` is neither None, a bool nor a function,
            `on_approval_request` is not callable, `server` cannot call tools, or a tool
            name is not a non-empty string.
    """
    from agents import LocalShellTool

    _checked_rule(needs_approval)
    remote = _RemoteShell.checked(
        server,
        remote_tool,
        on_approval_request,
        {"remote_tool": remote_tool},
        needs_approval=needs_approval,
    )

    async def execute(request: Any) -> str:
        call = request.data
        action = call.action
        arguments: dict[str, Any] = {"commands": [shlex.join(list(action.command))]}
        if getattr(action, "timeout_ms", None):
            arguments["timeout_ms"] = action.timeout_ms
        if getattr(action, "working_directory", None):
            arguments["workdir"] = action.working_directory
        call_id = str(getattr(call, "call_id", "") or "")
        if await remote.must_ask(request.ctx_wrapper, action, call_id):
            if remote.callback is None:
                logger.warning(
                    "local_shell_tool: a call to %r needs approval and no on_approval_request "
                    "was given; refused",
                    remote_tool,
                )
                return REJECTED
            answer = await remote.ask(request.ctx_wrapper, arguments, call_id)
            if not answer["approve"]:
                return str(answer.get("reason") or REJECTED)
        try:
            result = await remote.run(arguments, request.ctx_wrapper)
        except RemoteShellError as error:
            return str(error)
        return result if isinstance(result, str) else render_outputs(result.output)

    return LocalShellTool(executor=execute)
