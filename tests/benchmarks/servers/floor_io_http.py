"""The HTTP floor of floor_http.py with the I/O-bound tool of bench_peers.py (io_tool.py):
one Starlette endpoint, no MCP library, arguments validated by a pydantic model, the tool
awaited in the request's task.

    python tests/benchmarks/servers/floor_io_http.py --port N
"""

import argparse
import json

import uvicorn
from io_tool import lookup
from pydantic import create_model
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

LookupArgs = create_model("lookup_args", key=(str, ...))


async def mcp(request: Request) -> Response:
    message = json.loads(await request.body())
    if message.get("id") is None:
        return Response(status_code=202)
    result = {}
    if message.get("method") == "tools/call":
        arguments = LookupArgs.model_validate(message["params"].get("arguments") or {})
        text = await lookup(arguments.key)
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "result": result})


app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true")  # always stateless
    parser.add_argument("--json-response", action="store_true")  # always JSON
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
