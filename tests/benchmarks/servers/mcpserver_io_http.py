"""The official SDK's MCPServer with the I/O-bound tool of bench_peers.py (io_tool.py), its
Starlette app under uvicorn as mcpserver_http.py runs it.

    python tests/benchmarks/servers/mcpserver_io_http.py --port N [--stateless] [--json-response]
"""

import argparse

import uvicorn
from io_tool import lookup as _lookup
from mcp.server.mcpserver import MCPServer

server = MCPServer("bench", log_level="WARNING")


@server.tool()
async def lookup(key: str) -> str:
    """Read an item from Redis and from the HTTP API."""
    return await _lookup(key)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    args = parser.parse_args()
    app = server.streamable_http_app(
        stateless_http=args.stateless, json_response=args.json_response
    )
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
