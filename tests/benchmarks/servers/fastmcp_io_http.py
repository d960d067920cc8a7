"""FastMCP 4 with the I/O-bound tool of bench_peers.py (io_tool.py), over streamable HTTP
as fastmcp_http.py starts it.

    python tests/benchmarks/servers/fastmcp_io_http.py --port N [--stateless] [--json-response]
"""

import argparse

from fastmcp import FastMCP
from io_tool import lookup as _lookup

mcp = FastMCP("bench")


@mcp.tool
async def lookup(key: str) -> str:
    """Read an item from Redis and from the HTTP API."""
    return await _lookup(key)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    args = parser.parse_args()
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=args.port,
        stateless_http=args.stateless,
        json_response=args.json_response,
        log_level="warning",
        show_banner=False,
    )
