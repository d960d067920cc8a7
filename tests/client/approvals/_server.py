"""A toolwire server whose tools write down every call they receive (the server-side record).

`APPROVALS_CALL_LOG` names the file; each call appends one JSON line `{"tool": ..., "args": ...}`.
"""

from __future__ import annotations

import json
import os

from toolwire import Server

server = Server("approvals-fixture")


def _record(tool: str, **args: object) -> None:
    with open(os.environ["APPROVALS_CALL_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": tool, "args": args}) + "\n")


@server.tool(annotations={"destructiveHint": True})
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file to delete.
    """
    _record("delete_file", path=path)
    return f"deleted {path}"


@server.tool(annotations={"readOnlyHint": True})
def read_file(path: str) -> str:
    """Read a file.

    Args:
        path: The file to read.
    """
    _record("read_file", path=path)
    return f"contents of {path}"


@server.tool
def touch(path: str) -> str:
    """Create an empty file (no annotations: the annotations policy asks).

    Args:
        path: The file to create.
    """
    _record("touch", path=path)
    return f"touched {path}"


if __name__ == "__main__":
    server.run()
