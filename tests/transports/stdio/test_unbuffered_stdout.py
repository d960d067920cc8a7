"""`PYTHONUNBUFFERED=1` (which many client configs set) and output printed before the wire is
taken: what `python server.py` cannot protect, and what `toolwire run` does.

The "stdout is the wire" section of docs/server.md states both; these tests keep it true.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from tests.transports._proc import INIT, frame, spawn

SERVER = textwrap.dedent(
    """
    print("printed before import toolwire")
    from toolwire import Server

    server = Server("unbuffered", version="1")

    @server.tool
    def add(a: int, b: int) -> int:
        \"\"\"Add two integers.\"\"\"
        return a + b

    if __name__ == "__main__":
        server.run()
    """
)


def _stdout_lines(command: list[str]) -> tuple[list[bytes], bytes]:
    proc = spawn(command, PYTHONUNBUFFERED="1")
    out, err = proc.communicate(frame(INIT), timeout=60)
    assert proc.returncode == 0, err
    return [line for line in out.split(b"\n") if line], err


def test_python_server_py_cannot_recall_an_unbuffered_print(tmp_path: Path) -> None:
    """The limit the README documents: with PYTHONUNBUFFERED=1 a print() that runs before
    `import toolwire` is written to fd 1 at once, ahead of anything toolwire can do."""
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    lines, _ = _stdout_lines([sys.executable, str(script)])
    assert lines[0] == b"printed before import toolwire"
    assert json.loads(lines[1])["id"] == 1


def test_toolwire_run_keeps_the_wire_clean_under_unbuffered_output(tmp_path: Path) -> None:
    """`toolwire run` takes the wire before the server's module is imported, so the same
    print goes to stderr and stdout carries only JSON-RPC."""
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    lines, err = _stdout_lines([sys.executable, "-m", "toolwire", "run", str(script)])
    assert [json.loads(line)["id"] for line in lines] == [1]
    assert b"printed before import toolwire" in err
