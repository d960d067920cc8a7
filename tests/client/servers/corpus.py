"""Serves one group of the differential corpus over stdio: `python corpus.py GROUP`.

Tools that the server refuses to publish (a name MCP does not allow, ...) are left out and
named on stderr; the test reads the listing, so it only compares what was served.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
for entry in (ROOT / "src", ROOT):
    sys.path.insert(0, str(entry))

from tests.client._corpus import groups  # noqa: E402

from toolwire import Server  # noqa: E402

server = Server("corpus")
for case, tool in groups()[int(sys.argv[1])]:
    try:
        server.add_tool(tool)
    except Exception as error:
        sys.stderr.write(f"not served: {case.id}: {error}\n")

if __name__ == "__main__":
    server.run()
