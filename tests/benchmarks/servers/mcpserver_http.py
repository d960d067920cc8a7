"""The official `mcp` SDK's MCPServer over streamable HTTP: its Starlette app under uvicorn,
with the tools of mcpserver_server.py.

    python tests/benchmarks/servers/mcpserver_http.py --port N [--stateless] [--json-response]
"""

import argparse

import uvicorn
from mcpserver_server import server

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
