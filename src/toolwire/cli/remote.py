"""`toolwire tools TARGET` and `toolwire call TARGET TOOL`: any MCP server (a stdio command line
or an http(s) URL, legacy SSE when its path ends in /sse), from the shell. Every failure ends in
one line on stderr and exit status 1 (the tool ran and failed, or the call was declined) or 2
(nothing could be called); the client adapter (hence `mcp`) is imported only here."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO, cast
from urllib.parse import urlsplit, urlunsplit

from ..client.errors import shown_name
from ..schema.problems import DIALECTS, schema_problems
from ._render import StdoutClosed, end_for_closed_stdout, json_text, visible, write_stdout

__all__ = ["call_command", "tools_command"]

_MAX_PAGES = 100  # a server whose cursor never ends must not keep us listing for ever

if TYPE_CHECKING:
    from ..client.base import MCPClientServer


class _Refusal(Exception):
    """Stop with this one-line message and exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _say(command: str, message: str) -> None:
    """One line on stderr for a person; what the server said in it cannot drive the terminal."""
    print(visible(f"toolwire {command}: {message}"), file=sys.stderr, flush=True)


class _VisibleStderr(io.TextIOBase):
    """`--verbose`: a stdio server's stderr shown on ours, its control characters escaped."""

    def write(self, text: str) -> int:
        sys.stderr.write(visible(text))
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()


@dataclass(frozen=True)
class RemoteTarget:
    """Where the server is: `command` and `args` for stdio, `url` for http and sse."""

    kind: Literal["stdio", "http", "sse"]
    text: str
    command: str = ""
    args: tuple[str, ...] = ()
    url: str = ""

    @property
    def label(self) -> str:
        """A short name for the server, used in prompts and messages: a URL without its
        password, query or fragment, which may hold secrets."""
        return self.text.strip() if self.kind == "stdio" else shown_name(self.url)


def _parse_target(text: str) -> RemoteTarget:
    """Read TARGET: an http(s) URL (legacy SSE when its path ends in /sse) or a command line."""
    stripped = text.strip()
    if not stripped:
        raise _Refusal("TARGET is empty: give a command line or an http(s):// URL")
    scheme = stripped.split(":", 1)[0].lower()
    if scheme in ("http", "https"):
        parts = urlsplit(stripped)
        if not parts.hostname:
            raise _Refusal(f"TARGET {text!r} is not a usable URL (no host)")
        kind: Literal["http", "sse"] = "sse" if parts.path.rstrip("/").endswith("/sse") else "http"
        return RemoteTarget(kind, text, url=stripped)
    try:
        words = shlex.split(stripped)
    except ValueError as error:
        raise _Refusal(f"TARGET {text!r} is not a valid command line: {error}") from None
    return RemoteTarget("stdio", text, command=words[0], args=tuple(words[1:]))


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110 5.6.2)


def _parse_headers(lines: list[str] | None, target: RemoteTarget) -> dict[str, str]:
    """`--header "Name: value"` options as a dict (HTTP and SSE targets only)."""
    headers: dict[str, str] = {}
    for line in lines or []:
        name, colon, value = line.partition(":")
        if not colon or not _HEADER_NAME.fullmatch(name.strip()):
            raise _Refusal(f"--header must look like 'Name: value', got {line!r}")
        if any(char in value for char in "\r\n\0"):
            raise _Refusal(f"--header value must not hold a line break or NUL, got {line!r}")
        headers[name.strip()] = value.strip()
    if headers and target.kind == "stdio":
        raise _Refusal("--header applies to http(s) URLs only, not to a stdio command line")
    return headers


def _client(
    target: RemoteTarget,
    timeout: float,
    errlog: TextIO | None,
    headers: dict[str, str],
    on_approval_request: Any,
) -> MCPClientServer:
    """The client adapter's server for TARGET; `errlog` takes a stdio server's stderr."""
    from ..client import MCPServerSse, MCPServerStdio, MCPServerStreamableHttp

    common: dict[str, Any] = {
        "name": target.label,
        "client_session_timeout_seconds": timeout,
        "max_list_pages": _MAX_PAGES,
        "on_approval_request": on_approval_request,
    }
    if target.kind == "stdio":
        # Started from a shell, a server expects the shell's environment (the default
        # would pass only a safe subset).
        stdio = {"command": target.command, "args": list(target.args), "env": dict(os.environ)}
        return MCPServerStdio(stdio, errlog=errlog, **common)
    http: dict[str, Any] = {"url": target.url, "timeout": timeout}
    if headers:
        http["headers"] = dict(headers)
    kind = MCPServerSse if target.kind == "sse" else MCPServerStreamableHttp
    return kind(http, **common)


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


# The `mcp` client's streamable HTTP transport turns a 404 answer to `initialize` into a
# JSON-RPC "method not found" error with this message; the SSE transport raises the HTTP
# client's status error, which carries the response.
_METHOD_NOT_FOUND = -32601


def _answered_404(error: BaseException) -> bool:
    from ..client.errors import exception_chain

    for cause in exception_chain(error):
        response = getattr(cause, "response", None)
        if getattr(response, "status_code", None) == 404:
            return True
        if getattr(cause, "code", None) == _METHOD_NOT_FOUND and str(
            getattr(cause, "message", "")
        ).startswith("Not Found"):
            return True
    return False


def _endpoint_hint(target: RemoteTarget) -> str:
    """What to try when nothing answers at the URL's path."""
    parts = urlsplit(target.url)
    path = parts.path.rstrip("/")
    if path.endswith(("/mcp", "/sse")):
        return (
            "is the path right? toolwire serves streamable HTTP at /mcp and legacy SSE at "
            "/sse, under the mount's prefix when mounted in an app"
        )
    base = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    return (
        f"the URL needs the endpoint's path: try {base}/mcp (streamable HTTP; toolwire's "
        f"default) or {base}/sse (legacy SSE)"
    )


def _describe_failure(target: RemoteTarget, error: BaseException) -> str:
    """One line saying why talking to the TARGET failed (no traceback)."""
    from ..client.errors import LOST_TYPES, MCPCallError

    if target.kind != "stdio" and _answered_404(error):
        return f"{target.url} answered 404 Not Found: {_endpoint_hint(target)}"
    cause = _innermost(error)
    if isinstance(cause, MCPCallError):
        # The adapter's message names the server again and may span lines (a child's
        # stderr): the user gets the label once and the low-level cause, which is shorter.
        if cause.__cause__ is None:
            return f"{target.label}: {cause.reason.splitlines()[0]}"
        cause = _innermost(cause.__cause__)
    if isinstance(cause, FileNotFoundError | PermissionError) and target.kind == "stdio":
        return f"cannot start {target.command!r}: {cause.strerror or cause}"
    if isinstance(cause, TimeoutError):
        return f"{target.label} did not answer in time"
    name = type(cause).__name__
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    if "Connect" in name or isinstance(cause, ConnectionError):
        return f"cannot connect to {target.label}: {text or name}"
    if target.kind == "stdio" and (name in LOST_TYPES or text == "Connection closed"):
        return f"{target.label} exited or closed its output before answering"
    return f"{target.label}: {text or name}"


def _last_line(log: TextIO | None) -> str:
    """The last non-empty line a stdio server wrote to its captured stderr ("" if none)."""
    if log is None:
        return ""
    try:
        log.flush()
        log.seek(0)
        lines = [line.strip() for line in log.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    return lines[-1][:300] if lines else ""


@dataclass
class _Outcome:
    """What the command's work found out, for what is said after the server has gone."""

    tool_failed: bool = False


def _wire(model: Any) -> dict[str, Any]:
    """An `mcp` model as it travels on the wire (camelCase keys, no unset fields)."""
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def _run(
    args: argparse.Namespace,
    work: Any,
    outcome: _Outcome | None = None,
    *,
    on_approval_request: Any = None,
) -> int:
    """Connect, run `work(server, target)`, and turn every failure into one line.

    A stdio server's stderr is kept aside unless `--verbose`; its last line is shown on failure.
    """
    command = args.command
    try:
        target = _parse_target(args.target)
        headers = _parse_headers(args.header, target)
    except _Refusal as refusal:
        _say(command, str(refusal))
        return refusal.status
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        errlog = None if args.verbose or target.kind != "stdio" else log
        shown = cast(TextIO, _VisibleStderr()) if args.verbose and os.name == "posix" else None

        async def session() -> int:
            server = _client(target, args.timeout, errlog or shown, headers, on_approval_request)
            async with server:
                result: int = await work(server, target)
                return result

        try:
            status = asyncio.run(session())
        except KeyboardInterrupt:
            _say(command, "interrupted")
            status = 130
        except BaseException as error:  # the user gets one line, never a traceback
            ours = _innermost(error)
            if isinstance(ours, StdoutClosed):
                # The server has been left cleanly by now; nothing more is said.
                return end_for_closed_stdout()
            if isinstance(ours, _Refusal):
                _say(command, str(ours))
                status = ours.status
            elif isinstance(error, SystemExit):
                raise
            else:
                _say(command, _describe_failure(target, error))
                if errlog is not None and (said := _last_line(errlog)):
                    _say(command, f"the server's stderr ended with: {said}")
                status = 2
        if outcome is not None and outcome.tool_failed:
            _where_the_cause_is(command, target, errlog, verbose=args.verbose)
        return status


def _where_the_cause_is(
    command: str, target: RemoteTarget, errlog: TextIO | None, *, verbose: bool
) -> None:
    """After a tool failed: where its cause can be read (the server's stderr, or its log)."""
    if target.kind != "stdio":
        _say(
            command,
            "the cause, if the server logged it, is in the log of the process serving "
            + target.url,
        )
        return
    if verbose:
        return  # its stderr has been shown as it ran
    said = _last_line(errlog)
    if said:
        _say(command, f"the server's stderr ended with: {said}")
    _say(command, "the server's stderr is hidden; add --verbose to see it")


# -- toolwire tools -------------------------------------------------------------------------


def _what(message: str) -> str:
    """A `schema_problems` message without its advice to the author (after "; ")."""
    what, *rest = message.split("; ")
    details = [part for part in rest if part.startswith("missing from required:")]
    return "; ".join([what, *details])


def _client_view(tool: dict[str, Any], strict: Any) -> dict[str, Any]:
    """The listed tool with what each provider refuses and what a client can do about it
    (`strict`: the adapter's strict conversion of it, or None)."""
    schema = tool.get("inputSchema") or {}
    problems = {
        dialect: [
            f"{problem.path or '(root)'}: {_what(problem.message)}"
            for problem in schema_problems(schema, dialect)
        ]
        for dialect in DIALECTS
    }
    advice: dict[str, str] = {}
    if problems["openai-strict"]:
        made_strict = (
            strict is not None
            and strict.strict_json_schema
            and not schema_problems(strict.params_json_schema, "openai-strict")
        )
        if made_strict:
            advice["openai-strict"] = (
                "toolwire's client adapter sends a strict version with "
                "convert_schemas_to_strict=True (function_tools(), or Agent(mcp_config=...)); "
                "without it the tool is sent non-strict, which OpenAI accepts"
            )
        else:
            advice["openai-strict"] = (
                "convert_schemas_to_strict=True cannot make this schema strict, so toolwire's "
                "client adapter sends it non-strict, which OpenAI accepts"
            )
    for dialect in ("gemini", "anthropic"):
        if problems[dialect]:
            advice[dialect] = (
                "a client cannot rewrite this; leave the tool out for this provider "
                "(tool_filter= on toolwire's client adapter)"
            )
    return {**tool, "problems": problems, "client_advice": advice}


async def _strict_versions(server: MCPClientServer) -> dict[str, Any]:
    """The server's tools as the client adapter converts them when asked for strict schemas."""
    try:
        converted = await server.function_tools(convert_schemas_to_strict=True)
    except Exception:  # a tool the adapter cannot take at all: no advice about it, no failure
        return {}
    return {tool.name: tool for tool in converted}


def tools_command(args: argparse.Namespace) -> int:
    """List a remote server's tools, their schemas, what each provider would refuse in them,
    and what a client can do about it."""
    from .inspect import render_tools

    as_json: bool = args.json

    async def work(server: MCPClientServer, target: RemoteTarget) -> int:
        listed = [_wire(tool) for tool in await server.list_tools()]
        strict = await _strict_versions(server)
        tools = [_client_view(tool, strict.get(str(tool.get("name")))) for tool in listed]
        if as_json:
            text = json_text({"target": target.text, "tools": tools})
        else:
            text = visible(render_tools(target.label, tools))
        write_stdout(text)
        return 0

    return _run(args, work)


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


@dataclass
class _TerminalApproval:
    """`toolwire call`'s approval gate: `--yes`, else y/N on the terminal (none: denied)."""

    approve_all: bool
    tools: dict[Any, dict[str, Any]] = field(default_factory=dict)  # as listed, by name
    label: str = "the server"
    refusal: _Refusal | None = None

    def __call__(self, request: Any) -> dict[str, Any]:
        from ..client.approvals import gate_reason

        if self.approve_all:
            return {"approve": True}
        name = str(request.data.name)
        reason = gate_reason((self.tools.get(name) or {}).get("annotations"))
        if not (_is_terminal(sys.stdin) and _is_terminal(sys.stderr)):
            self.refusal = _Refusal(
                f"tool {name!r} needs approval: {reason}; there is no terminal to ask on, so "
                "pass --yes to call it anyway"
            )
            return {"approve": False, "reason": "there was no terminal to ask on"}
        shown = json.dumps(json.loads(request.data.arguments or "{}"), ensure_ascii=False)
        sys.stderr.write(
            visible(
                f"Tool '{name}' on {self.label} needs approval: {reason}.\n"
                f"Call it with {shown}? [y/N] "
            )
        )
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() in ("y", "yes"):  # EOF is a no
            return {"approve": True}
        self.refusal = _Refusal("not approved; the tool was not called", status=1)
        return {"approve": False, "reason": "declined at the terminal"}


def call_command(args: argparse.Namespace) -> int:
    """Call one tool of a remote server and print its result once, readably."""
    from ._render import ProgressDisplay, render_result

    tool_name: str = args.tool
    try:
        arguments = _parse_arguments(args.args)
    except _Refusal as refusal:
        _say("call", str(refusal))
        return refusal.status
    save_dir = Path(args.save_dir) if args.save_dir else None
    outcome = _Outcome()
    approval = _TerminalApproval(approve_all=args.yes)

    async def work(server: MCPClientServer, target: RemoteTarget) -> int:
        tools = {tool.name: _wire(tool) for tool in await server.list_tools()}
        if tool_name not in tools:
            known = ", ".join(sorted(str(name) for name in tools)) or "none"
            raise _Refusal(f"unknown tool {tool_name!r} on {target.label} (its tools: {known})")
        approval.tools, approval.label = tools, target.label
        display = ProgressDisplay(sys.stderr, live=_is_terminal(sys.stderr))
        try:
            # Unchecked: the server judges the arguments and its answer is shown as it is.
            # The adapter's approval gate runs first and asks `approval` when it must.
            result = await server.call_tool_unchecked(
                tool_name, arguments, progress_callback=display.update
            )
        finally:
            display.finish()
        if approval.refusal is not None:
            raise approval.refusal
        wire = _wire(result)
        failed = bool(wire.get("isError"))
        outcome.tool_failed = failed
        if args.json:
            write_stdout(json_text(wire))
            return 1 if failed else 0
        text = visible(render_result(wire, save_dir=save_dir, stem=tool_name))
        if failed:
            _say("call", f"tool {tool_name!r} reported an error:\n{text}")
            return 1
        if args.structured:
            if "structuredContent" not in wire:
                _say(
                    "call",
                    f"tool {tool_name!r} returned no structured content; its content was:\n{text}",
                )
                return 1
            text = json_text(wire["structuredContent"])
        if text:
            write_stdout(text)
        return 0

    return _run(args, work, outcome, on_approval_request=approval)
