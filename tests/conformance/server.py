"""The conformance harness's fixture server, built with toolwire.

    python tests/conformance/server.py --port N [--transport http|sse|stdio] [--stateless]

serves on 127.0.0.1 only (http: `http://127.0.0.1:N/mcp`, sse: `http://127.0.0.1:N/sse`;
stdio for relays and local checks). The tools are in `handshake_tools.py` (the 0.1.16
scenarios) and `modern_tools.py` (the 2026-07-28 scenarios of the alpha harness), the
resources in `fixture_resources.py`, the prompts and completers in `fixture_prompts.py`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script: the repository root makes `tests.conformance` importable.
_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from tests.conformance.fixture_prompts import add_prompts  # noqa: E402
from tests.conformance.fixture_resources import add_resources  # noqa: E402
from tests.conformance.handshake_tools import add_handshake_tools  # noqa: E402
from tests.conformance.modern_tools import add_modern_tools  # noqa: E402

from toolwire import Server  # noqa: E402

LOOPBACK = "127.0.0.1"


def build() -> Server:
    """A server publishing every fixture tool, resource and prompt of both harness versions."""
    server = Server(
        "toolwire-conformance-fixture",
        version="1.0.0",
        instructions="Fixture tools for the MCP conformance harness.",
    )
    add_handshake_tools(server)
    add_modern_tools(server)
    add_resources(server)
    add_prompts(server)
    return server


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until stopped."""
    parser = argparse.ArgumentParser(description="toolwire's conformance fixture server")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1")
    parser.add_argument("--transport", choices=("http", "sse", "stdio"), default="http")
    parser.add_argument("--stateless", action="store_true", help="streamable HTTP without sessions")
    args = parser.parse_args(argv)
    if args.transport != "stdio" and not 0 < args.port < 65536:
        parser.error("--port must be a TCP port number (1-65535) for http and sse")
    if args.stateless and args.transport != "http":
        parser.error("--stateless applies to --transport http only")
    server = build()
    if args.transport == "stdio":
        server.run()
    elif args.transport == "sse":
        server.run("sse", host=LOOPBACK, port=args.port)
    else:
        server.run("http", host=LOOPBACK, port=args.port, stateless=args.stateless)


if __name__ == "__main__":
    main()
