"""`toolwire tools TARGET` and `toolwire call TARGET TOOL`: any MCP server, from the shell.

TARGET is a command line that starts a stdio server (`"python server.py"`, `"npx -y pkg"`)
or an http(s) URL (streamable HTTP; legacy SSE when the path ends in /sse). Every failure
(bad arguments, an unknown tool, a server that cannot be reached) ends in one line on stderr
and a non-zero exit status: 1 when the tool ran and failed or the call was declined, 2 when
nothing could be called.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..schema.problems import DIALECTS, schema_problems
from ._remote import (
    RemoteError,
    RemoteTarget,
    connect,
    describe_failure,
    last_line,
    parse_headers,
    parse_remote_target,
)

__all__ = ["call_command", "tools_command"]

_MAX_PAGES = 100  # a server whose cursor never ends must not keep us listing for ever

if TYPE_CHECKING:
    from ..client.base import MCPClientServer


class _Refusal(Exception):
    """Stop with this one-line message and exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _wire(model: Any) -> dict[str, Any]:
    """An `mcp` model as it travels on the wire (camelCase keys, no unset fields)."""
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


async def _list_tools(server: MCPClientServer) -> list[dict[str, Any]]:
    return [_wire(tool) for tool in await server.list_tools()]


def _with_problems(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    problems = {
        dialect: [str(problem) for problem in schema_problems(schema, dialect)]
        for dialect in DIALECTS
    }
    return {**tool, "problems": problems}


def _run(args: argparse.Namespace, work: Any) -> int:
    """Connect, run `work(server, target)`, and turn every failure into one line.

    A stdio server's stderr (its logs, its tracebacks) is kept aside unless `--verbose`:
    the user reads the result, and the server's last line only when something failed.
    """
    command = work.__name__.removeprefix("_").removesuffix("_work")
    try:
        target = parse_remote_target(args.target)
        headers = parse_headers(args.header, target)
    except RemoteError as error:
        print(f"toolwire {command}: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        errlog = None if args.verbose or target.kind != "stdio" else log
        status, broke = _session(command, target, work, args.timeout, errlog, headers)
        if broke and errlog is not None and (said := last_line(errlog)):
            print(f"toolwire {command}: the server's stderr ended with: {said}", file=sys.stderr)
        return status


def _session(
    command: str,
    target: RemoteTarget,
    work: Any,
    timeout: float,
    errlog: TextIO | None,
    headers: dict[str, str],
) -> tuple[int, bool]:
    """Run the command's work; (exit status, whether talking to the server itself failed)."""

    async def session() -> int:
        async with connect(
            target, timeout=timeout, errlog=errlog, headers=headers, max_list_pages=_MAX_PAGES
        ) as server:
            result: int = await work(server, target)
            return result

    try:
        return asyncio.run(session()), False
    except _Refusal as refusal:
        print(f"toolwire {command}: {refusal}", file=sys.stderr)
        return refusal.status, False
    except KeyboardInterrupt:
        print(f"toolwire {command}: interrupted", file=sys.stderr)
        return 130, False
    except BaseException as error:  # the user gets one line, never a traceback
        wrapped = _refusal_inside(error)
        if wrapped is not None:
            print(f"toolwire {command}: {wrapped}", file=sys.stderr)
            return wrapped.status, False
        if isinstance(error, SystemExit):
            raise
        print(f"toolwire {command}: {describe_failure(target, error)}", file=sys.stderr)
        return 2, True


def _refusal_inside(error: BaseException) -> _Refusal | None:
    """Our own refusal, even when the client's task groups wrapped it in exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error if isinstance(error, _Refusal) else None


# -- toolwire tools -------------------------------------------------------------------------


def tools_command(args: argparse.Namespace) -> int:
    """List a remote server's tools, their schemas and the schema problems per provider."""
    from .inspect import render_tools

    as_json: bool = args.json

    async def _tools_work(server: MCPClientServer, target: RemoteTarget) -> int:
        tools = [_with_problems(tool) for tool in await _list_tools(server)]
        if as_json:
            text = json.dumps({"target": target.text, "tools": tools}, indent=2, ensure_ascii=False)
        else:
            text = render_tools(target.label, tools)
        print(text, flush=True)
        return 0

    return _run(args, _tools_work)


# -- toolwire call --------------------------------------------------------------------------


def _parse_arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise _Refusal(f"--args is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise _Refusal(f"--args must be a JSON object, got {type(value).__name__}: {text.strip()}")
    return value


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _confirm(tool: str, target: RemoteTarget, arguments: dict[str, Any]) -> bool:
    """Ask y/N on the terminal; anything but y/yes (EOF included) is a no."""
    shown = json.dumps(arguments, ensure_ascii=False)
    sys.stderr.write(
        f"Tool '{tool}' on {target.label} may change things (its annotations do not mark it "
        f"read-only).\nCall it with {shown}? [y/N] "
    )
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def _needs_approval(tool: dict[str, Any]) -> bool:
    from ..client.approvals import ApprovalPolicy

    policy = ApprovalPolicy.resolve("annotations", has_callback=True)
    return policy.requires(str(tool.get("name", "")), tool.get("annotations"))


def call_command(args: argparse.Namespace) -> int:
    """Call one tool of a remote server and print its result readably."""
    from ._progress import ProgressDisplay
    from ._render import render_result

    tool_name: str = args.tool
    try:
        arguments = _parse_arguments(args.args)
    except _Refusal as refusal:
        print(f"toolwire call: {refusal}", file=sys.stderr)
        return refusal.status
    save_dir = Path(args.save_dir) if args.save_dir else None

    async def _call_work(server: MCPClientServer, target: RemoteTarget) -> int:
        tools = {tool.get("name"): tool for tool in await _list_tools(server)}
        tool = tools.get(tool_name)
        if tool is None:
            known = ", ".join(sorted(str(name) for name in tools)) or "none"
            raise _Refusal(f"unknown tool {tool_name!r} on {target.label} (its tools: {known})")
        if _needs_approval(tool) and not args.yes:
            if not (_is_terminal(sys.stdin) and _is_terminal(sys.stderr)):
                raise _Refusal(
                    f"tool {tool_name!r} needs approval (its annotations do not mark it "
                    "read-only) and there is no terminal to ask on; pass --yes to call it anyway"
                )
            if not _confirm(tool_name, target, arguments):
                raise _Refusal("not approved; the tool was not called", status=1)
        display = ProgressDisplay(sys.stderr, live=_is_terminal(sys.stderr))
        try:
            # Unchecked: the server judges the arguments and its answer is shown as it is.
            result = await server.call_tool_unchecked(
                tool_name, arguments, progress_callback=display.update
            )
        finally:
            display.finish()
        wire = _wire(result)
        folder = save_dir or Path(tempfile.mkdtemp(prefix="toolwire-call-"))
        text = render_result(wire, save_dir=folder, stem=tool_name)
        if wire.get("isError"):
            print(f"toolwire call: tool {tool_name!r} reported an error:", file=sys.stderr)
            print(text, file=sys.stderr, flush=True)
            return 1
        if text:
            print(text, flush=True)
        return 0

    return _run(args, _call_work)
