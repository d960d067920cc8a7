"""FastMCP 4 over streamable HTTP, started as its documentation shows (`mcp.run(transport=
"http", ...)`, which runs uvicorn), with the tools of fastmcp_server.py.

    python tests/benchmarks/servers/fastmcp_http.py --port N [--stateless] [--json-response]
"""

import argparse

from fastmcp_server import mcp

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
