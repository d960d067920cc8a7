"""A server whose listing and whose one tool's result are far larger than a pipe's buffer.

`toolwire tools/inspect/call ... | head` must then find its reader gone in the middle of
writing. `CLI_PID_FILE`, when set, names a file where the server writes its process id.
"""

from __future__ import annotations

import os

from toolwire import Server

server = Server("big")
WORDS = "a rather long description " * 12_000  # about 300 kB in the input schema


def echo(text: str) -> str:
    return text


echo.__doc__ = f"Echo the text.\n\nArgs:\n    text: {WORDS}\n"
server.tool(annotations={"readOnlyHint": True})(echo)


@server.tool(annotations={"readOnlyHint": True})
def numbers(count: int = 100_000) -> str:
    """Numbered lines, one per number.

    Args:
        count: How many.
    """
    return "\n".join(f"line {number}" for number in range(count))


if __name__ == "__main__":
    pid_file = os.environ.get("CLI_PID_FILE")
    if pid_file:
        with open(pid_file, "w", encoding="utf-8") as out:
            out.write(str(os.getpid()))
    server.run()
