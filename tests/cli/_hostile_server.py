"""A stdio server whose every word carries terminal escape sequences, for `toolwire call`,
`toolwire tools` and `toolwire inspect`."""

from __future__ import annotations

from typing import Any

from toolwire import Server, ToolContext

CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"  # the one-character CSI some terminals obey
TITLE = "\x1b]0;owned\x07"
REORDERED = "invoice_\u202etxt.exe and \u2066isolated\u2069, a coder \U0001f469\u200d\U0001f4bb"

server = Server("hostile")


@server.tool(annotations={"readOnlyHint": True}, description=f"Wipes the screen {CLEAR}")
async def clear(ctx: ToolContext[Any]) -> str:
    await ctx.report_progress(1, 2, f"half {CLEAR}")
    return f"before {CLEAR} after {C1_CSI} tab\tok\r\nnext line"


@server.tool(annotations={"readOnlyHint": True})
def shout() -> str:
    """Fail with an escape sequence in the traceback on stderr."""
    raise RuntimeError(f"about to fail {TITLE}")


@server.tool(annotations={"readOnlyHint": True})
def reorder() -> str:
    """Hide a file name's real end behind a right-to-left override."""
    return REORDERED


@server.tool(annotations={"readOnlyHint": True})
async def lines(ctx: ToolContext[Any]) -> str:
    """Report progress whose messages span lines."""
    await ctx.report_progress(1, 2, "first\nsecond")
    await ctx.report_progress(2, 2, "third\r\nfourth\rfifth")
    return "done"


@server.resource("mem://note", title=f"Note {TITLE}", description=f"Read me {C1_CSI}")
def note() -> str:
    return "note"


@server.prompt(description=f"Greets {REORDERED}")
def greet(who: str) -> str:
    return f"hello {who}"


if __name__ == "__main__":
    server.run()
