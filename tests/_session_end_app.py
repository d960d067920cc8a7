"""A server whose one tool answers the MCP session id it sees, and whose `on_session_end` hooks
write each ended session's id to a file (one line each): run as
`python -m tests._session_end_app TRANSPORT RECORD PORT [stateless] [idle=SECONDS]`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from toolwire import CallInfo, Server, ToolContext


def _session_of(info: CallInfo) -> str | None:
    return info.session_id


def build(record: Path) -> Server:
    """The server, writing ended sessions to `record`; its first hook always raises."""
    server = Server("session-end", context_factory=_session_of)

    @server.tool
    def whoami(ctx: ToolContext[Any]) -> str:
        """The session id as the tool sees it and as the context factory saw it."""
        return f"{ctx.session_id}|{ctx.context}"

    @server.on_session_end
    def broken(session_id: str) -> None:
        raise RuntimeError(f"this hook fails on purpose ({session_id})")

    @server.on_session_end
    async def write_down(session_id: str) -> None:
        with record.open("a") as out:
            out.write(session_id + "\n")

    return server


def main() -> None:
    transport, record, port, *flags = sys.argv[1:]
    options: dict[str, Any] = {}
    if transport != "stdio":
        options["port"] = int(port)
    for flag in flags:
        if flag == "stateless":
            options["stateless"] = True
        elif flag.startswith("idle="):
            options["session_idle_timeout"] = float(flag[5:])
    build(Path(record)).run(transport, **options)


if __name__ == "__main__":
    main()
